package accesslog

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkParse reports lines per second for the Tomcat 10 common+%D
// sample (300 lines, read repeatedly).
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/tomcat10-common-D.log")
	if err != nil {
		b.Fatal(err)
	}
	log := strings.Repeat(string(data), 20) // 6000 lines
	lines := strings.Count(log, "\n")
	opt := Options{Pattern: samples[0].pattern, DurationUnit: DMicros}
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := Parse(strings.NewReader(log), "b", opt)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			if _, ok := p.Next(); !ok {
				break
			}
			n++
		}
		if n != lines || p.Err() != nil {
			b.Fatalf("%d of %d lines: %v", n, lines, p.Err())
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkSorted adds the two-pass sort.
func BenchmarkSorted(b *testing.B) {
	data, err := os.ReadFile("testdata/tomcat10-common-D.log")
	if err != nil {
		b.Fatal(err)
	}
	log := string(data)
	lines := strings.Count(log, "\n")
	opt := Options{Pattern: samples[0].pattern, DurationUnit: DMicros}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, _, err := RequiredWindow(strings.NewReader(log), "b", opt)
		if err != nil {
			b.Fatal(err)
		}
		p, _ := Parse(strings.NewReader(log), "b", opt)
		s := Sorted(p, w)
		n := 0
		for {
			if _, ok := s.Next(); !ok {
				break
			}
			n++
		}
		if n != lines {
			b.Fatalf("%d of %d", n, lines)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

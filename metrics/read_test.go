package metrics

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// t0 is the first scrape of the test files: 2026-01-02T03:04:00Z.
var t0 = time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)

// scrapes renders n Micrometer-style scrapes (no timestamps, R177), each
// opened by a ScrapeMarker, of two executors and a Tomcat connector.
func scrapes(n int, every time.Duration) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "# scrape %s\n", t0.Add(time.Duration(i)*every).Format(time.RFC3339))
		b.WriteString("# HELP executor_pool_size_threads The current number of threads in the pool\n# TYPE executor_pool_size_threads gauge\n")
		fmt.Fprintf(&b, "executor_pool_size_threads{application=\"shop\",name=\"applicationTaskExecutor\"} %d.0\n", 8)
		fmt.Fprintf(&b, "executor_pool_size_threads{application=\"shop\",name=\"taskScheduler\"} 1.0\n")
		b.WriteString("# TYPE executor_completed_tasks_total counter\n")
		fmt.Fprintf(&b, "executor_completed_tasks_total{application=\"shop\",name=\"applicationTaskExecutor\"} %d.0\n", 100*i)
		b.WriteString("# TYPE tomcat_threads_current_threads gauge\n")
		fmt.Fprintf(&b, "tomcat_threads_current_threads{application=\"shop\",name=\"http-nio-8080\"} %d.0\n", 10+i)
	}
	return b.String()
}

// TestReadFormats: the three formats of the same samples give the same
// series.
func TestReadFormats(t *testing.T) {
	text := scrapes(3, 15*time.Second)
	var js, csv strings.Builder
	csv.WriteString("time,series,value\n")
	js.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"tomcat_threads_current_threads","application":"shop","name":"http-nio-8080"},"values":[`)
	for i := 0; i < 3; i++ {
		ts := t0.Add(time.Duration(i) * 15 * time.Second)
		if i > 0 {
			js.WriteString(",")
		}
		fmt.Fprintf(&js, `[%d,"%d"]`, ts.Unix(), 10+i)
		fmt.Fprintf(&csv, "%s,\"tomcat_threads_current_threads{application=\"\"shop\"\",name=\"\"http-nio-8080\"\"}\",%d\n", ts.Format(time.RFC3339), 10+i)
	}
	js.WriteString(`]}]}}`)
	for _, tc := range []struct{ name, data, format string }{
		{"text", text, FormatText},
		{"json", js.String(), FormatQueryRange},
		{"csv", csv.String(), FormatCSV},
	} {
		set, err := Read([]byte(tc.data), tc.name)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if set.Format != tc.format {
			t.Errorf("%s: format %s, want %s", tc.name, set.Format, tc.format)
		}
		var got *Series
		for _, s := range set.Series {
			if s.ID() == `tomcat_threads_current_threads{application="shop",name="http-nio-8080"}` {
				got = s
			}
		}
		if got == nil || len(got.Points) != 3 {
			t.Fatalf("%s: series missing or wrong: %+v", tc.name, set.Series)
		}
		for i, p := range got.Points {
			if !p.T.Equal(t0.Add(time.Duration(i)*15*time.Second)) || p.V != float64(10+i) {
				t.Errorf("%s: point %d = %v %v", tc.name, i, p.T, p.V)
			}
		}
	}
}

// TestReadTimestamps: samples with their own millisecond timestamps need no
// scrape markers, and the same TYPE line may repeat across scrapes.
func TestReadTimestamps(t *testing.T) {
	data := "# TYPE jetty_threads_current gauge\njetty_threads_current 5 1767323040000\njetty_threads_current 6 1767323055000\n"
	set, err := Read([]byte(data), "f")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(set.Series[0].Points); n != 2 {
		t.Fatalf("%d points, want 2", n)
	}
}

// TestReadErrors: bad files are one-line input errors naming the file, the
// line or series, and the problem.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		// Micrometer writes no timestamps: without a marker there is no time.
		{"no time", "executor_active_threads{name=\"a\"} 3.0\n", `f:1: executor_active_threads{name="a"}: a sample without a time`},
		// The parser's line is mapped to the file's line.
		{"bad value", "# scrape 1767323040\nexecutor_active_threads{name=\"a\"} three\n", "f:2: Prometheus text format"},
		{"bad marker", "# scrape yesterday\nx 1\n", `f:1: # scrape: bad scrape time "yesterday"`},
		// The text parser gives no line per sample: the scrape's first line.
		{"duplicate", "# scrape 1767323040\nx 1\nx 2\n", "f:2: x: two samples at the same time"},
		{"error status", `{"status":"error","errorType":"bad_data","error":"parse error"}`, "f: status: the query failed in Prometheus: bad_data: parse error"},
		{"scalar", `{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}`, `f: data.resultType: "scalar" results hold no series`},
		{"no name", `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"name":"a"},"values":[[1,"2"]]}]}}`, `f: {name="a"}: a series without a metric name`},
		{"csv time", "time,series,value\nnoon,x,1\n", `f:2: x: bad time "noon"`},
		{"csv series", "time,series,value\n1767323040,x{,1\n", "f:2: x{: not a series and value"},
		{"empty", " \n", "f: empty metrics file"},
	} {
		_, err := Read([]byte(tc.data), "f")
		if err == nil || !inputerr.Is(err) || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want an input error starting %q", tc.name, err, tc.want)
		}
	}
}

// TestSelect: pools by family and labels; an ambiguous choice lists them.
func TestSelect(t *testing.T) {
	set, err := Read([]byte(scrapes(2, 15*time.Second)), "s.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ want, id, err string }{
		{"http-nio-8080", `tomcat{application="shop",name="http-nio-8080"}`, ""},
		{"name=applicationTaskExecutor", `executor{application="shop",name="applicationTaskExecutor"}`, ""},
		{"tomcat", `tomcat{application="shop",name="http-nio-8080"}`, ""},
		// Several pools and no choice: the error lists them.
		{"", "", `s.txt: --pool: 3 pools in the file; choose one (pools found: executor{application="shop",name="applicationTaskExecutor"}, executor{application="shop",name="taskScheduler"}, tomcat{`},
		{"shop", "", `s.txt: --pool: "shop" matches 3 pools`},
		{"nope", "", `s.txt: --pool: no pool matches "nope"`},
	} {
		p, err := Select(set, tc.want)
		switch {
		case tc.err != "":
			if err == nil || !inputerr.Is(err) || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("--pool %q: got %v, want %q", tc.want, err, tc.err)
			}
		case err != nil:
			t.Errorf("--pool %q: %v", tc.want, err)
		case p.ID() != tc.id:
			t.Errorf("--pool %q: %s, want %s", tc.want, p.ID(), tc.id)
		}
	}
}

// TestIncreasesAndGaps: a counter reset counts from zero; a missed scrape
// is a gap.
func TestIncreasesAndGaps(t *testing.T) {
	s := &Series{Name: "c"}
	for i, v := range []float64{0, 10, 25, 5, 15} { // a restart between 25 and 5
		at := time.Duration(i) * 15 * time.Second
		if i == 4 {
			at += 30 * time.Second // two scrapes missing
		}
		s.Points = append(s.Points, Point{T: t0.Add(at), V: v})
	}
	var deltas []float64
	resets := 0
	for _, inc := range Increases(s) {
		deltas = append(deltas, inc.Delta)
		if inc.Reset {
			resets++
		}
	}
	if fmt.Sprint(deltas) != "[10 15 5 10]" || resets != 1 {
		t.Errorf("increases %v with %d resets, want [10 15 5 10] with 1", deltas, resets)
	}
	g := Gaps(s)
	if len(g) != 1 || g[0].Missing != 2 {
		t.Errorf("gaps %v, want one of 2 missing scrapes", g)
	}
}

// TestImplausible: −1 from a virtual-thread executor, busy above size,
// size above max.
func TestImplausible(t *testing.T) {
	mk := func(name string, vs ...float64) *Series {
		s := &Series{Name: name, Labels: map[string]string{"name": "http-nio-8080"}}
		for i, v := range vs {
			s.Points = append(s.Points, Point{T: t0.Add(time.Duration(i) * time.Second), V: v})
		}
		return s
	}
	p := &Pool{Family: Tomcat, Labels: map[string]string{"name": "http-nio-8080"}, Series: map[Role]*Series{
		Size: mk("tomcat_threads_current_threads", -1, 5, 12),
		Busy: mk("tomcat_threads_busy_threads", -1, 7, 3),
		Max:  mk("tomcat_threads_config_max_threads", 10, 10, 10),
	}}
	var whys []string
	for _, pr := range Implausible(p) {
		whys = append(whys, pr.Why)
	}
	got := strings.Join(whys, "|")
	for _, want := range []string{"−1: the exporter cannot read this pool", "busy above the pool size (5)", "above max (10)"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
	o := p.Timeline()
	if !math.IsNaN(o.Size[0]) || o.Size[1] != 5 {
		t.Errorf("timeline keeps −1: %v", o.Size)
	}
}

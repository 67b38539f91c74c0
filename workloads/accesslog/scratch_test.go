package accesslog

import (
	"fmt"
	"strings"
	"testing"
)

func TestScratch(t *testing.T) {
	pat := `%h %l %u %t "%r" %s %b %D %T %{us}T %{fracsec}T %{begin:msec}t %{end:msec}t %{begin:yyyy-MM-dd HH:mm:ss.SSS Z}t %{sec}t.%{msec_frac}t %F %{ns}T %{ms}T %{end:sec}t %{begin:dd/MMM/yyyy:HH:mm:ss.S}t`
	log := `- - - [14/Nov/2023:23:13:20 +0100] "GET /a HTTP/1.1" 200 512 1234 0 1234 0.001 1700000000123 1700000000124 2023-11-14 23:13:20.123 +0100 1700000000.124 0 1234567 1 1700000000 14/Nov/2023:23:13:20.123
- - - [14/Nov/2023:23:13:24 +0100] "POST /b?x=1 HTTP/1.1" 503 - 2500000 2 2500000 2.500 1700000001999 1700000004499 2023-11-14 23:13:21.999 +0100 1700000004.499 - 2500000000 2500 1700000004 14/Nov/2023:23:13:21.999
`
	p, err := Parse(strings.NewReader(log), "x.log", Options{Pattern: pat, DurationUnit: DMicros})
	if err != nil {
		t.Fatal(err)
	}
	for {
		r, ok := p.Next()
		if !ok {
			break
		}
		fmt.Println(r, p.Origin())
	}
	fmt.Println(p.Err(), p.Stats(), p.Resolution())
	p, err = Parse(strings.NewReader(`10.1.2.3 - - [14/Nov/2023:23:13:20 +0100] "GET /a HTTP/1.1" 200 512 "-" "Mozilla/5.0 (X11; \"quoted\") \\ back"`), "y", Options{Pattern: "combined"})
	fmt.Println(p, err)
}

package accesslog_test

import (
	"fmt"
	"strings"

	"github.com/poolsim/poolsim/workloads/accesslog"
)

func ExampleParse() {
	// Three requests as Tomcat 10 logs them: at completion, %D in µs.
	log := `10.0.0.1 - - [14/Nov/2023:23:13:20 +0100] "GET /a HTTP/1.1" 200 512 1500000
10.0.0.2 - - [14/Nov/2023:23:13:20 +0100] "GET /b HTTP/1.1" 200 128 250000
10.0.0.3 - - [14/Nov/2023:23:13:21 +0100] "POST /c HTTP/1.1" 201 - 40000
`
	p, err := accesslog.Parse(strings.NewReader(log), "access.log", accesslog.Options{
		Pattern:      `%h %l %u %t "%r" %s %b %D`,
		DurationUnit: accesslog.DMicros, // Tomcat 10 and later
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		r, ok := p.Next()
		if !ok {
			break
		}
		fmt.Printf("line %d: arrival %v, service %v\n", r.Line, r.Arrival, r.Service)
	}
	fmt.Println(p.Err(), p.Stats().Parsed, "parsed")
	// Output:
	// line 1: arrival 0s, service 1.5s
	// line 2: arrival 1.25s, service 250ms
	// line 3: arrival 2.46s, service 40ms
	// <nil> 3 parsed
}

func ExampleSorted() {
	// Completion order: the long request that arrived first is logged last.
	log := `1700000000100 50
1700000000200 30
1700000000000 900
`
	opt := accesslog.Options{Pattern: "%{begin:msec}t %{ms}T"}
	w, _, err := accesslog.RequiredWindow(strings.NewReader(log), "access.log", opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := accesslog.Parse(strings.NewReader(log), "access.log", opt)
	s := accesslog.Sorted(p, w)
	for {
		r, ok := s.Next()
		if !ok {
			break
		}
		fmt.Printf("line %d: arrival %v, service %v\n", r.Line, r.Arrival, r.Service)
	}
	fmt.Println("window", w, s.Err())
	// Output:
	// line 3: arrival 0s, service 900ms
	// line 1: arrival 100ms, service 50ms
	// line 2: arrival 200ms, service 30ms
	// window 230ms <nil>
}

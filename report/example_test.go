package report_test

import (
	"fmt"

	"github.com/poolsim/poolsim/report"
)

func ExampleSummaryFromJSON() {
	kv, err := report.SummaryFromJSON([]byte(`{"submitted": 7200, "wait_p99_s": 2.5e-3, "seed": 1}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range kv {
		fmt.Println(e.Key, "=", e.Value)
	}
	// Output:
	// submitted = 7200
	// wait_p99_s = 2.5e-3
	// seed = 1
}

func ExampleSummaryFromStruct() {
	type summary struct {
		Submitted int64   `json:"submitted"`
		WaitP99   float64 `json:"wait_p99_s"`
		RunState  string  `json:"run_state"`
		Periodic  []int   `json:"periodic,omitempty"`
	}
	kv, err := report.SummaryFromStruct(summary{Submitted: 7200, WaitP99: 2.5e-3, RunState: "RUNNING"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range kv {
		fmt.Println(e.Key, "=", e.Value)
	}
	// Output:
	// submitted = 7200
	// wait_p99_s = 0.0025
	// run_state = RUNNING
}

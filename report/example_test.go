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

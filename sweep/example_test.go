package sweep

import (
	"context"
	"fmt"
)

// A sweep in memory: two values of pool.max, two replications each. The
// seeds derive from the scenario's seed (1) and each point's values.
func ExampleSweep_Run() {
	p, err := ParseParam("pool.max=100,200")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := New(Config{Path: "../scenarios/examples/sweep-ci-tomcat.yaml", Params: []Param{p}, Replications: 2, Version: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	o, err := s.Run(context.Background(), RunOptions{Jobs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range o.Results.Rows {
		fmt.Println(s.Grid().Label(row.Point), row.Replications, "replications, seeds", row.Seeds)
	}
	// Output:
	// pool.max=100 2 replications, seeds [4882765150173869 5474829151235612]
	// pool.max=200 2 replications, seeds [7541423115696668 6712958998619216]
}

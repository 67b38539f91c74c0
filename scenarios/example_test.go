package scenarios_test

import (
	"fmt"

	"github.com/poolsim/poolsim/scenarios"
)

// A scenario can come from memory as well as from a file (Load). The
// overrides are the CLI's --set flags: they apply as if the file said so.
func ExampleParse() {
	yaml := []byte(`
name: checkout
duration: 1h
pool: {preset: tomcat, max: 50, keepAlive: 30s}
workload:
  arrivals: {process: poisson, rate: 20/s}
  service: {dist: exponential, mean: 80ms}
`)
	sc, err := scenarios.Parse(yaml, "checkout.yaml", []string{"pool.max=80"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sc.Name, sc.Duration, "seed", sc.Seed)
	// The tomcat preset fills in what the file leaves out (core 10, the
	// thread names of Tomcat's NIO connector).
	p := sc.Pool
	fmt.Println(p.Preset, "core", p.Core, "max", p.Max, "keepAlive", p.KeepAlive, p.ThreadNamePrefix)
	ph := sc.Workload.Phases[0]
	fmt.Println(ph.Arrivals.Process, ph.Arrivals.Rate, "/s,", ph.Service.Dist, ph.Service.Mean)
	// Output:
	// checkout 1h0m0s seed 1
	// tomcat core 10 max 80 keepAlive 30s http-nio-8080-exec-
	// poisson 20 /s, exponential 80ms
}

// Bad input is an error of one line, FILE:LINE:COL: KEY: what is wrong
// (what is allowed), never a panic.
func ExampleParse_badKey() {
	yaml := []byte(`
duration: 1h
pool: {preset: fixed, core: 8, keepAlve: 30s}
workload:
  arrivals: {process: poisson, rate: 20/s}
  service: {dist: exponential, mean: 80ms}
`)
	_, err := scenarios.Parse(yaml, "bad.yaml", nil)
	fmt.Println(err.Error())
	// Output:
	// bad.yaml:3:32: pool.keepAlve: unknown key "keepAlve"; did you mean "keepAlive"? (keys: allowCoreThreadTimeOut, concurrencyLimit, continueExistingPeriodicTasksAfterShutdown, core, executeExistingDelayedTasksAfterShutdown, keepAlive, max, preset, prestart, queue, rejectTasksWhenLimitReached, rejection, removeOnCancelPolicy, threadNamePrefix)
}

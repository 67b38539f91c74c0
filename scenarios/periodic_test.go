package scenarios

import (
	"reflect"
	"testing"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

// TestFamilyPresetsExact: the scheduled and Jetty presets have the parameters of the
// constructors they stand for (spec R84, R88, R100; Spring Boot's server.jetty.threads).
func TestFamilyPresetsExact(t *testing.T) {
	jetty := model.Config{Flavor: model.Jetty, Core: 8, Max: 200, KeepAlive: time.Minute, Queue: model.BlockingArrayQueue, QueueCapacity: model.Unbounded}
	tests := []struct {
		pool string
		want model.Config
	}{
		// newScheduledThreadPool(3): STPE(3): max Integer.MAX_VALUE, keepAlive 10 ms, DelayedWorkQueue (R88).
		{"{preset: scheduled, core: 3}", model.Config{Flavor: model.Scheduled, Core: 3, Max: model.Unbounded, KeepAlive: 10 * time.Millisecond,
			Queue: model.DelayedWorkQueue, QueueCapacity: model.Unbounded}},
		// The shutdown policies, by their JDK names (R98).
		{"{preset: scheduled, core: 1, continueExistingPeriodicTasksAfterShutdown: true, executeExistingDelayedTasksAfterShutdown: false}",
			model.Config{Flavor: model.Scheduled, Core: 1, Max: model.Unbounded, KeepAlive: 10 * time.Millisecond, Queue: model.DelayedWorkQueue,
				QueueCapacity: model.Unbounded, ContinuePeriodicAfterShutdown: true, DropDelayedOnShutdown: true}},
		// setRemoveOnCancelPolicy(true) (R97).
		{"{preset: scheduled, core: 1, removeOnCancelPolicy: true}",
			model.Config{Flavor: model.Scheduled, Core: 1, Max: model.Unbounded, KeepAlive: 10 * time.Millisecond, Queue: model.DelayedWorkQueue,
				QueueCapacity: model.Unbounded, RemoveOnCancel: true}},
		// QueuedThreadPool(): maxThreads 200, minThreads 8, idleTimeout 60000 ms (R100).
		{"{preset: jetty}", jetty},
		// Spring Boot's server.jetty.threads defaults are Jetty's own.
		{"{preset: spring-boot-jetty}", jetty},
		// core = minThreads, max = maxThreads, keepAlive = idleTimeout.
		{"{preset: jetty, core: 2, max: 20, keepAlive: 1s}", model.Config{Flavor: model.Jetty, Core: 2, Max: 20, KeepAlive: time.Second,
			Queue: model.BlockingArrayQueue, QueueCapacity: model.Unbounded}},
		// A hypothetical hand-off order (a custom queue) for what-ifs.
		{"{preset: jetty, queue: {handOff: lifo}}", func() model.Config { c := jetty; c.HandOffOverride = model.ForceLIFO; return c }()},
	}
	for _, tt := range tests {
		sc, err := Parse([]byte("pool: "+tt.pool+"\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\nduration: 1m\n"), "s.yaml", nil)
		if err != nil {
			t.Errorf("%s: %v", tt.pool, err)
			continue
		}
		if sc.Pool.Config != tt.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.pool, sc.Pool.Config, tt.want)
		}
	}
}

// TestPeriodicJobs: workload.periodic, beside ordinary traffic or alone.
func TestPeriodicJobs(t *testing.T) {
	sc, err := Parse([]byte(`
duration: 1m
pool: {preset: scheduled, core: 2}
workload:
  arrivals: {process: poisson, rate: 1}
  service: {dist: constant, value: 1ms}
  periodic:
    - {name: a, mode: fixed-rate, every: 100ms, initialDelay: 50ms, at: 2s, service: {dist: exponential, mean: 10ms}, failAt: 3}
    - {mode: fixed-delay, every: 1s, service: {dist: constant, value: 5ms}, firstRuns: [350ms, 0s], failure: 0.5}
    - {mode: once, initialDelay: 5s, service: {dist: constant, value: 5ms}, cancelAt: 2s}
    - {mode: fixed-rate, every: 1s, at: 3s, service: {dist: constant, value: 5ms}, cancelAt: 3s}
`), "s.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []PeriodicJob{
		{Name: "a", Mode: FixedRate, Every: 100 * time.Millisecond, InitialDelay: 50 * time.Millisecond, At: 2 * time.Second,
			Service: workloads.ServiceSpec{Dist: "exponential", Mean: 10 * time.Millisecond}, FailAt: 3},
		{Name: "periodic-2", Mode: FixedDelay, Every: time.Second, Service: workloads.ServiceSpec{Dist: "constant", Mean: 5 * time.Millisecond},
			FirstRuns: []time.Duration{350 * time.Millisecond, 0}, Failure: 0.5},
		// future.cancel(false) at 2 s, before the run is due (R97).
		{Name: "periodic-3", Mode: Once, InitialDelay: 5 * time.Second, Service: workloads.ServiceSpec{Dist: "constant", Mean: 5 * time.Millisecond},
			Cancel: true, CancelAt: 2 * time.Second},
		// A cancel at the schedule call's own time comes just after it.
		{Name: "periodic-4", Mode: FixedRate, Every: time.Second, At: 3 * time.Second, Service: workloads.ServiceSpec{Dist: "constant", Mean: 5 * time.Millisecond},
			Cancel: true, CancelAt: 3 * time.Second},
	}
	if !reflect.DeepEqual(sc.Periodic, want) {
		t.Errorf("periodic:\n got %+v\nwant %+v", sc.Periodic, want)
	}
	alone, err := Parse([]byte("duration: 1m\npool: {preset: scheduled, core: 1}\nworkload: {periodic: [{mode: fixed-rate, every: 1s, service: {dist: constant, value: 1ms}}]}\n"), "s.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if alone.WorkloadForm != "periodic" || len(alone.Workload.Phases) != 0 {
		t.Errorf("periodic jobs alone: form %q, %d phases", alone.WorkloadForm, len(alone.Workload.Phases))
	}
}

// TestFamilyLoadErrors: what ScheduledThreadPoolExecutor and QueuedThreadPool do not take is an
// error at its key, with what is allowed.
func TestFamilyLoadErrors(t *testing.T) {
	const stpe = "pool: {preset: scheduled, core: 1}\nduration: 1m\n"
	const svc = "service: {dist: constant, value: 1ms}"
	const jettyWork = "workload: {arrivals: {process: poisson, rate: 1}, " + svc + "}\n"
	tests := []struct {
		name, yaml, want string
	}{
		// STPE(core) needs its size, like newScheduledThreadPool(n).
		{"scheduled without core", "pool: {preset: scheduled}\n", "s.yaml:1:7: pool.core: missing: the scheduled preset needs the pool size"},
		// Its constructor fixes max and keepAlive (R88).
		{"scheduled max", "pool: {preset: scheduled, core: 1, max: 4}\n", "s.yaml:1:41: pool.max: ScheduledThreadPoolExecutor's constructor fixes maximumPoolSize"},
		{"scheduled keepAlive", "pool: {preset: scheduled, core: 1, keepAlive: 1s}\n", "s.yaml:1:47: pool.keepAlive: ScheduledThreadPoolExecutor's constructor fixes keepAliveTime at 10ms"},
		{"scheduled queue", "pool: {preset: scheduled, core: 1, queue: {type: linked}}\n", "s.yaml:1:43: pool.queue: ScheduledThreadPoolExecutor always uses its unbounded DelayedWorkQueue"},
		// Shutdown policies belong to STPE only.
		{"policy on a jdk pool", "pool: {core: 1, max: 2, continueExistingPeriodicTasksAfterShutdown: true}\n", "s.yaml:1:69: pool.continueExistingPeriodicTasksAfterShutdown: a shutdown policy of ScheduledThreadPoolExecutor only"},
		// So is removeOnCancelPolicy (R97), even set to its default.
		{"removeOnCancelPolicy on a tomcat pool", "pool: {preset: tomcat, removeOnCancelPolicy: false}\n", "s.yaml:1:46: pool.removeOnCancelPolicy: setRemoveOnCancelPolicy is a ScheduledThreadPoolExecutor method"},
		// A DelayedWorkQueue needs the STPE.
		{"delayed queue on a jdk pool", "pool: {core: 1, max: 2, queue: {type: delayed}}\n", "s.yaml:1:39: pool.queue.type: DelayedWorkQueue needs a ScheduledThreadPoolExecutor"},
		// Periodic jobs need an STPE.
		{"periodic on a fixed pool", "pool: {preset: fixed, core: 1}\nduration: 1m\nworkload: {periodic: [{mode: once, " + svc + "}]}\n", "s.yaml:3:11: workload.periodic: a fixed pool has no schedule methods"},
		// The job's keys.
		{"missing mode", stpe + "workload: {periodic: [{every: 1s, " + svc + "}]}\n", "s.yaml:3:23: workload.periodic[0].mode: missing"},
		{"unknown mode", stpe + "workload: {periodic: [{mode: fixed_rate, every: 1s, " + svc + "}]}\n", `s.yaml:3:30: workload.periodic[0].mode: unknown value "fixed_rate"; did you mean "fixed-rate"?`},
		{"missing every", stpe + "workload: {periodic: [{mode: fixed-rate, " + svc + "}]}\n", "s.yaml:3:23: workload.periodic[0].every: missing for mode fixed-rate"},
		{"every on once", stpe + "workload: {periodic: [{mode: once, every: 1s, " + svc + "}]}\n", "s.yaml:3:43: workload.periodic[0].every: mode once runs a single time"},
		// R94, R95: a period or delay <= 0 is IllegalArgumentException.
		{"zero period", stpe + "workload: {periodic: [{mode: fixed-delay, every: 0s, " + svc + "}]}\n", "s.yaml:3:50: workload.periodic[0].every: must be > 0, got 0s"},
		{"missing service", stpe + "workload: {periodic: [{mode: once}]}\n", "s.yaml:3:23: workload.periodic[0].service: missing"},
		{"failAt 0", stpe + "workload: {periodic: [{mode: fixed-rate, every: 1s, failAt: 0, " + svc + "}]}\n", "s.yaml:3:61: workload.periodic[0].failAt: must be >= 1, got 0"},
		{"failAt 2 on once", stpe + "workload: {periodic: [{mode: once, failAt: 2, " + svc + "}]}\n", "s.yaml:3:44: workload.periodic[0].failAt: mode once has one run"},
		{"bad failure", stpe + "workload: {periodic: [{mode: once, failure: 2, " + svc + "}]}\n", "s.yaml:3:45: workload.periodic[0].failure: must be a probability, got 2"},
		{"negative first run", stpe + "workload: {periodic: [{mode: once, firstRuns: [-1s], " + svc + "}]}\n", "s.yaml:3:48: workload.periodic[0].firstRuns[0]: must be >= 0, got -1s"},
		{"duplicate name", stpe + "workload: {periodic: [{name: x, mode: once, " + svc + "}, {name: x, mode: once, " + svc + "}]}\n", `s.yaml:3:92: workload.periodic[1].name: "x" is already the name of periodic[0]`},
		{"call after the end", stpe + "workload: {periodic: [{mode: once, at: 2m, " + svc + "}]}\n", "s.yaml:3:40: workload.periodic[0].at: 2m0s is after the end of the run (1m0s)"},
		// cancelAt (R97): within the run, not before the schedule call that returns the future.
		{"negative cancelAt", stpe + "workload: {periodic: [{mode: once, cancelAt: -1s, " + svc + "}]}\n", "s.yaml:3:46: workload.periodic[0].cancelAt: must be >= 0, got -1s"},
		{"cancelAt after the end", stpe + "workload: {periodic: [{mode: fixed-rate, every: 1s, cancelAt: 90s, " + svc + "}]}\n", "s.yaml:3:63: workload.periodic[0].cancelAt: 1m30s is after the end of the run (1m0s)"},
		{"cancelAt before the call", stpe + "workload: {periodic: [{mode: once, at: 10s, cancelAt: 5s, " + svc + "}]}\n", "s.yaml:3:55: workload.periodic[0].cancelAt: 5s is before the schedule call at 10s"},
		{"cancelAt a word", stpe + "workload: {periodic: [{mode: once, cancelAt: soon, " + svc + "}]}\n", "s.yaml:3:46: workload.periodic[0].cancelAt:"},
		{"unknown job key", stpe + "workload: {periodic: [{mode: once, perod: 1s, " + svc + "}]}\n", `s.yaml:3:36: workload.periodic[0].perod: unknown key "perod"`},
		// QueuedThreadPool: max < min is the constructor's IllegalArgumentException (R100).
		{"jetty max below min", "pool: {preset: jetty, core: 10, max: 5}\n", "s.yaml:1:38: pool.max: max threads (5) less than min threads (10)"},
		{"jetty queue type", "pool: {preset: jetty, queue: {type: linked}}\n", "s.yaml:1:37: pool.queue.type: the jetty presets model QueuedThreadPool's default unbounded BlockingArrayQueue"},
		{"jetty rejection", "pool: {preset: jetty, rejection: discard}\n", "s.yaml:1:34: pool.rejection: QueuedThreadPool has no rejection handler"},
		{"jetty core timeout", "pool: {preset: jetty, allowCoreThreadTimeOut: true}\n", "s.yaml:1:47: pool.allowCoreThreadTimeOut: QueuedThreadPool has no core time-out"},
		{"jetty prestart off", "pool: {preset: jetty, prestart: false}\n", "s.yaml:1:33: pool.prestart: QueuedThreadPool.start() always starts minThreads threads"},
		{"jetty sub-millisecond idleTimeout", "pool: {preset: jetty, keepAlive: 1.5ms}\n", "s.yaml:1:34: pool.keepAlive: Jetty's idleTimeout is an int of milliseconds, got 1.5ms"},
		// Its setters: no shutdown, no core time-out, whole milliseconds.
		{"jetty shutdown event", "pool: {preset: jetty}\nduration: 1m\n" + jettyWork + "events: [{at: 1s, shutdown: graceful}]\n", "s.yaml:4:29: events[0].shutdown: at 1s: QueuedThreadPool has no shutdown()"},
		{"jetty core timeout event", "pool: {preset: jetty}\nduration: 1m\n" + jettyWork + "events: [{at: 1s, set: {allowCoreThreadTimeOut: true}}]\n", "s.yaml:4:49: events[0].set.allowCoreThreadTimeOut: at 1s: QueuedThreadPool has no core time-out"},
		{"jetty idleTimeout event", "pool: {preset: jetty}\nduration: 1m\n" + jettyWork + "events: [{at: 1s, set: {keepAlive: 0.5ms}}]\n", "s.yaml:4:36: events[0].set.keepAlive: at 1s: setIdleTimeout takes an int of milliseconds"},
	}
	for _, tt := range tests {
		wantParseError(t, tt.name, "s.yaml", tt.yaml, nil, tt.want)
	}
}

// TestJettyEventsDragBounds: QueuedThreadPool's setters never refuse an order of calls —
// setMinThreads raises maxThreads, setMaxThreads lowers minThreads (R100) — where the JDK's
// would throw (R21, R22).
func TestJettyEventsDragBounds(t *testing.T) {
	const work = "workload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\n"
	_, err := Parse([]byte("pool: {preset: jetty, core: 2, max: 4}\nduration: 1m\n"+work+"events:\n  - {at: 1s, set: {core: 10}}\n  - {at: 2s, set: {max: 1}}\n"), "s.yaml", nil)
	if err != nil {
		t.Fatalf("jetty setters refused: %v", err)
	}
	if _, err := Parse([]byte("pool: {core: 2, max: 4}\nduration: 1m\n"+work+"events:\n  - {at: 1s, set: {core: 10}}\n"), "s.yaml", nil); err == nil {
		t.Errorf("the JDK's setCorePoolSize(10) above max 4 was accepted")
	}
}

package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/scenarios"
)

// TestThreadStartCosts: each Thread.start() costs its caller host.threadStart,
// one after another, and the new thread runs nothing before it has passed
// (host.go). Every figure is exact: the runs are deterministic.
func TestThreadStartCosts(t *testing.T) {
	ms := func(x float64) float64 { return time.Duration(x * float64(time.Millisecond)).Seconds() }
	tests := []struct {
		name, pool, workload string
		// Expected figures, seconds (ms() above) or counts.
		created                                 int64
		startAll, startSubmitter                float64
		largest                                 int
		lastEnd, submitDelayMax, waitMean, busy float64
	}{
		// Thread per task, 10 tasks at once, 1 ms per start, 0.5 ms tasks: task
		// k is submitted at (k−1) ms, runs from k ms; one thread runs while the
		// next one starts.
		{"thread-per-task", "{preset: thread-per-task}", "arrivals: {process: burst, count: 10}, service: {dist: constant, value: 500us}",
			10, ms(10), ms(10), 2, ms(10.5), ms(9), ms(5.5), ms(0)},
		// Tasks of 2.5 ms overlap: three run while a fourth starts.
		{"thread-per-task, long tasks", "{preset: thread-per-task}", "arrivals: {process: burst, count: 10}, service: {dist: constant, value: 2500us}",
			10, ms(10), ms(10), 4, ms(12.5), ms(9), ms(5.5), ms(0)},
		// A single thread: the first execute starts it (the submitter waits
		// 1 ms), then nine tasks queue and run back to back from 1 ms.
		{"single thread", "{preset: single}", "arrivals: {process: burst, count: 10}, service: {dist: constant, value: 500us}",
			1, ms(1), ms(1), 1, ms(6), ms(1), ms(3.25), ms(0)},
		// Tomcat prestarts 3 threads in its constructor, one after another:
		// up at 1, 2, 3 ms. The submitter is not the constructor: it is not
		// delayed, and each task waits for its (FIFO) thread to be up.
		{"tomcat prestart", "{preset: tomcat, core: 3, max: 3}", "arrivals: {process: burst, count: 3}, service: {dist: constant, value: 10ms}",
			3, ms(3), 0, 3, ms(13), 0, ms(2), ms(0)},
		// Caller-runs: the first execute starts the only thread (1 ms of the
		// submitter); the second, submitted at 1 ms, is rejected and runs on
		// the submitter from then.
		{"caller-runs after a start", "{core: 0, max: 1, queue: {type: synchronous}, rejection: caller-runs}", "arrivals: {process: burst, count: 2}, service: {dist: constant, value: 10ms}",
			1, ms(1), ms(1), 1, ms(11), ms(1), ms(1), ms(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := fmt.Sprintf("duration: 1s\npool: %s\nhost: {threadStart: 1ms, stackSize: 512k}\nworkload: {%s}\n", tt.pool, tt.workload)
			s := runAll(t, parse(t, y), true).res.Summary
			got := []float64{float64(s.ThreadsCreated), float64(s.ThreadStart), float64(s.ThreadStartSubmitter), float64(s.LargestPoolSize),
				float64(s.PeakReservedStack), float64(s.LastTaskEnd), float64(s.SubmitDelayMax), float64(s.WaitMean), float64(s.CallerBusy)}
			want := []float64{float64(tt.created), tt.startAll, tt.startSubmitter, float64(tt.largest),
				float64(tt.largest) * 512 * 1024, tt.lastEnd, tt.submitDelayMax, tt.waitMean, tt.busy}
			names := []string{"threads_created", "thread_start_s", "thread_start_submitter_s", "largest_pool_size",
				"peak_reserved_stack_bytes", "last_task_end_s", "submit_delay_max_s", "wait_mean_s", "caller_busy_s"}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-12 {
					t.Errorf("%s = %v, want %v", names[i], got[i], want[i])
				}
			}
		})
	}
}

// TestThreadStartReplacement: a worker that dies of a throwing task starts
// its replacement itself (R17): the submitter is not delayed, and a task
// arriving while the replacement starts waits for it.
func TestThreadStartReplacement(t *testing.T) {
	sc := traceScenario(t, "pool: {preset: single}\nhost: {threadStart: 1ms}\n", "arrival_s,service_s,fail\n0,0.010,1\n0.0115,0.005,0\n")
	var ends []time.Duration
	res, err := Run(context.Background(), sc, Options{CheckInvariants: true, OnTask: func(e TaskEvent) {
		if e.End {
			ends = append(ends, e.T)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	// Task 1 runs [1 ms, 11 ms) on the first thread, which dies; its
	// replacement is up at 12 ms; task 2 (arrived 11.5 ms) runs [12, 17).
	want := []time.Duration{11 * time.Millisecond, 17 * time.Millisecond}
	if fmt.Sprint(ends) != fmt.Sprint(want) || s.ThreadsCreated != 2 || s.ThreadStart != 0.002 || s.ThreadStartSubmitter != 0.001 {
		t.Errorf("task ends %v (want %v), threads_created %d (2), thread_start_s %v (0.002), thread_start_submitter_s %v (0.001)",
			ends, want, s.ThreadsCreated, s.ThreadStart, s.ThreadStartSubmitter)
	}
}

// TestHostNeutral: what the host adds changes nothing when it costs
// nothing. A zero thread start, and CPUs for tasks that have no CPU part
// (a plain service law), leave the timeline byte for byte; unlimited CPUs
// (cpus above any number of runnable tasks) and slices leave every task's
// timing as it is without a host.
func TestHostNeutral(t *testing.T) {
	const pool = "pool: {preset: tomcat, core: 5, max: 40, keepAlive: 2s}\nduration: 2m\nwarmup: 10s\nsample: 1s\n"
	plain := "workload: {arrivals: {process: poisson, rate: 150}, service: {dist: lognormal, mean: 60ms, cv: 1.5}, failure: 0.01}\n"
	base := runAll(t, parse(t, pool+plain), true)
	for _, host := range []string{"host: {threadStart: 0s}\n", "host: {cpus: 2}\n", "host: {cpus: 1, threadStart: 0s, stackSize: 2m}\n"} {
		got := runAll(t, parse(t, pool+host+plain), true)
		if got.timeline != base.timeline {
			t.Errorf("%s changed the timeline of a plain law", strings.TrimSpace(host))
		}
		if got.res.Summary.ResponseMean != base.res.Summary.ResponseMean || got.res.Summary.Events != base.res.Summary.Events {
			t.Errorf("%s changed the summary of a plain law", strings.TrimSpace(host))
		}
	}
	split := func(slices int) string {
		return fmt.Sprintf("workload: {arrivals: {process: poisson, rate: 150}, service: {cpu: {dist: exponential, mean: 10ms}, blocking: {dist: lognormal, mean: 50ms, cv: 1.5}, slices: %d}}\n", slices)
	}
	var ref []TaskEvent
	record := func(out *[]TaskEvent) func(TaskEvent) { return func(e TaskEvent) { *out = append(*out, e) } }
	if _, err := Run(context.Background(), parse(t, pool+split(1)), Options{OnTask: record(&ref), CheckInvariants: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ host, work string }{
		{"host: {cpus: 40}\n", split(1)}, // 40 CPUs, at most 40 threads: never shared
		{"host: {cpus: 1000}\n", split(7)},
		{"", split(3)},
	} {
		var got []TaskEvent
		if _, err := Run(context.Background(), parse(t, pool+c.host+c.work), Options{OnTask: record(&got), CheckInvariants: true}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(ref) {
			t.Fatalf("%s%s: %d task events, want %d", c.host, c.work, len(got), len(ref))
		}
		for i := range ref {
			if got[i] != ref[i] {
				t.Fatalf("%s%s: task event %d is %+v, want %+v", c.host, c.work, i, got[i], ref[i])
			}
		}
	}
}

// TestCPUSharedExactly: two tasks of 10 ms of CPU on one CPU, the second
// arriving at 5 ms, share it from then on: the first ends at 15 ms (5 ms
// alone, then 10 ms at half speed), the second at 20 ms. With slices, a
// task blocks between its CPU pieces and leaves the CPU to the other.
func TestCPUSharedExactly(t *testing.T) {
	tests := []struct {
		name, trace, service string
		ends                 []time.Duration // task end times, in order
		delay                float64         // cpu_delay_mean_s
	}{
		// Processor sharing: 5 ms alone, then both at rate 1/2; each spends
		// 15 ms on the CPU for 10 ms of work.
		{"shared", "arrival_s,service_s,cpu_s\n0,0.010,0.010\n0.005,0.010,0.010\n", "", []time.Duration{15 * time.Millisecond, 20 * time.Millisecond}, 0.005},
		// CPU then blocking: task 1 computes [0, 5) alone, [5, 7) shared
		// (1 ms of progress), blocks 4 ms until 11 ms; task 2 has 1 ms done
		// at 7 ms, runs alone until 10 ms, blocks until 14 ms. Each was
		// runnable 1 ms longer than its CPU demand.
		{"cpu then blocking", "arrival_s,service_s,cpu_s\n0,0.010,0.006\n0.005,0.008,0.004\n", "", []time.Duration{11 * time.Millisecond, 14 * time.Millisecond}, 0.001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := traceScenario(t, "pool: {preset: cached}\nhost: {cpus: 1}\n", tt.trace)
			var ends []time.Duration
			res, err := Run(context.Background(), sc, Options{CheckInvariants: true, OnTask: func(e TaskEvent) {
				if e.End {
					ends = append(ends, e.T)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(ends) != fmt.Sprint(tt.ends) {
				t.Errorf("tasks ended at %v, want %v", ends, tt.ends)
			}
			if d := float64(res.Summary.CPUDelayMean); math.Abs(d-tt.delay) > 1e-12 {
				t.Errorf("cpu_delay_mean_s = %v, want %v", d, tt.delay)
			}
		})
	}
}

// traceScenario is a one-second scenario replaying trace.
func traceScenario(t *testing.T, head, trace string) *scenarios.Scenario {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.csv")
	if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	return parse(t, fmt.Sprintf("duration: 1s\n%sworkload: {trace: %q}\n", head, path))
}

// TestHostProperties runs random pools on random hosts — thread start
// costs, CPU limits, split laws with slices — and checks after every event
// the model's invariants and conservation, and at the end that every task
// submitted before the traffic stopped has ended (nothing is stranded on
// the CPUs), and that the CPUs never ran more tasks than they have.
func TestHostProperties(t *testing.T) {
	randomScenarios(t, 80, 20, 0, randomHostScenario, func(c propertyCase) {
		res, err := Run(context.Background(), c.sc, Options{CheckInvariants: true, Snapshots: &strings.Builder{}})
		if err != nil {
			c.fail("%v", err)
		}
		s := res.Summary
		if s.QueuedEnd != 0 || s.RunningEnd != 0 || s.Submitted != s.Completed+s.CallerRan+s.Discarded {
			c.fail("%d queued and %d running 15 s after the traffic stopped, or conservation broken: %+v", s.QueuedEnd, s.RunningEnd, s)
		}
		if s.CPUBusyMean > Stat(s.CPUs) || s.CPUBusyMean > s.CPURunnableMean+1e-9 {
			c.fail("cpu_busy_mean %v above cpus %d or runnable %v", s.CPUBusyMean, s.CPUs, s.CPURunnableMean)
		}
	})
}

func randomHostScenario(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	pool := pick("{preset: cached}", "{preset: fixed, core: 3}", "{preset: thread-per-task}", "{preset: tomcat, core: 2, max: 6, keepAlive: 300ms}",
		"{core: 1, max: 4, keepAlive: 100ms, queue: {type: array, capacity: 3}, rejection: caller-runs}")
	host := fmt.Sprintf("{cpus: %d, threadStart: %dus}", 1+rng.IntN(4), rng.IntN(3)*500)
	svc := pick("{cpu: {dist: exponential, mean: 20ms}}", "{cpu: {dist: constant, value: 5ms}, blocking: {dist: exponential, mean: 30ms}, slices: 3}",
		"{blocking: {dist: uniform, min: 0s, max: 10ms}}", "{dist: exponential, mean: 10ms}", "{cpu: {dist: uniform, min: 0s, max: 4ms}, blocking: {dist: constant, value: 0s}, slices: 2}")
	y := fmt.Sprintf("duration: 20s\nsample: 100ms\nsnapshots: [3s]\npool: %s\nhost: %s\nworkload:\n  phases:\n    - {duration: 5s, arrivals: {process: %s}, service: %s}\n    - {arrivals: {process: poisson, rate: 0}, service: {dist: constant, value: 0s}}\n  failure: %s\n",
		pool, host, pick("poisson, rate: 60", "burst, count: 40, every: 1s", "onoff, rate: 300, on: 200ms, off: 800ms"), svc, pick("0", "0.05"))
	return y
}

package sim

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
)

func parse(t testing.TB, yaml string, sets ...string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse([]byte(yaml), "test.yaml", sets)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

type outputs struct {
	timeline, snapshots, summary string
	res                          *Result
}

func runAll(t testing.TB, sc *scenarios.Scenario, check bool) outputs {
	t.Helper()
	var tl, sn, sum bytes.Buffer
	res, err := Run(context.Background(), sc, Options{Timeline: &tl, Snapshots: &sn, CheckInvariants: check})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&sum, res.Summary); err != nil {
		t.Fatal(err)
	}
	return outputs{tl.String(), sn.String(), sum.String(), res}
}

// TestSameSeedSameBytes: the same scenario and seed give byte-identical
// outputs (CONTRACT.md §2), and another seed gives other traffic.
func TestSameSeedSameBytes(t *testing.T) {
	const y = `
name: det
duration: 10m
warmup: 1m
sample: 5s
pool: {preset: tomcat, core: 5, max: 50, keepAlive: 20s}
workload:
  phases:
    - {duration: 2m, arrivals: {process: poisson, rate: 200}, service: {dist: lognormal, mean: 100ms, cv: 2}}
    - {arrivals: {process: onoff, rate: 5, on: 10s, off: 20s}, service: {dist: gamma, mean: 30ms, cv: 0.5}}
  failure: 0.01
snapshots: [3m, 9m]
`
	a := runAll(t, parse(t, y), true)
	b := runAll(t, parse(t, y), true)
	if a.timeline != b.timeline || a.summary != b.summary || a.snapshots != b.snapshots {
		t.Fatal("two runs of the same scenario and seed differ")
	}
	c := runAll(t, parse(t, y, "seed=2"), true)
	if a.summary == c.summary {
		t.Error("seed 2 gave the same summary as seed 1")
	}
	if !strings.HasPrefix(a.timeline, "t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected") {
		t.Errorf("timeline header %q breaks the contract", strings.SplitN(a.timeline, "\n", 2)[0])
	}
	if n := strings.Count(a.timeline, "\n"); n != 1+121 {
		t.Errorf("timeline has %d lines, want header + 121 samples (0s..10m every 5s)", n)
	}
}

// TestPropertyInvariants runs random pools under random workloads and checks,
// after every event, the model's invariants (pool size = busy + idle, queue ≤
// capacity, wc ≤ max unless shrinking, run state forward) and the contract's
// conservation identity.
func TestPropertyInvariants(t *testing.T) {
	randomScenarios(t, 150, 30, 0, randomScenario, func(c propertyCase) {
		var maxSeen int
		res, err := Run(context.Background(), c.sc, Options{CheckInvariants: true, Observe: func(now time.Duration, p model.Executor) {
			if p.QueueLen() > 0 && p.Config().Queue == model.Synchronous {
				panic("a SynchronousQueue holds a task")
			}
			if p.PoolSize() > maxSeen {
				maxSeen = p.PoolSize()
			}
		}})
		if err != nil {
			c.fail("%v", err)
		}
		s := res.Summary
		if s.Submitted != s.Completed+s.CallerRan+s.Discarded+s.QueuedEnd+s.RunningEnd {
			c.fail("conservation broken in the summary: %+v", s)
		}
		if s.LargestPoolSize != maxSeen {
			c.fail("largest_pool_size %d but %d workers were seen", s.LargestPoolSize, maxSeen)
		}
	})
}

func randomScenario(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	core := rng.IntN(5)
	max := core + 1 + rng.IntN(6)
	if core == 0 && rng.IntN(2) == 0 {
		max = 1 + rng.IntN(3)
	}
	var pool string
	switch rng.IntN(4) {
	case 0:
		pool = fmt.Sprintf("{preset: tomcat, core: %d, max: %d, keepAlive: %dms, queue: {type: tomcat, capacity: %s}}",
			core, max, 1+rng.IntN(500), pick("unbounded", "1", "3", "10"))
	default:
		q := pick("linked", "array", "synchronous", "priority")
		capacity := ""
		switch q {
		case "linked":
			capacity = ", capacity: " + pick("unbounded", "1", "2", "5")
		case "array":
			capacity = ", capacity: " + pick("1", "2", "5")
		}
		fair := ""
		if q == "synchronous" || q == "array" {
			fair = ", fair: " + pick("true", "false")
		}
		ka := rng.IntN(400)
		acto := ka > 0 && rng.IntN(3) == 0
		pool = fmt.Sprintf("{core: %d, max: %d, keepAlive: %dms, allowCoreThreadTimeOut: %v, prestart: %v, queue: {type: %s%s%s}, rejection: %s}",
			core, max, ka, acto, rng.IntN(2) == 0, q, capacity, fair, pick("abort", "caller-runs", "discard", "discard-oldest"))
	}
	var events []string
	at := 0
	for k := rng.IntN(4); k > 0; k-- {
		at += rng.IntN(3000)
		newMax := max + rng.IntN(4) - 1
		newCore := rng.IntN(newMax + 1)
		if newMax < 1 {
			newMax, newCore = 1, 0
		}
		events = append(events, fmt.Sprintf("  - {at: %dms, set: {core: %d, max: %d, keepAlive: %dms}}", at, newCore, newMax, 1+rng.IntN(300)))
	}
	if rng.IntN(3) == 0 {
		at += rng.IntN(3000)
		events = append(events, fmt.Sprintf("  - {at: %dms, shutdown: %s}", at, pick("graceful", "now")))
	}
	ev := ""
	if len(events) > 0 {
		ev = "events:\n" + strings.Join(events, "\n") + "\n"
	}
	svc := pick("{dist: exponential, mean: 50ms}", "{dist: constant, value: 30ms}", "{dist: lognormal, mean: 80ms, cv: 2}",
		"{dist: uniform, min: 0s, max: 100ms}")
	arr := pick("{process: poisson, rate: 40}", "{process: constant, rate: 25}", "{process: onoff, rate: 200, on: 300ms, off: 700ms}",
		"{process: burst, count: 30, every: 1s}")
	return fmt.Sprintf("duration: 12s\nsample: 250ms\nsnapshots: [5s]\npool: %s\nworkload:\n  arrivals: %s\n  service: %s\n  failure: %v\n%s",
		pool, arr, svc, pick("0", "0.05"), ev)
}

// TestMetamorphicFixedPreset: the fixed preset equals its explicit config,
// and --set equals editing the file (STYLE.md, relations that must hold).
func TestMetamorphicFixedPreset(t *testing.T) {
	const work = "workload: {arrivals: {process: poisson, rate: 90}, service: {dist: exponential, mean: 100ms}}\nduration: 5m\nsample: 10s\n"
	a := runAll(t, parse(t, "pool: {preset: fixed, core: 10}\n"+work), false)
	b := runAll(t, parse(t, "pool: {core: 10, max: 10, keepAlive: 0s, queue: {type: linked, capacity: unbounded}, rejection: abort}\n"+work), false)
	if a.timeline != b.timeline {
		t.Error("preset fixed and its explicit configuration give different timelines")
	}
	c := runAll(t, parse(t, "pool: {preset: fixed, core: 4}\n"+work, "pool.core=10"), false)
	if a.timeline != c.timeline {
		t.Error("--set pool.core=10 differs from writing core: 10")
	}
}

// TestTimeScaling: multiplying every time of a deterministic scenario by k
// multiplies every output time by k and leaves the counts alone.
func TestTimeScaling(t *testing.T) {
	mk := func(k int) string {
		return fmt.Sprintf(`duration: %dms
sample: %dms
pool: {core: 2, max: 4, keepAlive: %dms, queue: {type: array, capacity: 2}}
workload:
  phases:
    - {duration: %dms, arrivals: {process: constant, rate: %v}, service: {dist: constant, value: %dms}}
    - {arrivals: {process: constant, rate: %v}, service: {dist: constant, value: %dms}}
`, 6000*k, 100*k, 500*k, 2000*k, 20.0/float64(k), 350*k, 2.0/float64(k), 10*k)
	}
	a := runAll(t, parse(t, mk(1)), true).res.Summary
	b := runAll(t, parse(t, mk(3)), true).res.Summary
	if a.Submitted != b.Submitted || a.Completed != b.Completed || a.Rejected != b.Rejected || a.LargestPoolSize != b.LargestPoolSize ||
		a.ThreadsExited != b.ThreadsExited {
		t.Errorf("counts changed under time scaling:\n%+v\n%+v", a, b)
	}
	// Time averages and times agree up to float rounding of the scaled sums.
	const rel = 1e-9
	close := func(x, y float64) bool { return math.Abs(x-y) <= rel*math.Max(math.Abs(x), math.Abs(y)) }
	for _, c := range []struct {
		name string
		a, b float64
	}{
		{"pool_size_mean", float64(a.PoolSizeMean), float64(b.PoolSizeMean)},
		{"queue_len_mean", float64(a.QueueLenMean), float64(b.QueueLenMean)},
		{"wait_mean_s×3", 3 * float64(a.WaitMean), float64(b.WaitMean)},
		{"wait_max_s×3", 3 * float64(a.WaitMax), float64(b.WaitMax)},
		{"response_mean_s×3", 3 * float64(a.ResponseMean), float64(b.ResponseMean)},
	} {
		if !close(c.a, c.b) {
			t.Errorf("%s: %v vs %v under time scaling by 3", c.name, c.a, c.b)
		}
	}
}

// propertyCase is one generated scenario of a property test.
type propertyCase struct {
	sc   *scenarios.Scenario
	yaml string
	// fail ends the test with the message, the seed and case number, the
	// scenario and the command that reproduces it.
	fail func(format string, args ...any)
}

// randomScenarios runs check on n scenarios made by gen (short of them under
// -short), seeded from the clock or POOLSIM_PROPERTY_SEED. The model's
// invariant checks panic; a panic inside check is reported like a failure.
func randomScenarios(t *testing.T, n, short int, stream uint64, gen func(*rand.Rand) string, check func(c propertyCase)) {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("POOLSIM_PROPERTY_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	if testing.Short() {
		n = short
	}
	rng := rand.New(rand.NewPCG(seed, stream))
	for i := 0; i < n; i++ {
		y := gen(rng)
		sc, err := scenarios.Parse([]byte(y), "random.yaml", nil)
		if err != nil {
			t.Fatalf("generated an invalid scenario (seed %d, case %d): %v\n%s", seed, i, err, y)
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d case %d: %s\nscenario:\n%s\nreproduce: POOLSIM_PROPERTY_SEED=%d go test ./sim -run '^%s$'",
				seed, i, fmt.Sprintf(format, args...), y, seed, t.Name())
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					fail("invariant broken: %v", r)
				}
			}()
			check(propertyCase{sc: sc, yaml: y, fail: fail})
		}()
	}
}

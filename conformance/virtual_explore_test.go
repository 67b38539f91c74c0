package conformance

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestVirtualExplore runs each virtual case POOLSIM_VT_EXPLORE times on JDK 25 and logs the
// per-task times, the spread across runs and the timing figures: how the tolerances of
// TestVirtualThreadsMatchJDK25 were measured. It runs only when POOLSIM_VT_EXPLORE is set.
func TestVirtualExplore(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("POOLSIM_VT_EXPLORE"))
	if n < 1 {
		t.Skip("set POOLSIM_VT_EXPLORE=N to run each virtual case N times and log the spread")
	}
	r := RequireJDK25(t)
	// quiet: the residuals (real − simulated) of the runs whose measured stalls (vtStall)
	// stayed below quietStall: what the JVM adds by itself (vtOverhead).
	const quietStall = 5 * time.Millisecond
	quietN, quietLo, quietHi := 0, time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	var firstMount, blockOver []time.Duration
	defer func() {
		t.Logf("%d runs with every stall below %v: real − simulated from %.2f to %.2f ms", quietN, quietStall, ms64(quietLo), ms64(quietHi))
		for _, q := range []struct {
			what string
			xs   []time.Duration
		}{{"first mount after execute, a carrier free", firstMount}, {"block overrun (wake-up, remount)", blockOver}} {
			slices.Sort(q.xs)
			if n := len(q.xs); n > 0 {
				t.Logf("%s, %d samples: p50 %.2f p90 %.2f p99 %.2f max %.2f ms", q.what, n,
					ms64(q.xs[n/2]), ms64(q.xs[n*9/10]), ms64(q.xs[n*99/100]), ms64(q.xs[n-1]))
			}
		}
	}()
	for _, c := range virtualCases {
		start := time.Now()
		rs, err := r.RunVirtualN(context.Background(), c.script, n)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d runs in %v", c.name, n, time.Since(start).Round(time.Millisecond))
		for i := range c.script.Tasks {
			var line string
			lo, hi := [2]time.Duration{time.Hour, time.Hour}, [2]time.Duration{}
			for _, res := range rs {
				o := res.Tasks[i]
				line += fmt.Sprintf(" %6.1f–%6.1f@%d", ms64(o.Start), ms64(o.End), o.Carrier)
				lo[0], hi[0] = min(lo[0], o.Start), max(hi[0], o.Start)
				lo[1], hi[1] = min(lo[1], o.End), max(hi[1], o.End)
			}
			t.Logf("  task %d:%s  spread start %.1f end %.1f ms", i+1, line, ms64(hi[0]-lo[0]), ms64(hi[1]-lo[1]))
		}
		for k, res := range rs {
			m, err := SimulateVirtual(context.Background(), c.script, vtSubmits(res))
			if err != nil {
				t.Fatal(err)
			}
			var worst, least vtTiming
			for i, d := range vtTimings(res, m) {
				if i == 0 || d.late() > worst.late() {
					worst = d
				}
				if i == 0 || d.late() < least.late() {
					least = d
				}
			}
			// The JVM's own lateness: a VT's first mount after its execute, and a block's
			// overrun (a sleep's wake-up, plus the remount for one that unmounted).
			for i, o := range res.Tasks {
				if m.Tasks[i].Start == m.Tasks[i].Submit { // a carrier was free
					firstMount = append(firstMount, o.Start-o.Submit)
				}
				for j, st := range o.Steps {
					if in := c.script.Tasks[i].Steps[j]; !in.Compute {
						blockOver = append(blockOver, st.End-st.Begin-in.D)
					}
				}
			}
			if vtStall(res) < quietStall {
				quietN++
				quietLo, quietHi = min(quietLo, least.late()), max(quietHi, worst.late())
			}
			t.Logf("  run %d: carriers %d (max index %d), submit late %.1f ms, canary stall %.1f ms, compute overrun %.1f ms, unfinished %d; real − simulated %.2f … %.2f ms (worst %s)",
				k+1, res.Carriers, res.MaxCarrier, ms64(res.SubmitLateMax), ms64(res.CanaryStallMax), ms64(res.ComputeOverrunMax), res.Unfinished,
				ms64(least.late()), ms64(worst.late()), worst)
		}
	}
}

func ms64(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

package conformance

import (
	"context"
	"fmt"
	"os"
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
			t.Logf("  run %d: carriers %d (max index %d), submit late %.1f ms, canary stall %.1f ms, unfinished %d",
				k+1, res.Carriers, res.MaxCarrier, ms64(res.SubmitLateMax), ms64(res.CanaryStallMax), res.Unfinished)
		}
	}
}

func ms64(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

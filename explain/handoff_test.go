package explain

import (
	"strings"
	"testing"
)

// TestExplainHandOffTiming: a direct hand-off pool (core 2, max 4) at
// 1,000 tasks/s of 1 ms gets a what-if with a real machine's hand-off
// timing, which rejects more (matched workers take nothing while they
// wake, R119); run with that timing, the explanation says what it did.
func TestExplainHandOffTiming(t *testing.T) {
	const y = `duration: 30s
sample: 1s
pool: {core: 2, max: 4, queue: {type: synchronous}}
workload:
  arrivals: {process: poisson, rate: 1000}
  service: {dist: constant, value: 1ms}
`
	e := explainYAML(t, y)
	w := whatIf(e, "a real machine's hand-off timing")
	if w == nil || w.Error != "" {
		t.Fatalf("no hand-off timing what-if: %+v\n%s", w, e.Text())
	}
	if w.Alt.Rejected <= e.Base.Rejected {
		t.Errorf("with the hand-off timing %d rejections, ideal %d: want more", w.Alt.Rejected, e.Base.Rejected)
	}
	timed := explainYAML(t, y+"host: {wakeup: calibrated}\n")
	f := finding(timed, "Hand-off timing")
	if !strings.Contains(f, "SynchronousQueue matched") || !strings.Contains(f, "rejections came while a worker was idle") {
		t.Errorf("hand-off timing finding: %q", f)
	}
	if whatIf(timed, "a real machine's hand-off timing") != nil {
		t.Error("the what-if offered to a run that has the timing already")
	}
}

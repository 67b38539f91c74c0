package explain

import (
	"fmt"

	"github.com/poolsim/poolsim/model"
)

// This file explains the hand-off timing of a real machine (host.wakeup,
// spec §12): what it did in a run that models it, and, in one that does
// not, a what-if that adds it where it matters (R123).

// handOffTiming adds the finding on the hand-off timing, for a run with
// host.wakeup.
func (e *Explanation) handOffTiming() {
	w := e.Result.Summary.Wakeup
	if w == nil {
		return
	}
	text := fmt.Sprintf("a parked worker takes %s on average to wake (%s). ", dur(float64(w.LatencyMean)), map[bool]string{true: "calibrated on a real machine", false: "as given"}[w.Calibrated])
	if w.Signals > 0 {
		text += fmt.Sprintf("The queue signalled %d waiters; %d of them (%s) woke to find the task already taken by a worker returning from its previous task, and waited again at the back of the line with what was left of their keepAlive (R113). ",
			w.Signals, w.Missed, pct(float64(w.Missed)/float64(w.Signals)))
		if w.Missed > 0 && e.Config.HandOff() == model.FIFO {
			text += "Each such loss keeps the longest-idle workers idle longer, so more of them reach keepAlive than under a zero-latency hand-off: the pool shrinks below the strict-FIFO plateau (R78) and goes on shrinking slowly. "
		}
	}
	if w.Handoffs > 0 {
		text += fmt.Sprintf("A SynchronousQueue matched %d tasks to parked workers, each of which started its task only once awake; until then it could take no other task, so an offer in that window found no taker and the pool grew or rejected (R119). ", w.Handoffs)
	}
	if w.IdleRejections > 0 {
		text += fmt.Sprintf("%d rejections came while a worker was idle or waking — what a dashboard shows as \"rejected while threads were idle\". ", w.IdleRejections)
	}
	if w.Pauses > 0 {
		text += fmt.Sprintf("%d stop-the-world pauses (%ss in all) held back the arrivals, which then came together. ", w.Pauses, f2(float64(w.Paused)))
	}
	e.add("Hand-off timing", "%s", text)
}

// handOffWhatIf proposes re-simulating a run without host.wakeup with a
// real machine's hand-off timing, where it changes the answer (R123): a
// FIFO pool mostly idle above core at a rate of tens of tasks per second,
// or a SynchronousQueue pool that grew or rejected at hundreds per second.
func (e *Explanation) handOffWhatIf(add func(name, why string, sets ...string)) {
	s, c := e.Result.Summary, e.Config
	if s.Wakeup != nil || c.Flavor == model.Jetty || c.Flavor == model.Scheduled || c.Flavor == model.ThreadPerTask || c.Flavor == model.Virtual {
		return
	}
	lambda := float64(s.ArrivalRate)
	fifoPlateau := c.HandOff() == model.FIFO && c.Queue != model.Synchronous && e.Steady.IdleTimed >= max(3, e.Steady.Busy) && lambda >= 20
	direct := c.Queue == model.Synchronous && (s.Rejected > 0 || s.LargestPoolSize > c.Core) && lambda >= 100
	if fifoPlateau || direct {
		add("a real machine's hand-off timing", "the same configuration with the wake-up latency measured on a real JVM: signalled workers lose tasks to returning ones and time out sooner, matched ones cannot take another task while they wake (R113, R119)",
			"host.wakeup=calibrated")
	}
}

package explain

import (
	"fmt"
	"math"
	"time"

	"github.com/poolsim/poolsim/model"
)

// hidden gathers what the gauges cannot show (R179) from the replications.
func (md *MetricsDiagnosis) hidden(runs []*simRun) {
	h := &md.Hidden
	var rej, p50, p99, wmax, ps, pb, pq, ss, sb, sq, bursts, longest []float64
	for _, r := range runs {
		s := r.summary
		rej = append(rej, float64(s.Rejected))
		p50 = append(p50, float64(s.WaitP50))
		p99 = append(p99, float64(s.WaitP99))
		wmax = append(wmax, float64(s.WaitMax))
		ps = append(ps, r.peak(r.size, 0, md.window()))
		pb = append(pb, r.peak(r.busy, 0, md.window()))
		pq = append(pq, r.peak(r.queue, 0, md.window()))
		seenSize, seenBusy, seenQueue := math.Inf(-1), math.Inf(-1), math.Inf(-1)
		n := 0.0
		for k, t := range md.Obs.T {
			i := r.at(t)
			seenSize = math.Max(seenSize, float64(r.size[i]))
			seenBusy = math.Max(seenBusy, float64(r.busy[i]))
			seenQueue = math.Max(seenQueue, float64(r.queue[i]))
			if k+1 == len(md.Obs.T) {
				continue
			}
			j := r.at(md.Obs.T[k+1])
			if r.peak(r.size, t, md.Obs.T[k+1]) > float64(max(r.size[i], r.size[j])) ||
				r.peak(r.queue, t, md.Obs.T[k+1]) > float64(max(r.queue[i], r.queue[j])) {
				n++
			}
		}
		ss, sb, sq = append(ss, seenSize), append(sb, seenBusy), append(sq, seenQueue)
		bursts = append(bursts, n)
		longest = append(longest, r.longestAbove(r.busy, seenBusy).Seconds())
	}
	h.Rejected, h.WaitP50, h.WaitP99, h.WaitMax = spreadOf(rej), spreadOf(p50), spreadOf(p99), spreadOf(wmax)
	h.PeakSize, h.PeakBusy, h.PeakQueue = spreadOf(ps), spreadOf(pb), spreadOf(pq)
	h.ScrapedSize, h.ScrapedBusy, h.ScrapedQueue = spreadOf(ss), spreadOf(sb), spreadOf(sq)
	h.Bursts, h.LongestBurst = spreadOf(bursts), spreadOf(longest)
	if tw := md.Metrics.TimedWaiting; tw != nil && len(tw.Points) > 0 {
		h.TimedWaitingUpperBound = tw.Points[len(tw.Points)-1].V
		h.TimedWaitingUpperBoundFrom = tw.ID()
	}
}

// longestAbove is the longest stretch of samples with xs above level.
func (r *simRun) longestAbove(xs []int, level float64) time.Duration {
	var best time.Duration
	start := -1
	for i, x := range xs {
		switch {
		case float64(x) > level && start < 0:
			start = i
		case float64(x) <= level && start >= 0:
			best = max(best, r.t[i]-r.t[start])
			start = -1
		}
	}
	if start >= 0 {
		best = max(best, r.t[len(r.t)-1]-r.t[start])
	}
	return best
}

// artefactIntervals are the scrape intervals the artefact section shows:
// the file's own, and the common 15 s and 60 s (R178).
func (md *MetricsDiagnosis) artefactIntervals() []time.Duration {
	out := []time.Duration{md.Obs.Interval}
	for _, d := range []time.Duration{15 * time.Second, time.Minute} {
		if d > md.Obs.Interval && d < md.window() {
			out = append(out, d)
		}
	}
	return out
}

// artefacts simulates what scrapes at each interval would have shown.
func (md *MetricsDiagnosis) artefacts(runs []*simRun) {
	for _, every := range md.artefactIntervals() {
		a := Artefact{Every: every}
		for _, r := range runs {
			var seen [3]float64
			for t := time.Duration(0); t <= md.window(); t += every {
				i := r.at(t)
				seen[0] = math.Max(seen[0], float64(r.size[i]))
				seen[1] = math.Max(seen[1], float64(r.busy[i]))
				seen[2] = math.Max(seen[2], float64(r.queue[i]))
			}
			n := float64(len(runs))
			a.SeenSize += seen[0] / n
			a.SeenBusy += seen[1] / n
			a.SeenQueue += seen[2] / n
			a.TrueSize += r.peak(r.size, 0, md.window()) / n
			a.TrueBusy += r.peak(r.busy, 0, md.window()) / n
			a.TrueQueue += r.peak(r.queue, 0, md.window()) / n
		}
		a.MissedSize, a.MissedBusy, a.Missed = a.TrueSize-a.SeenSize >= 0.5, a.TrueBusy-a.SeenBusy >= 0.5, a.TrueQueue-a.SeenQueue >= 0.5
		md.Artefacts = append(md.Artefacts, a)
	}
}

// verdict says whether the pool behaves as its configuration and the
// inferred traffic make it behave.
func (md *MetricsDiagnosis) verdict() {
	hand := md.Pool.Config.HandOff()
	share := fmt.Sprintf("the simulated pool size agrees with the observed one at %d of %d scrapes (within 2 SD + 0.5)", md.Agree, md.Compared)
	plateau := fmt.Sprintf("at this traffic the %v hand-off keeps %s ± %s workers at the end of the window (%d runs × %d scrapes, 2 SD), observed %s",
		hand, num(md.End.Mean), num(2*md.End.SD), md.Opt.Replications, md.EndScrapes, num(md.EndObserved))
	switch {
	case len(md.Issues) > 0:
		md.Verdict = "the metrics do NOT fit this configuration: " + md.Issues[0]
	case md.End.Within(md.EndObserved) && float64(md.Agree) >= 0.8*float64(md.Compared):
		md.Verdict, md.AsDesigned = "behaving as designed: "+plateau+"; "+share, true
	case md.End.Within(md.EndObserved):
		md.Verdict, md.AsDesigned = "behaving as designed at the end of the window: "+plateau+"; but only "+share+": earlier, the pool did not follow this traffic (the traffic changed faster than the scrapes show, or the configuration changed)", true
	default:
		md.Verdict = "NOT as simulated: " + plateau + "; " + share + ": check keepAlive, core, max and the queue, or the service time (--service)"
	}
	if hand == model.FIFO && md.AsDesigned && md.End.Mean > float64(md.Pool.Config.Core)+1 {
		md.Verdict += fmt.Sprintf(". Idle workers above core stay alive because FIFO hand-off deals tasks round-robin, each within keepAlive (%v) of its last (R54, R78); it is not a leak", md.Pool.Config.KeepAlive)
	}
}

// num prints a count or a mean with at most one decimal.
func num(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return trim(fmt.Sprintf("%.1f", x))
}

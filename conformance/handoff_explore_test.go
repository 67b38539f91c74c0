package conformance

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// burstThenPoisson is a burst of n tasks of burstSvc at 0, then Poisson arrivals at rate
// from `from` until `until`, each a task of svc.
func burstThenPoisson(n int, burstSvc time.Duration, rate float64, svc, from, until time.Duration, seed uint64) []HandOffTask {
	var ts []HandOffTask
	for i := 0; i < n; i++ {
		ts = append(ts, HandOffTask{At: 0, Service: burstSvc})
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for t := from; ; {
		t += time.Duration(r.ExpFloat64() / rate * 1e9)
		if t >= until {
			break
		}
		ts = append(ts, HandOffTask{At: t.Truncate(time.Microsecond), Service: svc})
	}
	return ts
}

// plateau is the mean pool size over the samples in [from, to].
func (r *HandOffResult) plateau(from, to time.Duration) float64 {
	sum, n := 0.0, 0
	for _, s := range r.Samples {
		if s.T >= from && s.T <= to {
			sum += float64(s.PoolSize)
			n++
		}
	}
	return sum / float64(max(n, 1))
}

// wakeDelays are start − submit of the tasks submitted after from whose worker was idle at
// their submission (it had finished its previous task): the hand-off's latency as run.
func (r *HandOffResult) wakeDelays(from time.Duration) []float64 {
	var out []float64
	r.ranTasks(func(_ int, t HandOffOutcome, prevEnd time.Duration, hadPrev bool) {
		if hadPrev && t.Submit >= from && prevEnd <= t.Submit {
			out = append(out, float64(t.Start-t.Submit)/1e3)
		}
	})
	slices.Sort(out)
	return out
}

func q(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return xs[int(p*float64(len(xs)-1))]
}

// barged is the share of the tasks submitted after from whose worker was still running its
// previous task when they were submitted.
func (r *HandOffResult) barged(from time.Duration) float64 {
	n, b := 0, 0
	r.ranTasks(func(_ int, t HandOffOutcome, prevEnd time.Duration, hadPrev bool) {
		if hadPrev && t.Submit >= from {
			n++
			if prevEnd > t.Submit {
				b++
			}
		}
	})
	return float64(b) / float64(max(n, 1))
}

func TestHandOffExploreJDK(t *testing.T) {
	if os.Getenv("POOLSIM_HANDOFF_EXPLORE") == "" {
		t.Skip("exploration: POOLSIM_HANDOFF_EXPLORE=1")
	}
	for _, c := range handOffCases() {
		if strings.HasPrefix(c.name, "jdk") {
			t.Run(c.name, func(t *testing.T) { runHandOffCase(t, c) })
		}
	}
}

func TestHandOffExplore(t *testing.T) {
	if os.Getenv("POOLSIM_HANDOFF_EXPLORE") == "" {
		t.Skip("exploration: POOLSIM_HANDOFF_EXPLORE=1")
	}
	ctx := context.Background()
	for _, rate := range []float64{100, 400} {
		s := HandOffScript{
			Pool:        Pool{Kind: KindTomcat, Core: 10, Max: 300, KeepAliveMs: 2000},
			Tasks:       burstThenPoisson(300, 500*time.Millisecond, rate, 2*time.Millisecond, time.Second, 21*time.Second, 7),
			SampleEvery: 250 * time.Millisecond, End: 21 * time.Second,
		}
		real, err := Runner{}.RunHandOff(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		subs := make([]time.Duration, len(real.Tasks))
		for i, x := range real.Tasks {
			subs[i] = x.Submit
		}
		ideal, err := SimulateHandOff(ctx, s, subs, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		w := scenarios.CalibratedWakeup()
		timed, err := SimulateHandOff(ctx, s, subs, &w, 1)
		if err != nil {
			t.Fatal(err)
		}
		fit := real.MeasuredWakeup(s, 2*time.Second)
		fitted, err := SimulateHandOff(ctx, s, subs, &fit, 1)
		if err != nil {
			t.Fatal(err)
		}
		scaled := func(k float64) *HandOffResult {
			f := fit
			l := f.Latency
			l.Points = append([]workloads.QuantilePoint(nil), l.Points...)
			for i := range l.Points {
				l.Points[i].Value = time.Duration(float64(l.Points[i].Value) * k)
			}
			f.Latency = l
			r, err := SimulateHandOff(ctx, s, subs, &f, 1)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		for _, r := range []struct {
			name string
			r    *HandOffResult
		}{{"real", real}, {"ideal", ideal}, {"timed", timed}, {"fit", fitted}, {"fit13", scaled(1.3)}, {"fit16", scaled(1.6)}, {"fit2", scaled(2)}} {
			d := r.r.wakeDelays(2 * time.Second)
			t.Logf("%v/s %-5s: pool at 5s %.1f, 10s %.1f, 15-21s %.1f; barged %.2f%%; start-submit us p10 %.0f p50 %.0f p90 %.0f p99 %.0f", rate, r.name,
				r.r.plateau(5*time.Second, 5*time.Second), r.r.plateau(10*time.Second, 10*time.Second), r.r.plateau(15*time.Second, 21*time.Second),
				100*r.r.barged(2*time.Second), q(d, 0.1), q(d, 0.5), q(d, 0.9), q(d, 0.99))
		}
	}
}

func TestHandOffExploreSQ(t *testing.T) {
	if os.Getenv("POOLSIM_HANDOFF_EXPLORE") == "" {
		t.Skip("exploration: POOLSIM_HANDOFF_EXPLORE=1")
	}
	ctx := context.Background()
	poisson := func(rate float64, svc, until time.Duration) []HandOffTask {
		return burstThenPoisson(0, 0, rate, svc, 200*time.Millisecond, until, 11)
	}
	cases := []struct {
		name string
		s    HandOffScript
	}{
		{"cached 1000/s x 1ms", HandOffScript{Pool: Pool{Kind: KindJDK, Core: 0, Max: Unbounded, KeepAliveMs: 60000, Queue: QueueSynchronous},
			Tasks: poisson(1000, time.Millisecond, 5*time.Second), SampleEvery: 250 * time.Millisecond, End: 5 * time.Second}},
		{"bounded 2/4 1000/s x 1ms", HandOffScript{Pool: Pool{Kind: KindJDK, Core: 2, Max: 4, KeepAliveMs: 60000, Queue: QueueSynchronous},
			Tasks: poisson(1000, time.Millisecond, 5*time.Second), SampleEvery: 250 * time.Millisecond, End: 5 * time.Second}},
	}
	for _, c := range cases {
		real, err := Runner{}.RunHandOff(ctx, c.s)
		if err != nil {
			t.Fatal(err)
		}
		subs := make([]time.Duration, len(real.Tasks))
		for i, x := range real.Tasks {
			subs[i] = x.Submit
		}
		fit := real.MeasuredWakeup(c.s, 200*time.Millisecond)
		cal := scenarios.CalibratedWakeup()
		for _, v := range []struct {
			name string
			w    *scenarios.Wakeup
		}{{"real", nil}, {"ideal", nil}, {"calibrated", &cal}, {"fit", &fit}} {
			r := real
			if v.name != "real" {
				if r, err = SimulateHandOff(ctx, c.s, subs, v.w, 1); err != nil {
					t.Fatal(err)
				}
			}
			rej := 0
			for _, x := range r.Tasks {
				if x.Rejected {
					rej++
				}
			}
			d := r.wakeDelays(200 * time.Millisecond)
			t.Logf("%s %-10s: created %d, largest %d, rejected %d (%d while idle); start-submit p50 %.0f p90 %.0f p99 %.0f", c.name, v.name,
				len(r.Created), r.Samples[len(r.Samples)-1].Largest, rej, r.IdleRejections, q(d, 0.5), q(d, 0.9), q(d, 0.99))
		}
	}
}

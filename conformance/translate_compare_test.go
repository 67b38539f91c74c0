package conformance

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/model"
)

// TestSampleTimes checks that SampleTimes lists the instants the harness samples, as
// Script.java keeps them: sorted, without duplicates.
func TestSampleTimes(t *testing.T) {
	cases := []struct {
		name string
		s    Samples
		want []int64
	}{
		// A series alone, until inclusive.
		{"series", Samples{EveryMs: 50, FromMs: 25, UntilMs: 125}, []int64{25, 75, 125}},
		// A list alone, given out of order and with a repeat.
		{"list", Samples{AtMs: []int64{300, 100, 300}}, []int64{100, 300}},
		// Both, overlapping at 75.
		{"both", Samples{EveryMs: 50, FromMs: 25, UntilMs: 75, AtMs: []int64{75, 10}}, []int64{10, 25, 75}},
		// Neither.
		{"none", Samples{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := (Script{Samples: c.s}).SampleTimes(); !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestScenarioTranslation checks the pool and directives a Script becomes in the simulator.
func TestScenarioTranslation(t *testing.T) {
	cases := []struct {
		name string
		pool Pool
		sets []Set
		want func(t *testing.T, cfg model.Config)
		err  string // a substring of the error; "" for none
	}{
		// The harness's defaults: a linked, unbounded queue and AbortPolicy.
		{"jdk defaults", Pool{Kind: KindJDK, Core: 1, Max: 2, KeepAliveMs: 100}, nil, func(t *testing.T, c model.Config) {
			if c.Flavor != model.JDK || c.Queue != model.Linked || c.QueueCapacity != model.Unbounded || c.Rejection != model.AbortPolicy {
				t.Errorf("config %+v", c)
			}
		}, ""},
		// Tomcat: a TaskQueue, prestarted (R65), capacity kept.
		{"tomcat", Pool{Kind: KindTomcat, Core: 2, Max: 5, KeepAliveMs: 100, Capacity: 7, Rejection: RejectCallerRuns}, nil, func(t *testing.T, c model.Config) {
			if c.Flavor != model.Tomcat || c.Queue != model.TaskQueue || c.QueueCapacity != 7 || !c.Prestart || c.Rejection != model.CallerRunsPolicy {
				t.Errorf("config %+v", c)
			}
		}, ""},
		// A fair synchronous queue hands off FIFO (R50).
		{"fair synchronous", Pool{Kind: KindJDK, Core: 0, Max: 3, KeepAliveMs: 100, Queue: QueueSynchronous, Fair: true}, nil, func(t *testing.T, c model.Config) {
			if c.Queue != model.Synchronous || c.HandOff() != model.FIFO {
				t.Errorf("config %+v, hand-off %v", c, c.HandOff())
			}
		}, ""},
		// Jetty: QueuedThreadPool(max, min, idleTimeout) with its unbounded BlockingArrayQueue (R100).
		{"jetty", Pool{Kind: KindJetty, Core: 1, Max: 2, KeepAliveMs: 500}, nil, func(t *testing.T, c model.Config) {
			if c.Flavor != model.Jetty || c.Queue != model.BlockingArrayQueue || c.QueueCapacity != model.Unbounded || c.Core != 1 || c.Max != 2 || c.KeepAlive != 500*time.Millisecond {
				t.Errorf("config %+v", c)
			}
		}, ""},
		// Jetty has its own queue: no other.
		{"jetty with a queue", Pool{Kind: KindJetty, Core: 1, Max: 2, Queue: QueueLinked}, nil, nil, "BlockingArrayQueue"},
		// ScheduledThreadPoolExecutor(core): max, keepAlive 10 ms and the DelayedWorkQueue fixed (R88).
		{"scheduled", Pool{Kind: KindScheduled, Core: 2, DropDelayed: true}, nil, func(t *testing.T, c model.Config) {
			if c.Flavor != model.Scheduled || c.Queue != model.DelayedWorkQueue || c.Max != model.Unbounded || c.KeepAlive != 10*time.Millisecond || !c.DropDelayedOnShutdown || c.ContinuePeriodicAfterShutdown {
				t.Errorf("config %+v", c)
			}
		}, ""},
		// Its constructor takes no max.
		{"scheduled with max", Pool{Kind: KindScheduled, Core: 2, Max: 4}, nil, nil, "fixes max"},
		// setRemoveOnCancelPolicy(true) (R97), a ScheduledThreadPoolExecutor policy only.
		{"removeOnCancel", Pool{Kind: KindScheduled, Core: 1, RemoveOnCancel: true}, nil, func(t *testing.T, c model.Config) {
			if !c.RemoveOnCancel {
				t.Errorf("config %+v", c)
			}
		}, ""},
		{"removeOnCancel on jdk", Pool{Kind: KindJDK, Core: 1, Max: 2, RemoveOnCancel: true}, nil, nil, "ScheduledThreadPoolExecutor policies"},
		// An array queue needs a capacity, as ArrayBlockingQueue's constructor does.
		{"array without capacity", Pool{Kind: KindJDK, Core: 1, Max: 2, Queue: QueueArray}, nil, nil, "capacity"},
		// The constructor's own checks (R2) come from the model.
		{"max below core", Pool{Kind: KindJDK, Core: 3, Max: 2}, nil, nil, "max"},
		// A set key the harness does not know.
		{"bad set key", Pool{Kind: KindJDK, Core: 1, Max: 2}, []Set{{AtMs: 5, Changes: []Change{{Key: "cores", Value: "2"}}}}, nil, "unknown key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := Script{Pool: c.pool, Sets: c.sets, EndMs: 100}.Scenario()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one mentioning %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Duration != 100*time.Millisecond || sc.Sample != time.Millisecond {
				t.Errorf("duration %v sample %v", sc.Duration, sc.Sample)
			}
			c.want(t, sc.Pool.Config)
		})
	}
}

// TestScenarioCancels: a cancel directive becomes its schedule's cancelAt (R97); one naming no
// schedule, a second cancel of one schedule, or one before the schedule call, is refused.
func TestScenarioCancels(t *testing.T) {
	base := Script{Pool: Pool{Kind: KindScheduled, Core: 1}, Schedules: []Schedule{once(1, 10, 50, 5), fixedRate(2, 20, 0, 30, 5)}, EndMs: 100}
	s := base
	s.Cancels = []Cancel{{AtMs: 40, ID: 2}}
	sc, err := s.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	if j := sc.Periodic[1]; !j.Cancel || j.CancelAt != 40*time.Millisecond || sc.Periodic[0].Cancel {
		t.Errorf("jobs %+v", sc.Periodic)
	}
	for _, c := range []struct {
		cancels []Cancel
		err     string
	}{
		{[]Cancel{{AtMs: 40, ID: 3}}, "no schedule directive has id 3"},
		{[]Cancel{{AtMs: 40, ID: 1}, {AtMs: 50, ID: 1}}, "cancelled twice"},
		{[]Cancel{{AtMs: 5, ID: 1}}, "before schedule 1's call"},
	} {
		s := base
		s.Cancels = c.cancels
		if _, err := s.Scenario(); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: error %v, want one mentioning %q", c.cancels, err, c.err)
		}
	}
}

// TestScenarioSetsInHarnessOrder checks that each key of a set becomes its own runtime event,
// in the order the harness calls the setters, with the line String writes it on.
func TestScenarioSetsInHarnessOrder(t *testing.T) {
	s := Script{
		Pool:      Pool{Kind: KindJDK, Core: 1, Max: 2, KeepAliveMs: 100},
		Submits:   []Submit{task(1, 5, 1)},
		Sets:      []Set{set(5, SetCore(2), SetMax(Unbounded)), set(7, SetKeepAliveMs(50), SetAllowCoreThreadTimeOut(true))},
		Shutdowns: []Shutdown{{AtMs: 7, Now: true}},
		EndMs:     10,
	}
	sc, err := s.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range sc.Events {
		switch {
		case e.Core != nil:
			got = append(got, "core")
		case e.Max != nil:
			got = append(got, "max")
		case e.KeepAlive != nil:
			got = append(got, "keepAlive")
		case e.CoreTimeOut != nil:
			got = append(got, "coreTimeOut")
		default:
			got = append(got, e.Shutdown)
		}
		lines := strings.Split(s.String(), "\n")
		at := fmt.Sprintf(" at=%d", e.At.Milliseconds())
		if e.Line < 1 || e.Line > len(lines) || !strings.Contains(lines[e.Line-1], at) {
			t.Errorf("event at %v points at line %d", e.At, e.Line)
		}
	}
	want := []string{"core", "max", "keepAlive", "coreTimeOut", "now"}
	if !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if *sc.Events[1].Max != model.Unbounded {
		t.Errorf("max %d, want Integer.MAX_VALUE", *sc.Events[1].Max)
	}
}

// TestSimulateOutcomes checks how Simulate reports what became of each task, in the harness's
// terms, on small scripts whose outcome the spec fixes.
func TestSimulateOutcomes(t *testing.T) {
	type want struct {
		id      int
		outcome Outcome
		worker  int
		submit  float64 // NaN: never submitted
	}
	nan := math.NaN()
	oneSlot := func(rej Rejection) Pool {
		return Pool{Kind: KindJDK, Core: 1, Max: 1, KeepAliveMs: 0, Queue: QueueArray, Capacity: 1, Rejection: rej}
	}
	cases := []struct {
		name   string
		script Script
		want   []want
		events []string // kind:detail of shutdownNow and end
	}{
		{
			// AbortPolicy throws: rejected (R32).
			name:   "abort",
			script: Script{Pool: oneSlot(RejectAbort), Submits: []Submit{task(1, 0, 50), task(2, 0, 50), task(3, 0, 50)}, EndMs: 200},
			want:   []want{{1, OutcomePool, 1, 0}, {2, OutcomePool, 1, 0}, {3, OutcomeRejected, -1, 0}},
			events: []string{"end:drained=0"},
		},
		{
			// DiscardOldestPolicy drops the queued task 2 for task 3 (R35).
			name:   "discard-oldest",
			script: Script{Pool: oneSlot(RejectDiscardOldest), Submits: []Submit{task(1, 0, 50), task(2, 0, 50), task(3, 0, 50)}, EndMs: 200},
			want:   []want{{1, OutcomePool, 1, 0}, {2, OutcomeDiscarded, -1, 0}, {3, OutcomePool, 1, 0}},
			events: []string{"end:drained=0"},
		},
		{
			// CallerRunsPolicy holds the submitter 0–300 ms (R33), so task 4, due at 10 ms,
			// and task 5, due at 250 ms, are submitted only at 300 ms.
			name: "caller-runs holds later submissions",
			script: Script{Pool: oneSlot(RejectCallerRuns), EndMs: 400,
				Submits: []Submit{task(1, 0, 100), task(2, 0, 100), task(3, 0, 300), task(4, 10, 10), task(5, 250, 10)}},
			want:   []want{{1, OutcomePool, 1, 0}, {2, OutcomePool, 1, 0}, {3, OutcomeCaller, 0, 0}, {4, OutcomePool, 1, 300}, {5, OutcomePool, 1, 300}},
			events: []string{"end:drained=0"},
		},
		{
			// The same, ending at 280 ms: tasks 4 and 5 are never submitted.
			name: "caller-runs past the end",
			script: Script{Pool: oneSlot(RejectCallerRuns), EndMs: 280,
				Submits: []Submit{task(1, 0, 100), task(2, 0, 100), task(3, 0, 300), task(4, 10, 10), task(5, 250, 10)}},
			want:   []want{{3, OutcomeCaller, 0, 0}, {4, OutcomeUnsubmitted, -1, nan}, {5, OutcomeUnsubmitted, -1, nan}},
			events: []string{"end:drained=0"},
		},
		{
			// shutdownNow drains the queued task (R28); what is queued at the end is
			// drained by the harness's final shutdownNow.
			name: "drained mid-run and at the end",
			script: Script{Pool: Pool{Kind: KindJDK, Core: 1, Max: 1, KeepAliveMs: 0}, EndMs: 100,
				Submits:   []Submit{task(1, 0, 200), task(2, 0, 10), task(3, 50, 10)},
				Shutdowns: []Shutdown{{AtMs: 20, Now: true}}},
			want:   []want{{1, OutcomePool, 1, 0}, {2, OutcomeDrained, -1, 0}, {3, OutcomeRejected, -1, 50}},
			events: []string{"shutdownNow:drained=1", "end:drained=0"},
		},
		{
			// Still queued at the end: the harness drains it.
			name: "queued at the end",
			script: Script{Pool: Pool{Kind: KindJDK, Core: 1, Max: 1, KeepAliveMs: 0}, EndMs: 100,
				Submits: []Submit{task(1, 0, 200), task(2, 0, 10)}},
			want:   []want{{1, OutcomePool, 1, 0}, {2, OutcomeDrained, -1, 0}},
			events: []string{"end:drained=1"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Simulate(context.Background(), c.script)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				tk, ok := m.Result.Task(w.id)
				if !ok {
					t.Fatalf("no task %d", w.id)
				}
				if tk.Outcome != w.outcome || tk.Worker != w.worker || !(tk.SubmitMs == w.submit || math.IsNaN(tk.SubmitMs) && math.IsNaN(w.submit)) {
					t.Errorf("task %d: %s on %d submitted at %g, want %s on %d at %g", w.id, tk.Outcome, tk.Worker, tk.SubmitMs, w.outcome, w.worker, w.submit)
				}
			}
			var evs []string
			for _, e := range m.Result.Events {
				if e.Kind == "shutdownNow" || e.Kind == "end" {
					evs = append(evs, e.Kind+":"+e.Detail)
				}
			}
			if !slices.Equal(evs, c.events) {
				t.Errorf("events %v, want %v", evs, c.events)
			}
		})
	}
}

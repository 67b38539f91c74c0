package conformance

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestHarnessRefusesBadScheduledScripts: the harness checks kind=scheduled and the schedule
// directive like the rest of the format — every mistake is a located error before anything
// runs (one JVM for all the cases: the harness only parses).
func TestHarnessRefusesBadScheduledScripts(t *testing.T) {
	Require(t)
	const stpe = "pool kind=scheduled core=1\n"
	checkRefused(t, []refusedScript{
		// The constructor fixes max and keepAlive (R88): the keys are refused.
		{"max on scheduled", "pool kind=scheduled core=1 max=4\nend at=10\n", 1, 28, "max", "unknown key"},
		{"keepAlive on scheduled", "pool kind=scheduled core=1 keepAliveMs=5\nend at=10\n", 1, 28, "keepAliveMs", "unknown key"},
		// Only a ScheduledThreadPoolExecutor has schedule methods.
		{"schedule on jdk", "pool kind=jdk core=1 max=2\nschedule at=0 id=1 mode=once serviceMs=5\nend at=10\n", 2, 1, "schedule", "only for kind=scheduled"},
		{"missing mode", stpe + "schedule at=0 id=1 serviceMs=5\nend at=10\n", 2, 1, "mode", "missing"},
		{"unknown mode", stpe + "schedule at=0 id=1 mode=rate serviceMs=5\nend at=10\n", 2, 20, "mode", "unknown value"},
		// R94, R95: a period of 0 is IllegalArgumentException.
		{"zero period", stpe + "schedule at=0 id=1 mode=fixed-rate periodMs=0 serviceMs=5\nend at=10\n", 2, 36, "periodMs", "not positive"},
		{"missing period", stpe + "schedule at=0 id=1 mode=fixed-delay serviceMs=5\nend at=10\n", 2, 1, "periodMs", "missing"},
		{"period on once", stpe + "schedule at=0 id=1 mode=once periodMs=5 serviceMs=5\nend at=10\n", 2, 30, "periodMs", "no period"},
		{"bad service list", stpe + "schedule at=0 id=1 mode=once serviceMs=5,x\nend at=10\n", 2, 30, "serviceMs", "not an integer"},
		{"failRun 0", stpe + "schedule at=0 id=1 mode=once serviceMs=5 failRun=0\nend at=10\n", 2, 42, "failRun", "not positive"},
		// Ids are unique across submits and schedules.
		{"id shared with a submit", stpe + "submit at=0 id=1 serviceMs=5\nschedule at=0 id=1 mode=once serviceMs=5\nend at=10\n", 3, 15, "id", "used twice"},
		{"bad policy flag", "pool kind=scheduled core=1 continuePeriodic=yes\nend at=10\n", 1, 28, "continuePeriodic", "not a boolean"},
		// removeOnCancel (R97) is a ScheduledThreadPoolExecutor policy, and a boolean.
		{"removeOnCancel not a boolean", "pool kind=scheduled core=1 removeOnCancel=1\nend at=10\n", 1, 28, "removeOnCancel", "not a boolean"},
		{"removeOnCancel on jdk", "pool kind=jdk core=1 max=2 removeOnCancel=true\nend at=10\n", 1, 28, "removeOnCancel", "unknown key"},
		// cancel names an earlier schedule directive, once.
		{"cancel on jdk", "pool kind=jdk core=1 max=2\ncancel at=0 id=1\nend at=10\n", 2, 1, "cancel", "only for kind=scheduled"},
		{"cancel of an unknown id", stpe + "schedule at=0 id=1 mode=once serviceMs=5\ncancel at=5 id=2\nend at=10\n", 3, 13, "id", "no earlier schedule directive"},
		{"cancel of a submit", stpe + "submit at=0 id=1 serviceMs=5\ncancel at=5 id=1\nend at=10\n", 3, 13, "id", "no earlier schedule directive"},
		{"cancel before its schedule line", stpe + "cancel at=0 id=1\nschedule at=0 id=1 mode=once serviceMs=5\nend at=10\n", 2, 13, "id", "no earlier schedule directive"},
		{"cancel twice", stpe + "schedule at=0 id=1 mode=once serviceMs=5\ncancel at=5 id=1\ncancel at=6 id=1\nend at=10\n", 4, 13, "id", "cancelled twice"},
		{"cancel without id", stpe + "schedule at=0 id=1 mode=once serviceMs=5\ncancel at=5\nend at=10\n", 3, 1, "id", "missing"},
		{"cancel with a stray key", stpe + "schedule at=0 id=1 mode=once serviceMs=5\ncancel at=5 id=1 now=true\nend at=10\n", 3, 18, "now", "unknown key"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// What String writes for the scheduled family, the harness accepts.
	ok := Script{
		Pool:      Pool{Kind: KindScheduled, Core: 2, ContinuePeriodic: true, DropDelayed: true, RemoveOnCancel: true},
		Submits:   []Submit{task(1, 0, 5)},
		Schedules: []Schedule{fixedRate(2, 0, 10, 100, 30, 5), once(3, 5, 50, 5), fixedDelay(4, 5, 0, 20, 5)},
		Cancels:   []Cancel{{AtMs: 5, ID: 3}, {AtMs: 50, ID: 2}},
		Samples:   Samples{AtMs: []int64{10}},
		EndMs:     100,
	}
	if err := (Runner{}).Check(ctx, ok); err != nil {
		t.Errorf("a rendered scheduled script is refused: %v\n%s", err, ok)
	}
}

// TestParseScheduledOutput reads the scheduled and run sections, and refuses a malformed one.
func TestParseScheduledOutput(t *testing.T) {
	const out = "scheduled,2,fixed-rate,1.9,failed,false,3\n" +
		"run,2,1,1,3.4,704.3,\n" +
		"run,2,2,1,704.5,724.7,\n" +
		"run,2,3,2,724.8,746.4,failed\n" +
		"scheduled,5,once,20.0,active,true,0\n" +
		"timing,max_lateness_ms,1.9\n"
	res, err := ParseOutput(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if sc, ok := res.ScheduledTask(2); !ok || sc.State != ScheduleFailed || sc.Runs != 3 || sc.Drained || sc.Mode != ScheduleFixedRate {
		t.Errorf("schedule 2: %+v", sc)
	}
	if sc, _ := res.ScheduledTask(5); sc.State != ScheduleActive || !sc.Drained {
		t.Errorf("schedule 5: %+v", sc)
	}
	runs := res.RunsOf(2)
	if len(runs) != 3 || runs[2].Worker != 2 || !runs[2].Failed || runs[1].StartMs != 704.5 || runs[0].Failed {
		t.Errorf("runs of 2: %+v", runs)
	}
	for _, bad := range []string{
		"scheduled,2,fixed-rate,1.9,lost,false,3\n",   // an unknown state
		"scheduled,2,weekly,1.9,active,false,3\n",     // an unknown mode
		"run,2,1,1,3.4,704.3,exploded\n",              // an unknown note
		"run,2,1,1,3.4\n",                             // too few fields
		"scheduled,2,fixed-rate,1.9,active,maybe,3\n", // drained is a boolean
	} {
		if _, err := ParseOutput(strings.NewReader(bad + "timing,max_lateness_ms,1\n")); err == nil {
			t.Errorf("%q parsed without error", bad)
		}
	}
}

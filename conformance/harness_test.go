package conformance

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// TestHarnessRefusesBadScripts checks that every kind of bad script is refused before anything
// runs, with the harness's exit status 2 turned into an *inputerr.Error that names the line,
// column and key at fault.
func TestHarnessRefusesBadScripts(t *testing.T) {
	Require(t)
	const jdk = "pool kind=jdk core=1 max=2 keepAliveMs=100\n"
	checkRefused(t, []refusedScript{
		// A directive the format does not have.
		{"unknown directive", jdk + "sleep at=5\nend at=10\n", 2, 1, "sleep", "unknown directive"},
		// A typo in a pool key must not be ignored.
		{"unknown pool key", "pool kind=jdk core=1 max=2 cores=2\nend at=10\n", 1, 28, "cores", "unknown key"},
		// The same key twice on one line.
		{"key twice", "pool kind=jdk core=1 core=2 max=2\nend at=10\n", 1, 22, "core", "given twice"},
		// A bare word where key=value belongs.
		{"not key=value", jdk + "submit at=0 id=1 serviceMs\nend at=10\n", 2, 18, "serviceMs", "expected key=value"},
		// Every script needs an end.
		{"no end", jdk + "submit at=0 id=1 serviceMs=5\n", 0, 0, "end", "missing"},
		// The pool must come first.
		{"no pool first", "submit at=0 id=1 serviceMs=5\nend at=10\n", 1, 1, "submit", "before the pool directive"},
		// An unknown pool kind.
		{"bad kind", "pool kind=go core=1 max=2\nend at=10\n", 1, 6, "kind", "unknown value"},
		// Not a number.
		{"bad integer", jdk + "submit at=soon id=1 serviceMs=5\nend at=10\n", 2, 8, "at", "not an integer"},
		// Negative times are refused.
		{"negative service", jdk + "submit at=0 id=1 serviceMs=-5\nend at=10\n", 2, 18, "serviceMs", "negative"},
		// R2: the constructor would throw.
		{"max below core", "pool kind=jdk core=3 max=2\nend at=10\n", 1, 22, "max", "below core"},
		// R24: allowCoreThreadTimeOut(true) needs keepAlive > 0.
		{"core timeout without keepAlive", "pool kind=jdk core=1 max=2 keepAliveMs=0 allowCoreThreadTimeOut=true\nend at=10\n", 1, 42, "allowCoreThreadTimeOut", "R24"},
		// R21: set applies its keys in line order; core 3 above max 2 throws at the first step.
		{"set core above max", jdk + "set at=5 core=3 max=4\nend at=10\n", 2, 10, "core", "R21"},
		// R23: keepAlive 0 while core threads may time out.
		{"set keepAlive 0 with core timeout", "pool kind=jdk core=1 max=2 keepAliveMs=100 allowCoreThreadTimeOut=true\nset at=5 keepAliveMs=0\nend at=10\n", 2, 10, "keepAliveMs", "R23"},
		// File order must be time order.
		{"out of order", jdk + "submit at=5 id=1 serviceMs=5\nsubmit at=4 id=2 serviceMs=5\nend at=10\n", 3, 8, "at", "earlier"},
		// Samples only up to the end.
		{"sample after end", jdk + "sample at=5,20\nend at=10\n", 3, 0, "sample", "after end"},
		// Task ids identify tasks in the output.
		{"duplicate id", jdk + "submit at=0 id=1 serviceMs=5\nsubmit at=1 id=1 serviceMs=5\nend at=10\n", 3, 13, "id", "used twice"},
		// priority orders a PriorityBlockingQueue only.
		{"priority on linked", jdk + "submit at=0 id=1 serviceMs=5 priority=2\nend at=10\n", 2, 30, "priority", "queue=priority"},
		// LinkedBlockingQueue has no fair mode.
		{"fair linked", "pool kind=jdk core=1 max=2 queue=linked fair=true\nend at=10\n", 1, 41, "fair", "no fair mode"},
		// A SynchronousQueue holds nothing.
		{"capacity on synchronous", "pool kind=jdk core=1 max=2 queue=synchronous capacity=3\nend at=10\n", 1, 46, "capacity", "no capacity"},
		// ArrayBlockingQueue needs its bound.
		{"array without capacity", "pool kind=jdk core=1 max=2 queue=array\nend at=10\n", 1, 1, "capacity", "missing"},
		// R65: Tomcat cannot be told not to prestart.
		{"tomcat without prestart", "pool kind=tomcat core=1 max=2 prestart=false\nend at=10\n", 1, 31, "prestart", "R65"},
		// Jetty has no rejection handler.
		{"jetty caller-runs", "pool kind=jetty core=1 max=2 rejection=caller-runs\nend at=10\n", 1, 30, "rejection", "unknown value"},
		// Jetty's QueuedThreadPool has no shutdown.
		{"jetty shutdown", "pool kind=jetty core=1 max=2\nshutdown at=5\nend at=10\n", 2, 1, "shutdown", "not supported"},
	})
}

// refusedScript is a script the harness must refuse, with where and why.
type refusedScript struct {
	name     string
	text     string
	line     int
	col      int // 0: do not check
	key      string
	contains string
}

// checkRefused runs the harness once over every script (it only parses
// them) and requires each error to be an *inputerr.Error naming the
// script, line, column and key.
func checkRefused(t *testing.T, cases []refusedScript) {
	t.Helper()
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.text
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs, err := Runner{}.checkTexts(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ie *inputerr.Error
			if !errors.As(errs[i], &ie) {
				t.Fatalf("err = %v, want an *inputerr.Error", errs[i])
			}
			if ie.File != scriptName || ie.Line != c.line || (c.col != 0 && ie.Col != c.col) || ie.Key != c.key ||
				!strings.Contains(ie.Error(), c.contains) {
				t.Errorf("got %q (line %d col %d key %q), want line %d col %d key %q containing %q",
					ie.Error(), ie.Line, ie.Col, ie.Key, c.line, c.col, c.key, c.contains)
			}
		})
	}
}

// TestCheckFollowsSetterOrder checks that a set directive is validated step by step in line
// order (R21, R22): raising max before core is fine, the other order is not.
func TestCheckFollowsSetterOrder(t *testing.T) {
	Require(t)
	base := Script{Pool: Pool{Kind: KindJDK, Core: 2, Max: 4, KeepAliveMs: 100}, EndMs: 100}
	cases := []struct {
		name    string
		changes []Change
		ok      bool
	}{
		// setMaximumPoolSize(8) then setCorePoolSize(6): 6 <= 8 at each step.
		{"max then core", []Change{SetMax(8), SetCore(6)}, true},
		// setCorePoolSize(6) first: 6 > max 4 throws.
		{"core then max", []Change{SetCore(6), SetMax(8)}, false},
		// Lowering: core first, then max.
		{"core down then max down", []Change{SetCore(1), SetMax(1)}, true},
		// Lowering max below the current core throws.
		{"max down first", []Change{SetMax(1), SetCore(1)}, false},
		// allowCoreThreadTimeOut needs a positive keepAlive at that point.
		{"keepAlive 0 then core timeout", []Change{SetKeepAliveMs(0), SetAllowCoreThreadTimeOut(true)}, false},
		// max may be unbounded.
		{"unbounded max", []Change{SetMax(Unbounded)}, true},
	}
	scripts := make([]Script, len(cases))
	for i, c := range cases {
		scripts[i] = base
		scripts[i].Sets = []Set{{AtMs: 50, Changes: c.changes}}
	}
	errs, err := CheckAll(context.Background(), scripts)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := errs[i]
			if c.ok && err != nil {
				t.Errorf("Check: %v", err)
			}
			if !c.ok && !inputerr.Is(err) {
				t.Errorf("Check = %v, want an input error", err)
			}
			if !c.ok && err != nil && !strings.Contains(err.Error(), "line 2") {
				t.Errorf("error %q does not quote the set line", err)
			}
		})
	}
}

// TestCheckAllRefusesTheSeparator checks that a script cannot smuggle in the line that
// separates scripts for --check-many.
func TestCheckAllRefusesTheSeparator(t *testing.T) {
	_, err := Runner{}.checkTexts(context.Background(), []string{"pool kind=jdk core=1 max=1\n%%\nend at=1\n"})
	if err == nil || !strings.Contains(err.Error(), "separator") {
		t.Errorf("err = %v, want a refusal of the separator line", err)
	}
}

// TestSingleCheckMatchesCheckAll checks that Check (its own JVM, --check) and CheckAll
// (--check-many) give the same verdict and message.
func TestSingleCheckMatchesCheckAll(t *testing.T) {
	Require(t)
	bad := Script{Pool: Pool{Kind: KindJDK, Core: 3, Max: 2}, EndMs: 10}
	good := Script{Pool: Pool{Kind: KindJDK, Core: 1, Max: 2}, EndMs: 10}
	errs, err := CheckAll(context.Background(), []Script{bad, good})
	if err != nil {
		t.Fatal(err)
	}
	single := Check(context.Background(), bad)
	if single == nil || errs[0] == nil || single.Error() != errs[0].Error() || errs[1] != nil {
		t.Errorf("Check: %v; CheckAll: %v", single, errs)
	}
	if err := Check(context.Background(), good); err != nil {
		t.Errorf("Check(good): %v", err)
	}
}

// TestRequireFailsInCI checks that Require skips without CI and fails with CI=true when the
// harness cannot run.
func TestRequireFailsInCI(t *testing.T) {
	t.Setenv("POOLSIM_JAVA_HOME", t.TempDir()) // a JDK without java or javac
	checkSkipOrFail(t, "", func(tb testing.TB) { Require(tb) }, nil)
}

// checkSkipOrFail holds require, run where what it needs is missing, to skipping on a
// developer's machine and failing when CI=true; checkMsg, if not nil, checks its message.
func checkSkipOrFail(t *testing.T, label string, require func(testing.TB), checkMsg func(ci, msg string)) {
	t.Helper()
	for _, c := range []struct {
		ci                 string
		wantFail, wantSkip bool
	}{
		{"true", true, false}, // CI must have it
		{"", false, true},     // a developer's machine may not
	} {
		t.Setenv("CI", c.ci)
		tb := &recordingTB{}
		done := make(chan struct{})
		go func() { // Fatalf and Skipf end this goroutine, as they end a test's
			defer close(done)
			require(tb)
		}()
		<-done
		if tb.failed != c.wantFail || tb.skipped != c.wantSkip {
			t.Errorf("%sCI=%q: failed %v skipped %v, want %v %v", label, c.ci, tb.failed, tb.skipped, c.wantFail, c.wantSkip)
		}
		if checkMsg != nil {
			checkMsg(c.ci, tb.msg)
		}
	}
}

// recordingTB records Require's verdict instead of stopping a test.
type recordingTB struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed = true
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recordingTB) Skipf(format string, args ...any) {
	r.skipped = true
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

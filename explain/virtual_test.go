package explain

import (
	"context"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/scenarios"
)

func explainFile(t *testing.T, path string, sets ...string) *Explanation {
	t.Helper()
	sc, err := scenarios.Load(path, sets)
	return explainLoaded(t, sc, err)
}

// TestExplainVirtualHikari: on virtual threads (R130, R142) the wait of
// tomcat-hikari moves into HikariCP (R145); explain says so and none of
// ThreadPoolExecutor's reasoning (idle workers, keepAlive, queues) appears.
func TestExplainVirtualHikari(t *testing.T) {
	e := explainFile(t, "../scenarios/examples/tomcat-virtual-hikari.yaml")
	text := e.Text()
	if f := finding(e, "Where the wait went"); !strings.Contains(f, "parks there (R145)") {
		t.Errorf("Where the wait went = %q, want the parked virtual threads (R145)\n%s", f, text)
	}
	if f := finding(e, "Bottleneck"); !strings.Contains(f, "HikariCP pool db") {
		t.Errorf("Bottleneck = %q, want the HikariCP pool named", f)
	}
	if !strings.Contains(finding(e, "A virtual thread per task"), "R142") {
		t.Errorf("no virtual-thread finding citing R142:\n%s", text)
	}
	for _, wrong := range []string{"How it grew", "Why TIMED_WAITING", "Why WAITING", "SynchronousQueue", "keepAlive 0s", "hand-off timing"} {
		if strings.Contains(text, wrong) {
			t.Errorf("a virtual-thread explanation says %q:\n%s", wrong, text)
		}
	}
	w := whatIf(e, "db connections")
	if w == nil || w.Error != "" || w.Alt.Errors != 0 || e.Base.Errors == 0 {
		t.Fatalf("the db connections what-if should end the connection timeouts (base %d errors): %+v", e.Base.Errors, w)
	}
}

// TestExplainVirtualPinning: on JDK 21 a JDBC call inside synchronized pins
// the carriers (R134): explain names the carriers as the bottleneck, and
// the JDK 25 what-if (R135) serves the offered 100 requests/s again.
func TestExplainVirtualPinning(t *testing.T) {
	e := explainFile(t, "../scenarios/examples/virtual-pinning.yaml")
	text := e.Text()
	if f := finding(e, "Pinned carriers"); !strings.Contains(f, "in synchronized (pinned on JDK 21)") {
		t.Errorf("Pinned carriers = %q\n%s", f, text)
	}
	if f := finding(e, "Where the wait went"); !strings.HasPrefix(f, "to the carriers") {
		t.Errorf("Where the wait went = %q, want the carriers\n%s", f, text)
	}
	w := whatIf(e, "JDK 21 → 25")
	if w == nil || w.Error != "" {
		t.Fatalf("no JDK 25 what-if:\n%s", text)
	}
	// 100/s offered: about 11,000 tasks in the 90 s steady window, so the
	// rate's relative standard error is about 1 %; 5 % is 5 of them.
	if w.Alt.Throughput < 95 || w.Alt.Virtual == nil || w.Alt.Virtual.Pinned != 0 || e.Base.Throughput > 60 {
		t.Errorf("JDK 25 what-if: %.1f/s completed (pinned %+v), base %.1f/s; want ≈ 100/s unpinned and a starved base", w.Alt.Throughput, w.Alt.Virtual, e.Base.Throughput)
	}
}

// TestCompareVirtualMovesTheWait: the side-by-side of issue 15 — the
// same traffic on Tomcat's 200 platform threads and on virtual threads:
// the wait leaves the pool's queue for the connection pool.
func TestCompareVirtualMovesTheWait(t *testing.T) {
	a, err := scenarios.Load("../scenarios/examples/tomcat-hikari.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := scenarios.Load("../scenarios/examples/tomcat-virtual-hikari.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SameTraffic {
		t.Error("the two examples should have the same traffic")
	}
	if !strings.HasPrefix(c.Moved, "The wait moved from the pool's queue") || !strings.Contains(c.Moved, "to db") {
		t.Errorf("Moved = %q, want from the pool's queue to db", c.Moved)
	}
	if text := c.Text(); !strings.Contains(text, "virtual threads, most") || !strings.Contains(text, "carrier wait p99") {
		t.Errorf("no virtual-thread rows:\n%s", text)
	}
}

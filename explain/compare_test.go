package explain

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/scenarios"
)

// TestCompareMovesTheWait: the bundled tomcat-hikari incident against the
// same traffic with more threads and connections. A is bound by its 10
// connections: it completes 10 / 40 ms = 250 requests/s (the lognormal
// hold's mean), the rest queue in front of the pool; B serves all 300/s.
// Tolerance: about 60,000 holds in A's steady state with cv 1 give the
// mean hold a relative standard error of 1/√60000 ≈ 0.4 %; 2 % is 5 of
// them.
func TestCompareMovesTheWait(t *testing.T) {
	a, err := scenarios.Load("../scenarios/examples/tomcat-hikari.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := scenarios.Load("../scenarios/examples/tomcat-hikari.yaml", []string{"pool.max=400", "resources.db.maximumPoolSize=14"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SameTraffic {
		t.Error("the same file with a pool edit should have the same traffic")
	}
	sa, sb := c.A.Result.Summary, c.B.Result.Summary
	if got := float64(sa.Throughput); math.Abs(got-250)/250 > 0.02 {
		t.Errorf("A completes %.1f/s, want 250/s ± 2%% (10 connections / 40 ms)", got)
	}
	if got := float64(sb.Throughput); math.Abs(got-300)/300 > 0.02 {
		t.Errorf("B completes %.1f/s, want the offered 300/s ± 2%%", got)
	}
	if !strings.Contains(c.Moved, "the pool's queue") {
		t.Errorf("Moved = %q, want the pool's queue named", c.Moved)
	}
	text := c.Text()
	for _, want := range []string{"Same traffic", "db: waiters, mean (most)", "Why A: Waits on the HikariCP pool db", "ended/s"} {
		if !strings.Contains(text, want) {
			t.Errorf("compare text lacks %q:\n%s", want, text)
		}
	}

	// Another seed is other traffic, and the report says so.
	b.Seed++
	c, err = Compare(context.Background(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c.SameTraffic || !strings.Contains(c.Text(), "do not have the same traffic") {
		t.Error("different seeds were reported as the same traffic")
	}
}

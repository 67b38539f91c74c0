package explain

import (
	"context"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/scenarios"
)

// finding returns the text of the finding titled title, or "".
func finding(e *Explanation, title string) string {
	for _, f := range e.Findings {
		if f.Title == title {
			return f.Text
		}
	}
	return ""
}

// TestExplainRetryStorm: the bundled retry storm is named as such, the
// load says how much of it is retries, and the what-ifs that bound the
// retries raise the goodput, re-simulated.
func TestExplainRetryStorm(t *testing.T) {
	sc, err := scenarios.Load("../scenarios/examples/retry-storm.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Explain(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := finding(e, "Retry storm"); !strings.Contains(f, "metastable") {
		t.Errorf("no retry storm finding:\n%s", e.Text())
	}
	if f := finding(e, "Load"); !strings.Contains(f, "the callers' retries") {
		t.Errorf("the load does not say how much of it is retries: %q", f)
	}
	if f := finding(e, "Callers"); !strings.Contains(f, "had given up") {
		t.Errorf("the callers finding does not count the wasted work: %q", f)
	}
	for _, name := range []string{"retry budget", "no retries"} {
		w := whatIf(e, name)
		if w == nil || w.Error != "" {
			t.Fatalf("what-if %q missing or failed: %+v", name, w)
		}
		if w.Alt.Goodput <= 1.3*e.Base.Goodput {
			t.Errorf("%s: goodput %.1f/s, not clearly above the storm's %.1f/s", name, w.Alt.Goodput, e.Base.Goodput)
		}
	}
	if !strings.Contains(e.Text(), "goodput/s") {
		t.Error("the what-if table has no goodput column")
	}
}

// TestExplainUsers: closed-loop users are named as the traffic, and the
// explanation says that the loop regulates itself; no retry storm is
// claimed where the callers do not retry.
func TestExplainUsers(t *testing.T) {
	e := explainYAML(t, `duration: 2m
warmup: 20s
sample: 1s
pool: {core: 4, max: 4}
workload:
  users: {count: 40, think: {dist: exponential, mean: 1s}}
  service: {dist: exponential, mean: 100ms}
`)
	if f := finding(e, "Load"); !strings.Contains(f, "closed-loop users") {
		t.Errorf("load finding: %q", f)
	}
	if f := finding(e, "Callers"); !strings.Contains(f, "40 closed-loop users") || !strings.Contains(f, "regulates itself") {
		t.Errorf("callers finding: %q", f)
	}
	if finding(e, "Retry storm") != "" {
		t.Error("a retry storm without retries")
	}
}

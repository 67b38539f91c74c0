package explain

import (
	"context"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/scenarios"
)

// TestExplainFamilies: a ScheduledThreadPoolExecutor and Jetty's pool are explained by their
// own rules (spec §6, §7), not by ThreadPoolExecutor's keepAlive and hand-off reasoning.
func TestExplainFamilies(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // finding titles that must appear
		not        []string // titles that must not
		text       string   // a phrase the findings must contain
	}{
		// Jetty after a burst: it grew because no thread was idle (R102) and shrinks one
		// thread per idleTimeout (R104, R105); no FIFO plateau (R78) applies.
		{"jetty", `
duration: 10m
sample: 10s
pool: {preset: jetty, core: 2, max: 50, keepAlive: 30s}
workload:
  phases:
    - {duration: 2s, arrivals: {process: burst, count: 20}, service: {dist: constant, value: 1s}}
    - {arrivals: {process: constant, rate: 1}, service: {dist: constant, value: 5ms}}
`, []string{"Idle threads", "How it grew", "How it shrinks"}, []string{"Why TIMED_WAITING", "Mechanism: FIFO hand-off"}, "at most one thread per 30s"},
		// An STPE: a leader and followers in take() (R61, R93), never past core (R88).
		{"scheduled", `
duration: 1m
pool: {preset: scheduled, core: 3}
workload:
  arrivals: {process: poisson, rate: 2}
  service: {dist: exponential, mean: 100ms}
  periodic: [{name: tick, mode: fixed-rate, every: 1s, service: {dist: constant, value: 10ms}}]
`, []string{"Idle workers", "Why it never grows past core", "Periodic jobs"}, []string{"Why TIMED_WAITING", "Why WAITING", "Cancelled jobs"}, "the leader"},
		// Cancelled STPE jobs (R97): one run skipped when due, one removed at once.
		{"scheduled cancel", `
duration: 30s
pool: {preset: scheduled, core: 1}
workload:
  periodic:
    - {name: kept, mode: once, initialDelay: 20s, cancelAt: 2s, service: {dist: constant, value: 1s}}
    - {name: poll, mode: fixed-rate, every: 5s, cancelAt: 7s, service: {dist: constant, value: 10ms}}
`, []string{"Cancelled jobs", "Periodic jobs"}, nil, "2 jobs were cancelled with future.cancel(false) (R97): 2 runs stayed in the queue until due and were skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scenarios.Parse([]byte(tt.yaml), "s.yaml", nil)
			if err != nil {
				t.Fatal(err)
			}
			e, err := Explain(context.Background(), sc, Options{NoWhatIfs: true})
			if err != nil {
				t.Fatal(err)
			}
			titles := map[string]bool{}
			var all strings.Builder
			for _, f := range e.Findings {
				titles[f.Title] = true
				all.WriteString(f.Text + "\n")
			}
			for _, w := range tt.want {
				if !titles[w] {
					t.Errorf("no %q finding in %v", w, titles)
				}
			}
			for _, n := range tt.not {
				if titles[n] {
					t.Errorf("a %q finding, which does not apply", n)
				}
			}
			if !strings.Contains(all.String(), tt.text) {
				t.Errorf("findings do not say %q:\n%s", tt.text, all.String())
			}
		})
	}
}

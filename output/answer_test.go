package output_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// TestAnswerBundled: the verdict of each small bundled scenario says what
// its README line says it shows, and the headline figures are the
// summary's own values.
func TestAnswerBundled(t *testing.T) {
	tests := []struct {
		file, tone, verdict string
	}{
		// 70 of 100 tasks rejected by AbortPolicy.
		{"seed-custom-pool.yaml", "bad", "Rejects 70 of 100 tasks (70 %)"},
		// 90 tasks queue behind 10 threads.
		{"seed-fixed-long-queue.yaml", "warn", "Tasks queue: the p99 wait is 27 s"},
		// M/M/8 at ρ = 0.8: the p99 wait (Erlang C: 0.239 s) exceeds the mean service time.
		{"fixed-pool-mmc.yaml", "warn", "Tasks queue: the p99 wait is 243 ms against a mean service time of 100 ms"},
		// CallerRunsPolicy under a burst: nothing lost, the submitter slowed.
		{"caller-runs-backpressure.yaml", "warn", "Back-pressure: 601 of 3,096 tasks"},
		// A cached pool after a burst: 100 threads idle for 60 s, then gone.
		{"seed-cached-burst.yaml", "warn", "Mostly idle: the pool holds 70 workers for 3.33 busy"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			sc, err := scenarios.Load(filepath.Join("..", "scenarios", "examples", tc.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(context.Background(), sc, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			a := output.Answer(sc, res)
			if tc.tone != "" && (a.Tone != tc.tone || !strings.HasPrefix(a.Verdict, tc.verdict)) {
				t.Errorf("verdict (%s) %q, want (%s) %q…", a.Tone, a.Verdict, tc.tone, tc.verdict)
			}
			for _, f := range a.Figures {
				if f.Key == "rejected" && f.Raw != strings.ReplaceAll(f.Value, ",", "") {
					t.Errorf("rejected shown as %q, summary has %q", f.Value, f.Raw)
				}
			}
			t.Logf("%s: (%s) %s", tc.file, a.Tone, a.Verdict)
		})
	}
}

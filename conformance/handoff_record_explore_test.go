package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHandOffRecord runs each hand-off case's real pool and writes the raw results as JSON to
// $POOLSIM_HANDOFF_RECORD (exploration: replay them offline while changing the timing model).
func TestHandOffRecord(t *testing.T) {
	dir := os.Getenv("POOLSIM_HANDOFF_RECORD")
	if dir == "" {
		t.Skip("exploration: POOLSIM_HANDOFF_RECORD=DIR")
	}
	Require(t)
	runs := 3
	for _, c := range handOffCases() {
		for run := 1; run <= runs; run++ {
			real, err := Runner{}.RunHandOff(context.Background(), c.script)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(real)
			name := strings.NewReplacer(" ", "_", "/", "-", "×", "x").Replace(c.name)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s.%d.json", name, run)), b, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s run %d: late %v", c.name, run, lateAfter(c.script, real, time.Second))
		}
	}
}

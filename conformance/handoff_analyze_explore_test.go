package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/poolsim/poolsim/scenarios"

	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"
)

func loadHandOff(t *testing.T, path string) *HandOffResult {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r HandOffResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestHandOffAnalyze reads $POOLSIM_HANDOFF_ANALYZE/*.json (TestHandOffRecord) and prints, per FIFO
// run, the hand-off latency, the turnaround of a worker taking a waiting task, and the share of
// tasks barged by the first worker to end after the submission, by how soon after it ended.
func TestHandOffAnalyze(t *testing.T) {
	dir := os.Getenv("POOLSIM_HANDOFF_ANALYZE")
	if dir == "" {
		t.Skip("exploration")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*00-s.*.json"))
	sort.Strings(files)
	for _, f := range files {
		r := loadHandOff(t, f)
		ends := r.ends()
		var h, turn []float64
		edges := []float64{0, 10, 20, 30, 40, 60, 80, 120, 160, 250, 400, 1e9}
		nb := make([]int, len(edges))
		bb := make([]int, len(edges))
		r.ranTasks(func(_ int, x HandOffOutcome, prev time.Duration, ok bool) {
			if !ok || x.Submit < time.Second {
				return
			}
			barged := prev > x.Submit
			if barged {
				turn = append(turn, float64(x.Start-prev)/1e3)
			} else {
				h = append(h, float64(x.Start-x.Submit)/1e3)
			}
			i, _ := slices.BinarySearch(ends, x.Submit+1)
			if i < len(ends) {
				d := float64(ends[i]-x.Submit) / 1e3
				k := sort.SearchFloat64s(edges, d)
				if k > 0 {
					k--
				}
				nb[k]++
				if barged {
					bb[k]++
				}
			}
		})
		slices.Sort(h)
		slices.Sort(turn)
		t.Logf("%s: H n=%d p10 %.0f p50 %.0f p90 %.0f p99 %.0f; turnaround of bargers n=%d p10 %.0f p50 %.0f p90 %.0f", filepath.Base(f), len(h),
			q(h, .1), q(h, .5), q(h, .9), q(h, .99), len(turn), q(turn, .1), q(turn, .5), q(turn, .9))
		for k := range edges[:len(edges)-1] {
			surv := 0
			for _, v := range h {
				if v > edges[k] {
					surv++
				}
			}
			if nb[k] > 0 {
				t.Logf("   first end %4.0f–%4.0f µs after submit: %4d tasks, barged %5.1f%%   P(H > %.0f) = %5.1f%%", edges[k], edges[k+1], nb[k], 100*float64(bb[k])/float64(nb[k]), edges[k], 100*float64(surv)/float64(len(h)))
			}
		}
	}
}

// TestHandOffReplayRecorded replays the runs TestHandOffRecord wrote to $POOLSIM_HANDOFF_ANALYZE:
// per case, the real envelope and the means of the ideal, timed-without-race and timed replays;
// with POOLSIM_HANDOFF_CROSS=1 each run is replayed with the timing measured in another run.
func TestHandOffReplayRecorded(t *testing.T) {
	dir := os.Getenv("POOLSIM_HANDOFF_ANALYZE")
	if dir == "" {
		t.Skip("exploration")
	}
	ctx := context.Background()
	for _, c := range handOffCases() {
		name := strings.NewReplacer(" ", "_", "/", "-", "×", "x").Replace(c.name)
		files, _ := filepath.Glob(filepath.Join(dir, name+".*.json"))
		vals := map[string][4][]float64{}
		for run, f := range files {
			real := loadHandOff(t, f)
			subs := make([]time.Duration, len(real.Tasks))
			for i, x := range real.Tasks {
				subs[i] = x.Submit
			}
			other := real
			if os.Getenv("POOLSIM_HANDOFF_CROSS") != "" {
				other = loadHandOff(t, files[(run+1)%len(files)])
			}
			wake := other.MeasuredWakeup(c.script, time.Second/2)
			noRace := wake
			noRace.Race = nil
			var rs []*HandOffResult
			for _, w := range []*scenarios.Wakeup{nil, &noRace, &wake} {
				r, err := SimulateHandOff(ctx, c.script, subs, w, uint64(run+1))
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
			if wake.Race != nil {
				t.Logf("%s run %d race %v", c.name, run+1, wake.Race.Points)
			}
			for _, m := range c.metrics {
				v := vals[m.name]
				for k, r := range append([]*HandOffResult{real}, rs...) {
					v[k] = append(v[k], m.value(r))
				}
				vals[m.name] = v
			}
		}
		for _, m := range c.metrics {
			v := vals[m.name]
			t.Logf("%-34s %-16s real [%.4g, %.4g]  ideal %.4g  timed(no race) %.4g  timed %.4g", c.name, m.name, slices.Min(v[0]), slices.Max(v[0]), mean(v[1]), mean(v[2]), mean(v[3]))
		}
	}
}

// TestHandOffLatencyByIdle prints the hand-off latency of the recorded runs by how long the
// worker had been idle (a thread parked a moment ago wakes faster).
func TestHandOffLatencyByIdle(t *testing.T) {
	dir := os.Getenv("POOLSIM_HANDOFF_ANALYZE")
	if dir == "" {
		t.Skip("exploration")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	edges := []time.Duration{0, 50 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, 50 * time.Millisecond, time.Hour}
	for _, f := range files {
		r := loadHandOff(t, f)
		hs := make([][]float64, len(edges))
		r.ranTasks(func(_ int, x HandOffOutcome, prev time.Duration, ok bool) {
			if !ok || x.Submit < time.Second/2 || prev > x.Submit {
				return
			}
			idle := x.Submit - prev
			k := 0
			for k+1 < len(edges) && idle >= edges[k+1] {
				k++
			}
			hs[k] = append(hs[k], float64(x.Start-x.Submit)/1e3)
		})
		line := filepath.Base(f) + ":"
		for k, h := range hs {
			if len(h) == 0 {
				continue
			}
			slices.Sort(h)
			line += fmt.Sprintf("  idle≥%v n=%d p50 %.0f p90 %.0f |", edges[k], len(h), q(h, .5), q(h, .9))
		}
		t.Log(line)
	}
}

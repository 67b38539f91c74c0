package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tuneScenario is newFixedThreadPool(8) at λ = 64/s, μ = 10/s (M/M/c) for 2
// minutes: a run takes a few milliseconds. 8 threads wait 0.24 s at the
// p99; 11 threads, 0.043 s.
const tuneScenario = `name: tune-cli
seed: 1
duration: 2m
warmup: 20s
sample: 10s
pool: {preset: fixed, core: 8}
workload:
  arrivals: {process: poisson, rate: 64/s}
  service: {dist: exponential, mean: 100ms}
`

func TestTuneExitCodes(t *testing.T) {
	scen := sweepScenarioFile(t, tuneScenario)
	args := func(out string, extra ...string) []string {
		vary := "pool.core=6:30:5"
		if len(extra) > 1 && extra[0] == "--vary" {
			vary, extra = extra[1], extra[2:]
		}
		return append([]string{"tune", scen, "--vary", vary, "--minimize", "pool.core", "--out", out, "--progress", "none"}, extra...)
	}
	// --json: the recommendation under "recommended", its figures with
	// intervals, the frontier.
	out := t.TempDir()
	code, stdout, stderr := sweepCLI(t, args(out, "--constraint", "wait_p99_s < 0.06", "--json")...)
	if code != 0 {
		t.Fatalf("tune --json: exit %d: %s", code, stderr)
	}
	var doc struct {
		Recommended map[string]float64 `json:"recommended"`
		Figures     map[string]struct {
			Mean      float64  `json:"mean"`
			HalfWidth *float64 `json:"half_width"`
		} `json:"figures"`
		Frontier []json.RawMessage `json:"frontier"`
		Search   struct{ Points, Replications int }
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("tune --json: %v\n%s", err, stdout)
	}
	if doc.Recommended["pool.core"] != 11 || doc.Figures["wait_p99_s"].HalfWidth == nil || len(doc.Frontier) == 0 || doc.Search.Replications == 0 {
		t.Errorf("tune --json: recommended %v, figures %v, %d frontier points, search %+v", doc.Recommended, doc.Figures, len(doc.Frontier), doc.Search)
	}
	for _, f := range []string{"tune.json", "points.csv", "frontier.png", "tune.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("tune wrote no %s: %v", f, err)
		}
	}
	// --check: the current 8 threads fail; exit 1 naming the change.
	code, _, stderr = sweepCLI(t, args(t.TempDir(), "--constraint", "wait_p99_s < 0.06", "--check")...)
	if code != 1 || !strings.Contains(stderr, "nearest feasible change: pool.core 8 → 11") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("tune --check (failing): exit %d, stderr %q", code, stderr)
	}
	// A bound the current configuration meets passes the check.
	if code, _, stderr = sweepCLI(t, args(t.TempDir(), "--constraint", "wait_p99_s < 2", "--check")...); code != 0 {
		t.Errorf("tune --check (passing): exit %d: %s", code, stderr)
	}
	// Bad input: exit 2, one line.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--constraint", "wait_p99 < 1"}, "unknown name wait_p99"},
		{[]string{"--constraint", "wait_p99_s < 1", "--minimize", "threads"}, `"threads" is neither a summary metric nor a varied key`},
		{[]string{"--vary", "pool.core=2:6:3", "--constraint", "wait_p99_s < 0.06"}, "no configuration in the --vary ranges meets the constraints"},
		{[]string{"--vary", "pool.core=1:x:3", "--constraint", "wait_p99_s < 1"}, "--vary pool.core=1:x:3"},
	} {
		code, _, stderr := sweepCLI(t, args(t.TempDir(), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("tune %v: exit %d, stderr %q; want exit 2 with %q on one line", tc.args, code, stderr, tc.want)
		}
	}
}

// The README's tuning section shows only flags tune has.
func TestReadmeTuneSection(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "## Tuning")
	if i < 0 {
		t.Fatal(`README.md has no "Tuning" section`)
	}
	sec := s[i:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	known := map[string]bool{"--help": true}
	for _, f := range tuneCommand().Flags {
		for _, n := range f.Names() {
			known["--"+n] = true
		}
	}
	// Commands: "$ poolsim tune ..." with their "\" continuation lines.
	checked := 0
	lines := strings.Split(sec, "\n")
	for k := 0; k < len(lines); k++ {
		if !strings.HasPrefix(lines[k], "$ poolsim tune ") {
			continue
		}
		cmd := lines[k]
		for strings.HasSuffix(cmd, `\`) && k+1 < len(lines) {
			k++
			cmd = strings.TrimSuffix(cmd, `\`) + " " + lines[k]
		}
		for _, w := range strings.Fields(cmd) {
			if strings.HasPrefix(w, "--") {
				checked++
				if !known[w] {
					t.Errorf("README.md: %q is not a flag of poolsim tune (in %q)", w, cmd)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("README.md: only %d tune flags checked", checked)
	}
}

package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current outputs")

// wallTimeRE matches the one figure of the human summary that depends on
// the machine: "simulated (seed 1) in 0.512s".
var wallTimeRE = regexp.MustCompile(`\) in [0-9.]+s, `)

// TestGoldenBundled holds every bundled scenario's outputs byte for byte:
// timeline.csv, summary.json, snapshots.txt, the human summary (wall time
// masked), the PNGs of --plots (by SHA-256) and explain's text. A change to
// any of them is either a deliberate change of behaviour — rerun with
// -update and say why in the commit — or a regression (issue 11: refactors
// must keep outputs byte-identical for the same scenario and seed).
func TestGoldenBundled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every bundled scenario with its PNGs is slow under the race detector; test.sh's full pass runs it")
	}
	files, err := filepath.Glob("../../scenarios/examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled scenarios: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		// Not in parallel: urfave/cli keeps package-level state (its help
		// flag), so two in-process runs at once race.
		t.Run(name, func(t *testing.T) {
			got := goldenOutputs(t, f)
			dir := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for k, v := range got {
					if err := os.WriteFile(filepath.Join(dir, k), v, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want, err := os.ReadDir(dir)
			if err != nil {
				t.Fatalf("no golden outputs for %s (run go test ./cmd/poolsim -run TestGoldenBundled -update): %v", name, err)
			}
			var wantNames []string
			for _, e := range want {
				wantNames = append(wantNames, e.Name())
			}
			var gotNames []string
			for k := range got {
				gotNames = append(gotNames, k)
			}
			slices.Sort(gotNames)
			if !slices.Equal(gotNames, wantNames) {
				t.Errorf("output files %v, golden %v", gotNames, wantNames)
			}
			for _, k := range wantNames {
				w, err := os.ReadFile(filepath.Join(dir, k))
				if err != nil {
					t.Fatal(err)
				}
				if g, ok := got[k]; ok && !bytes.Equal(g, w) {
					t.Errorf("%s differs from %s:\n%s", k, filepath.Join(dir, k), firstDiff(w, g))
				}
			}
		})
	}
}

// goldenOutputs runs the scenario as a user would and collects what it wrote.
func goldenOutputs(t *testing.T, scenario string) map[string][]byte {
	t.Helper()
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", scenario, "--out", out, "--plots")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	got := map[string][]byte{
		"stdout.txt": []byte(wallTimeRE.ReplaceAllString(strings.ReplaceAll(stdout, out, "OUT"), ") in WALLs, ")),
	}
	var sums strings.Builder
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case e.Name() == "perf.json": // wall time and memory: the machine's
		case strings.HasSuffix(e.Name(), ".png"):
			fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256(b), e.Name())
		default:
			got[e.Name()] = b
		}
	}
	got["png.sha256"] = []byte(sums.String())
	code, stdout, stderr = run(t, "explain", scenario)
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	got["explain.txt"] = []byte(stdout)
	return got
}

// firstDiff shows the first line where two outputs differ.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  golden: %q\n  got:    %q", i+1, w, g)
		}
	}
	return "(same lines, different bytes)"
}

package main

import (
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bundled example: Tomcat's real pool, scraped (see its pool file).
const (
	exPool  = "../../scenarios/examples/metrics/tomcat-pool.yaml"
	exProm  = "../../scenarios/examples/metrics/tomcat-scrapes.prom"
	exJSON  = "../../scenarios/examples/metrics/tomcat-query-range.json"
	exCSV   = "../../scenarios/examples/metrics/tomcat-scrapes.csv"
	exFlags = "--pool=tomcat-exec"
)

// TestDiagnoseMetricsCLI: the three formats of the bundled example give the
// same diagnosis; --out writes the chart, the page, the JSON and the fitted
// scenario.
func TestDiagnoseMetricsCLI(t *testing.T) {
	var texts []string
	for _, f := range []string{exProm, exJSON, exCSV} {
		code, stdout, stderr := run(t, "diagnose", exPool, "--metrics", f, exFlags)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, stderr)
		}
		for _, want := range []string{"Traffic from executor_completed_tasks_total", "Verdict: behaving as designed", "What the gauges hid", "Sampling artefacts"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: output lacks %q:\n%s", f, want, stdout)
			}
		}
		// Everything below the first line (which names the file) agrees,
		// but the note on query_range evaluation points.
		texts = append(texts, stdout[strings.Index(stdout, "\n"):])
	}
	strip := func(s string) string {
		if i := strings.Index(s, "\nNotes:"); i >= 0 {
			return s[:i]
		}
		return s
	}
	if strip(texts[0]) != strip(texts[1]) || strip(texts[0]) != strip(texts[2]) {
		t.Errorf("the formats disagree:\n%s\n----\n%s\n----\n%s", texts[0], texts[1], texts[2])
	}
	out := t.TempDir()
	code, stdout, stderr := run(t, "diagnose", exPool, "--metrics", exProm, exFlags, "--out", out)
	if code != 0 || !strings.Contains(stdout, "Wrote "+out) {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	f, err := os.Open(filepath.Join(out, "overlay.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("overlay.png: %v", err)
	}
	for _, name := range []string{"report.html", "diagnosis.json", "fitted.yaml"} {
		if st, err := os.Stat(filepath.Join(out, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", name, err)
		}
	}
}

// TestDiagnoseJSON: --json prints one object with the documented fields,
// for metrics and for counts alike, and nothing else on stdout.
func TestDiagnoseJSON(t *testing.T) {
	for _, args := range [][]string{
		{"diagnose", exPool, "--metrics", exProm, exFlags, "--json"},
		{"diagnose", exPool, "--workers", "4", "--since", "30s", "--replications", "2", "--json"},
	} {
		code, stdout, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatalf("%v: not one JSON object: %v\n%s", args, err, stdout)
		}
		for _, path := range []string{"periodic.low", "periodic.high", "periodic.best", "poisson.low", "poisson.high", "poisson.best",
			"verdict", "assumed.peak", "assumed.since_s", "assumed.service_s", "assumed.wake_up_latency_s"} {
			var cur any = m
			for _, k := range strings.Split(path, ".") {
				if mm, ok := cur.(map[string]any); ok {
					cur = mm[k]
				} else {
					cur = nil
				}
			}
			if cur == nil {
				t.Errorf("%v: %s missing", args, path)
			}
		}
		if args[2] == "--workers" {
			// The count in the object is the one stderr states with the
			// time; the early stop's saving is there too.
			var sims, skipped int
			if _, err := fmt.Sscanf(stderr[strings.Index(stderr, "diagnose: "):], "diagnose: %d simulations in %s (%d skipped", &sims, new(string), &skipped); err != nil {
				t.Fatalf("%v: no count on stderr: %v\n%s", args, err, stderr)
			}
			var wantSkipped any // omitted when 0
			if skipped > 0 {
				wantSkipped = float64(skipped)
			}
			if sims == 0 || m["simulations"] != float64(sims) || m["skipped_simulations"] != wantSkipped {
				t.Errorf("%v: JSON simulations %v, skipped %v; stderr %q", args, m["simulations"], m["skipped_simulations"], stderr)
			}
		}
	}
}

// TestFitCommand: fit writes a scenario that run accepts; diagnose
// --write-scenario writes the same one.
func TestFitCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "fit.yaml"), filepath.Join(dir, "diag.yaml")
	if code, _, stderr := run(t, "fit", exPool, "--metrics", exJSON, exFlags, "--out", a); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, "diagnose", exPool, "--metrics", exJSON, exFlags, "--write-scenario", b); code != 0 {
		t.Fatalf("diagnose --write-scenario: exit %d: %s", code, stderr)
	}
	fa, _ := os.ReadFile(a)
	fb, _ := os.ReadFile(b)
	if string(fa) != string(fb) || !strings.Contains(string(fa), "rate: 29.3125") {
		t.Errorf("fit and --write-scenario differ, or lack the busy phase:\n%s\n----\n%s", fa, fb)
	}
	if code, _, stderr := run(t, "run", a, "--out", filepath.Join(dir, "out")); code != 0 {
		t.Errorf("run of the fitted scenario: exit %d: %s", code, stderr)
	}
	code, stdout, _ := run(t, "fit", exPool, "--metrics", exProm, exFlags)
	if code != 0 || !strings.HasPrefix(stdout, "# Fitted by poolsim") {
		t.Errorf("fit to stdout: exit %d: %q", code, stdout)
	}
}

// TestBadMetrics: bad or mismatched metric files are one-line errors naming
// the file, the series or line, and the problem, with exit code 2.
func TestBadMetrics(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noTime := write("notime.prom", "# TYPE executor_pool_size_threads gauge\nexecutor_pool_size_threads{name=\"a\"} 3.0\n")
	oneScrape := write("one.prom", "# scrape 1767323040\nexecutor_pool_size_threads{name=\"a\"} 3.0\nexecutor_completed_tasks_total{name=\"a\"} 3.0\n")
	badCSV := write("bad.csv", "time,series,value\n1767323040,executor_active_threads{name=a},1\n")
	other := write("other.prom", "# scrape 1767323040\nhttp_requests_total 3\n# scrape 1767323055\nhttp_requests_total 5\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics", filepath.Join(dir, "missing.prom")}, "missing.prom: cannot read the metrics file"},
		{[]string{"--metrics", exProm}, `tomcat-scrapes.prom: --pool: 2 pools in the file; choose one (pools found: executor{name="tomcat-exec"}, tomcat{name="http-nio-8080"}`},
		{[]string{"--metrics", exProm, "--metrics-pool", "nope"}, `tomcat-scrapes.prom: --pool: no pool matches "nope"`},
		{[]string{"--metrics", exProm, "--pool", "http-nio-8080"}, `tomcat-scrapes.prom: tomcat_threads_busy_threads{name="http-nio-8080"}: no completed-tasks counter`},
		{[]string{"--metrics", noTime}, `notime.prom:1: executor_pool_size_threads{name="a"}: a sample without a time`},
		{[]string{"--metrics", oneScrape}, `one.prom: executor_pool_size_threads{name="a"}: fewer than two samples in time`},
		{[]string{"--metrics", badCSV}, "bad.csv:2: executor_active_threads{name=a}: not a series and value"},
		{[]string{"--metrics", other}, "other.prom: no thread-pool series in the file (found http_requests_total)"},
		{[]string{"--metrics", exProm, exFlags, "--service-dist", "pareto"}, `--service-dist: unknown service law "pareto"`},
		{[]string{"--workers", "3", "--out", dir}, "--out needs --metrics"},
	} {
		code, stdout, stderr := run(t, append([]string{"diagnose", exPool}, tc.args...)...)
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

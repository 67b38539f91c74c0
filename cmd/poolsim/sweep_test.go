package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sweepScenario: a Tomcat pool with a bounded queue under Poisson traffic
// (4 busy workers on average); a run takes a few milliseconds. With max 2
// it rejects tasks; with max 8 it does not.
const sweepScenario = `name: sweep-cli
seed: 3
duration: 2m
warmup: 10s
sample: 10s
pool:
  preset: tomcat
  core: 2
  max: 8
  keepAlive: 10s
  queue: {type: tomcat, capacity: 20}
workload:
  arrivals: {process: poisson, rate: 40/s}
  service: {dist: exponential, mean: 100ms}
`

func sweepScenarioFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sweepCLI runs poolsim in-process and returns its exit code and output.
func sweepCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(context.Background(), append([]string{"poolsim"}, args...), &o, &e)
	return code, o.String(), e.String()
}

func TestSweepExitCodes(t *testing.T) {
	scen := sweepScenarioFile(t, sweepScenario)
	used := t.TempDir() // holds a finished sweep
	if code, _, stderr := sweepCLI(t, "sweep", scen, "--param", "pool.max=4,8", "--out", used); code != 0 {
		t.Fatalf("setup sweep: exit %d: %s", code, stderr)
	}
	notSweep := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		// A gate every point meets.
		{[]string{"sweep", scen, "--param", "pool.max=4,8", "--assert", "submitted > 0"}, 0, ""},
		// A gate the small pool fails: exit 1, the point listed with its figures.
		{[]string{"sweep", scen, "--param", "pool.max=2,8", "--assert", "rejected == 0"}, 1, "1 of 2 points fail --assert 'rejected == 0':\n  point 0  pool.max=2  (1 replications): rejected = "},
		// Two gates: each failing one is named.
		{[]string{"sweep", scen, "--param", "pool.max=2,8", "--assert", "rejected == 0", "--assert", "wait_p99_s < 1e-9"}, 1, "[rejected == 0] rejected = "},
		// A syntax error in the gate: exit 2 before anything runs.
		{[]string{"sweep", scen, "--param", "pool.max=4", "--assert", "rejected =="}, 2, "--assert rejected ==: "},
		// An unknown name, with a suggestion.
		{[]string{"sweep", scen, "--assert", "wait_p99 < 1"}, 2, `did you mean "wait_p99_s"?`},
		// Not a condition.
		{[]string{"sweep", scen, "--assert", "wait_p99_s + 1"}, 2, "--assert wait_p99_s + 1: "},
		// A value the key does not take.
		{[]string{"sweep", scen, "--param", "pool.max=8.5"}, 2, "pool.max takes integers"},
		// A value the scenario refuses, named by flag and point.
		{[]string{"sweep", scen, "--param", "pool.rejection=abort,discrad"}, 2, `--param pool.rejection=abort,discrad: pool.rejection: unknown value "discrad"`},
		// No scenario.
		{[]string{"sweep", "--param", "pool.max=4"}, 2, "exactly one scenario file"},
		// Two scenarios.
		{[]string{"sweep", scen, scen}, 2, "exactly one scenario file"},
		// A Kubernetes index passed as is.
		{[]string{"sweep", scen, "--shard", "0/2"}, 2, "JOB_COMPLETION_INDEX+1"},
		// No jobs.
		{[]string{"sweep", scen, "--jobs", "0"}, 2, "--jobs 0"},
		// Precision without its metric.
		{[]string{"sweep", scen, "--precision", "0.1"}, 2, "needs --metric"},
		// A negative precision.
		{[]string{"sweep", scen, "--precision", "-1", "--metric", "wait_p99_s"}, 2, "not a relative half-width"},
		// An unknown progress style.
		{[]string{"sweep", scen, "--progress", "fancy"}, 2, `--progress "fancy"`},
		// An unknown flag.
		{[]string{"sweep", scen, "--paramz", "x"}, 2, "--paramz"},
		// An unknown plot metric.
		{[]string{"sweep", scen, "--plots", "--plot-metric", "rejectd"}, 2, `did you mean "rejected"?`},
		// A directory holding a sweep, without --resume.
		{[]string{"sweep", scen, "--param", "pool.max=4,8", "--out", used}, 2, "already holds a sweep (add --resume"},
		// --resume of another sweep.
		{[]string{"sweep", scen, "--param", "pool.max=4,16", "--out", used, "--resume"}, 2, "--param: [pool.max=4,8] here, [pool.max=4,16] there"},
		// merge without directories.
		{[]string{"merge", "--out", t.TempDir()}, 2, "one or more sweep directories"},
		// merge without --out.
		{[]string{"merge", used}, 2, "Required flag"},
		// merge of a directory that holds no sweep.
		{[]string{"merge", notSweep, "--out", t.TempDir()}, 2, "not a sweep directory"},
	}
	for _, tc := range tests {
		args := tc.args
		if args[0] == "sweep" && !sweepContains(args, "--out") {
			args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
		}
		code, _, stderr := sweepCLI(t, args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("poolsim %s: exit %d, stderr:\n%s\nwant exit %d with %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "internal error") {
			t.Errorf("poolsim %s: a panic:\n%s", strings.Join(tc.args, " "), stderr)
		}
		if tc.code == 2 && strings.Contains(tc.want, "--assert") {
			if _, err := os.Stat(args[len(args)-1]); !os.IsNotExist(err) {
				t.Errorf("poolsim %s: a bad gate still ran the sweep", strings.Join(tc.args, " "))
			}
		}
	}
}

func sweepContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// --junit writes one test case per point; failing points carry a failure
// with the figures.
func TestSweepJUnit(t *testing.T) {
	scen := sweepScenarioFile(t, sweepScenario)
	dir := t.TempDir()
	junit := filepath.Join(dir, "reports", "junit.xml")
	code, _, stderr := sweepCLI(t, "sweep", scen, "--param", "pool.max=2,3,8", "-r", "2", "--assert", "rejected == 0", "--junit", junit, "--out", filepath.Join(dir, "out"))
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name     string `xml:"name,attr"`
				Failures []struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Out string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, data)
	}
	failing := strings.Count(stderr, "\n  point ")
	if doc.Tests != 3 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 3 || doc.Failures != failing || failing == 0 {
		t.Fatalf("JUnit: %d tests, %d failures (stderr lists %d):\n%s", doc.Tests, doc.Failures, failing, data)
	}
	c := doc.Suites[0].Cases
	if c[0].Name != "point 0: pool.max=2" || len(c[0].Failures) != 1 || c[0].Failures[0].Message != "assert failed: rejected == 0" ||
		!strings.HasPrefix(c[0].Failures[0].Text, "rejected = ") || !strings.Contains(c[0].Out, "(2 replications, seeds ") {
		t.Errorf("first test case: %+v", c[0])
	}
	if len(c[2].Failures) != 0 {
		t.Errorf("pool.max=8 fails: %+v", c[2])
	}
	found := false
	for _, p := range doc.Suites[0].Properties {
		found = found || (p.Name == "assert" && p.Value == "rejected == 0")
	}
	if !found {
		t.Errorf("the gate is not among the properties: %+v", doc.Suites[0].Properties)
	}
}

// Progress is plain lines when stderr is not a terminal, a bar on request.
func TestSweepProgress(t *testing.T) {
	scen := sweepScenarioFile(t, sweepScenario)
	code, stdout, stderr := sweepCLI(t, "sweep", scen, "--param", "pool.max=4,8,16", "--out", filepath.Join(t.TempDir(), "o"), "--jobs", "2")
	if code != 0 || !strings.Contains(stderr, "sweep: 3 points to run, 2 jobs\n") || !strings.Contains(stderr, "sweep: 3/3 points (100%)") {
		t.Errorf("progress lines: exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "sweep sweep-cli: 3 points, 3 simulations in ") {
		t.Errorf("summary:\n%s", stdout)
	}
	code, _, stderr = sweepCLI(t, "sweep", scen, "--param", "pool.max=4,8,16", "--out", filepath.Join(t.TempDir(), "o"), "--progress", "bar")
	if code != 0 || !strings.Contains(stderr, "100%") || !strings.Contains(stderr, "(3/3") {
		t.Errorf("progress bar: exit %d, stderr:\n%q", code, stderr)
	}
	code, _, stderr = sweepCLI(t, "sweep", scen, "--out", filepath.Join(t.TempDir(), "o"), "--progress", "none")
	if code != 0 || stderr != "" {
		t.Errorf("no progress: exit %d, stderr:\n%q", code, stderr)
	}
}

// --precision reports how many replications the points used.
func TestSweepPrecisionCLI(t *testing.T) {
	scen := sweepScenarioFile(t, sweepScenario)
	dir := filepath.Join(t.TempDir(), "o")
	code, stdout, stderr := sweepCLI(t, "sweep", scen, "--param", "pool.max=3,8", "--precision", "0.2", "--metric", "wait_mean_s", "--max-replications", "30", "--out", dir)
	re := regexp.MustCompile(`precision ±20% on wait_mean_s reached at (\d) of 2 points; replications per point (\d+)–(\d+)`)
	m := re.FindStringSubmatch(stdout)
	if code != 0 || m == nil {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if lo, _ := strconv.Atoi(m[2]); lo < 5 {
		t.Errorf("a point used %d replications, fewer than the default first batch of 5", lo)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "sweep.csv"))
	if !strings.Contains(strings.SplitN(string(csv), "\n", 2)[0], "replications,precision_reached,") {
		t.Errorf("sweep.csv header: %s", strings.SplitN(string(csv), "\n", 2)[0])
	}
}

// --plots draws lines for one parameter, a heatmap for two, and says why
// there is no chart otherwise.
func TestSweepPlots(t *testing.T) {
	scen := sweepScenarioFile(t, sweepScenario)
	for _, tc := range []struct {
		params []string
		chart  bool
	}{
		{[]string{"pool.max=2,4,8"}, true},                                         // lines with error bars
		{[]string{"pool.max=2,4,8", "workload.arrivals.rate=20,40"}, true},         // a heatmap
		{[]string{"pool.max=2,8", "pool.rejection=abort,discard"}, true},           // a line per policy
		{[]string{"pool.max=2,8", "pool.core=1,2", "pool.keepAlive=1s,2s"}, false}, // three parameters
	} {
		dir := filepath.Join(t.TempDir(), "o")
		args := []string{"sweep", scen, "-r", "2", "--plots", "--plot-metric", "rejected", "--out", dir}
		for _, p := range tc.params {
			args = append(args, "--param", p)
		}
		code, stdout, stderr := sweepCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.params, code, stderr)
		}
		f, err := os.Open(filepath.Join(dir, "plots", "rejected.png"))
		if !tc.chart {
			if err == nil || !strings.Contains(stderr, "no plot of rejected: no chart for this sweep: charts show one or two swept parameters") {
				t.Errorf("%v: stderr %q", tc.params, stderr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.params, err, stdout)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != 1200 || !strings.Contains(stdout, "plot      ") {
			t.Errorf("%v: PNG %v %v", tc.params, cfg, err)
		}
	}
}

// The merge of shards run by the command equals the unsharded sweep, byte
// for byte, and merge runs the gates.
func TestSweepMergeCLI(t *testing.T) {
	scen := sweepScenarioFile(t, sweepScenario)
	base := t.TempDir()
	args := []string{"sweep", scen, "--param", "pool.max=2:8:4", "--param", "workload.arrivals.rate=20/s,40/s", "-r", "2", "--progress", "none"}
	if code, _, e := sweepCLI(t, append(args, "--out", filepath.Join(base, "whole"))...); code != 0 {
		t.Fatal(e)
	}
	var shards []string
	for i := 1; i <= 3; i++ {
		d := filepath.Join(base, "shard"+strconv.Itoa(i))
		if code, _, e := sweepCLI(t, append(args, "--out", d, "--shard", strconv.Itoa(i)+"/3", "--jobs", "1")...); code != 0 {
			t.Fatal(e)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(base, "merged")
	code, stdout, stderr := sweepCLI(t, append([]string{"merge", "--out", merged, "--assert", "rejected == 0"}, shards...)...)
	if code != 1 || !strings.Contains(stdout, "merged 3 directories: 8 points") || !strings.Contains(stderr, "point 0  pool.max=2 workload.arrivals.rate=20/s") {
		t.Errorf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"sweep.csv", "sweep.json", "manifest.json"} {
		a, _ := os.ReadFile(filepath.Join(base, "whole", f))
		b, _ := os.ReadFile(filepath.Join(merged, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: merged (%d bytes) differs from unsharded (%d bytes)", f, len(b), len(a))
		}
	}
}

// A sweep killed with SIGKILL mid-way resumes without redoing or
// duplicating points and ends byte-identical to an uninterrupted sweep;
// SIGTERM stops it cleanly (exit 130, saying how to resume). These run
// the real binary.
func TestSweepSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the poolsim binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if _, err := os.Stat(goTool); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no go tool to build poolsim with (CI=true): %v", err)
		}
		t.Skipf("no go tool to build poolsim with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "poolsim")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// 20-minute runs at 100 tasks/s: tens of milliseconds each, 120 in all.
	scen := sweepScenarioFile(t, strings.NewReplacer("duration: 2m", "duration: 20m", "rate: 40/s", "rate: 100/s", "max: 8", "max: 30").Replace(sweepScenario))
	args := []string{"sweep", scen, "--param", "pool.max=12:40:15", "--param", "pool.keepAlive=1s,10s,60s,120s", "-r", "2", "--jobs", "2", "--progress", "lines"}
	const points = 60
	run := func(extra ...string) (int, string, string) {
		cmd := exec.Command(bin, append(append([]string{}, args...), extra...)...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), o.String(), e.String()
	}
	ref := filepath.Join(t.TempDir(), "ref")
	if code, _, e := run("--out", ref); code != 0 {
		t.Fatalf("reference sweep: exit %d: %s", code, e)
	}
	refFiles := readTree(t, ref)

	// start runs the sweep into dir and returns once at least n points are
	// saved.
	start := func(dir string, n int) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, append(append([]string{}, args...), "--out", dir)...)
		e := new(bytes.Buffer)
		cmd.Stderr = e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for countPoints(dir) < n {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("no %d points after 2 minutes: %s", n, e.String())
			}
			time.Sleep(2 * time.Millisecond)
		}
		return cmd, e
	}
	resume := func(dir string, finished int) {
		t.Helper()
		code, stdout, stderr := run("--out", dir, "--resume")
		want := "; " + strconv.Itoa(finished) + " points were already finished (resumed)"
		wantSims := strconv.Itoa(2*(points-finished)) + " simulations"
		if code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, wantSims) {
			t.Errorf("resume: exit %d; want %q and %q in\n%s%s", code, want, wantSims, stdout, stderr)
		}
		got := readTree(t, dir)
		for name, b := range refFiles {
			if !bytes.Equal(got[name], b) {
				t.Errorf("after resuming, %s differs from the uninterrupted sweep's", name)
			}
		}
		for name := range got {
			if _, ok := refFiles[name]; !ok {
				t.Errorf("after resuming, an extra file %s", name)
			}
		}
	}

	t.Run("SIGKILL", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "killed")
		cmd, _ := start(dir, 6)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		finished := countPoints(dir)
		t.Logf("killed with %d of %d points saved", finished, points)
		if finished >= points {
			t.Fatalf("the sweep finished (%d points) before it was killed: the test needs longer runs", finished)
		}
		if _, err := os.Stat(filepath.Join(dir, "sweep.csv")); err == nil {
			t.Fatalf("a killed sweep wrote sweep.csv")
		}
		resume(dir, finished)
	})
	t.Run("SIGTERM", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "stopped")
		cmd, stderr := start(dir, 4)
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupt {
			t.Fatalf("SIGTERM: %v; want exit %d\n%s", err, exitInterrupt, stderr)
		}
		finished := countPoints(dir)
		t.Logf("stopped with %d of %d points saved", finished, points)
		want := "poolsim: sweep interrupted: " + strconv.Itoa(finished) + " of 60 points finished and saved in " + filepath.Join(dir, "points") + "; run the same command with --resume to continue\n"
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("SIGTERM: stderr\n%s\nwant %q", stderr, want)
		}
		ents, _ := os.ReadDir(filepath.Join(dir, "points"))
		for _, en := range ents {
			if strings.HasPrefix(en.Name(), ".") {
				t.Errorf("a clean stop left %s", en.Name())
			}
		}
		resume(dir, finished)
	})
}

// countPoints counts finished point files (not temporary ones).
func countPoints(dir string) int {
	ents, _ := os.ReadDir(filepath.Join(dir, "points"))
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// readTree reads every file under dir but the lock.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || info.Name() == ".lock" {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

package scenarios_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/workloads"
)

// fuzzDir is a scenario folder for the fuzzers: a trace and a samples file
// that relative paths in fuzzed scenarios may name (issue 6: fuzz every
// parser, seeded from real files).
func fuzzDir(t testing.TB) string {
	dir := t.TempDir()
	files := map[string]string{
		"t.csv":       "arrival_s,service_s,priority,fail\n0,1,0,0\n0.5,0.25,3,1\n2,0.5,1,0\n",
		"samples.csv": "service_s,other\n0.1,x\n0.2,y\n0.05,z\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The files the bundled scenarios name (access logs).
	logs, _ := filepath.Glob("examples/logs/*")
	if err := os.Mkdir(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "logs", filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fuzzSeeds are the bundled scenarios plus hand-made ones that reach the
// trace, empirical, events and limits branches.
func fuzzSeeds(f *testing.F) [][]byte {
	files, err := filepath.Glob("examples/*.yaml")
	if err != nil || len(files) == 0 {
		f.Fatalf("no bundled scenarios to seed from: %v", err)
	}
	var seeds [][]byte
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return append(seeds,
		[]byte("pool: {preset: cached}\nworkload: {trace: t.csv}\n"),
		[]byte("pool: {preset: fixed, core: 2}\nduration: 1m\nworkload: {arrivals: {process: onoff, rate: 5/s, on: 1s, off: 2s}, service: {dist: empirical, file: samples.csv}}\n"),
		[]byte("pool: {core: 1, max: 4, queue: {type: priority}}\nduration: 30s\nwarmup: 5s\nworkload: {arrivals: {process: constant, rate: 90/min}, service: {dist: pareto, mean: 1s, alpha: 2.5}, priority: {min: 0, max: 3}}\nevents:\n  - {at: 10s, set: {core: 2, max: 6, keepAlive: 5s, allowCoreThreadTimeOut: true}}\n  - {at: 20s, shutdown: now}\nsnapshots: [15s]\nlimits: {maxThreads: 3, maxQueued: 100}\n"),
		[]byte("pool: {preset: tomcat, core: 5, max: 10}\nduration: 1h\nworkload:\n  phases:\n    - {duration: 10m, arrivals: {process: burst, count: 50, every: 1m}, service: {dist: weibull, mean: 2s, cv: 0.5}}\n    - {arrivals: {process: poisson, rate: 1}, service: {dist: uniform, min: 1ms, max: 3s}}\n  failure: 0.1\n"),
	)
}

// FuzzParse: no scenario text and no --set override makes Parse panic; an
// error is always an input error; a scenario that loads is valid, reads
// back the same from its own Text (--set equals editing the file), and
// runs its first events without breaking an invariant.
func FuzzParse(f *testing.F) {
	sets := []string{"", "pool.core=3", "seed=7\nduration=90s", "workload.phases.0.arrivals.rate=3/s", "pool.queue={type: array, capacity: 5}", "limits.maxQueued=10"}
	for i, s := range fuzzSeeds(f) {
		f.Add(s, sets[i%len(sets)])
	}
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var overrides []string
		if set != "" {
			overrides = strings.Split(set, "\n")
		}
		path := filepath.Join(dir, "f.yaml")
		sc, err := scenarios.Parse(data, path, overrides)
		if err != nil {
			checkInputError(t, err)
			return
		}
		checkValid(t, sc)
		if len(overrides) > 0 {
			edited, err := sc.EditedText()
			if err != nil {
				t.Fatalf("the scenario's edited text: %v", err)
			}
			again, err := scenarios.Parse(edited, path, nil)
			if err != nil {
				t.Fatalf("the scenario's edited text does not load: %v\n%s", err, edited)
			}
			a, b := *sc, *again
			a.Text, b.Text = nil, nil
			a.Sets, b.Sets = nil, nil
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("--set differs from editing the file:\n  set:  %+v\n  text: %+v", a, b)
			}
		}
		runBriefly(t, sc)
	})
}

// FuzzEmpirical: any bytes as the samples file of an empirical service law
// give a scenario or an input error, never a panic.
func FuzzEmpirical(f *testing.F) {
	f.Add([]byte("service_s\n0.1\n0.2\n"), "service_s")
	f.Add([]byte("# comment\nservice_s,x\n1,2\n3,\n"), "x")
	f.Add([]byte("a,b\n\"1\n2\",3\n"), "a")
	f.Add([]byte("service_s\n-1\n"), "service_s")
	f.Add([]byte("service_s\nNaN\n"), "service_s")
	f.Add([]byte("\xef\xbb\xbfservice_s\n1e308\n"), "service_s")
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte, column string) {
		if err := os.WriteFile(filepath.Join(dir, "fz.csv"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		y := "pool: {preset: fixed, core: 2}\nduration: 10s\nworkload: {arrivals: {process: poisson, rate: 10}, service: {dist: empirical, file: fz.csv, column: " + yamlQuote(column) + "}}\n"
		sc, err := scenarios.Parse([]byte(y), filepath.Join(dir, "e.yaml"), nil)
		if err != nil {
			checkInputError(t, err)
			return
		}
		checkValid(t, sc)
		for _, x := range sc.Workload.Phases[0].Service.Samples {
			if !(x >= 0) || x > workloads.MaxSeconds {
				t.Fatalf("sample %v accepted", x)
			}
		}
		runBriefly(t, sc)
	})
}

// FuzzTraceScenario: any bytes as a scenario's trace give a scenario or an
// input error; a trace that loads runs.
func FuzzTraceScenario(f *testing.F) {
	f.Add([]byte("arrival_s,service_s\n0,1\n2,0.5\n"))
	f.Add([]byte("service_s,arrival_s,fail\n1,0,1\n"))
	f.Add([]byte("arrival_s,service_s\n2,1\n1,1\n"))
	f.Add([]byte("arrival_s,service_s\n1e18,1\n"))
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "ft.csv"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		y := []byte("pool: {preset: cached}\nworkload: {trace: ft.csv}\n")
		sc, err := scenarios.Parse(y, filepath.Join(dir, "t.yaml"), nil)
		if err != nil {
			checkInputError(t, err)
			return
		}
		checkValid(t, sc)
		runBriefly(t, sc)
	})
}

func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			b.WriteString(`\x20`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// checkInputError: bad input is reported as one located input error.
func checkInputError(t *testing.T, err error) {
	t.Helper()
	var ie *inputerr.Error
	if !errors.As(err, &ie) {
		t.Fatalf("%T is not an input error: %v", err, err)
	}
	if ie.Msg == "" || ie.File == "" {
		t.Fatalf("input error without a file or a message: %#v", ie)
	}
}

// checkValid: what Parse accepts is what the contract promises (CONTRACT.md
// §1) and what the JDK constructor accepts (R2).
func checkValid(t *testing.T, sc *scenarios.Scenario) {
	t.Helper()
	if sc.Name == "" {
		t.Fatal("empty name")
	}
	if sc.Duration <= 0 || sc.Sample <= 0 || sc.Warmup < 0 || sc.Warmup >= sc.Duration {
		t.Fatalf("times: duration %v sample %v warmup %v", sc.Duration, sc.Sample, sc.Warmup)
	}
	if err := sc.Pool.Config.Validate(); err != nil {
		t.Fatalf("accepted a pool the JDK refuses: %v", err)
	}
	for i, ev := range sc.Events {
		if ev.At < 0 || ev.At > sc.Duration || (i > 0 && ev.At < sc.Events[i-1].At) {
			t.Fatalf("event %d at %v out of order or outside [0, %v]", i, ev.At, sc.Duration)
		}
	}
	for _, at := range sc.Snapshots {
		if at < 0 || at > sc.Duration {
			t.Fatalf("snapshot at %v outside [0, %v]", at, sc.Duration)
		}
	}
	if sc.Limits.MaxQueued < 0 || sc.Pool.ThreadLimit < 0 {
		t.Fatalf("negative limits %+v, thread limit %d", sc.Limits, sc.Pool.ThreadLimit)
	}
}

// runBriefly runs sc with a cancelled context, which stops it after its
// first block of events, checking the model's invariants after each one.
// The OS grants at most 1000 threads here: the invariant checks visit
// every worker after every event: a prestarted core of 100 000 takes 13 s
// on a busy machine, and such inputs stalled the fuzzer for half a minute.
func runBriefly(t *testing.T, sc *scenarios.Scenario) {
	t.Helper()
	if sc.Pool.ThreadLimit == 0 || sc.Pool.ThreadLimit > 1000 {
		sc.Pool.ThreadLimit = 1000
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var tl, snaps bytes.Buffer
	res, err := sim.Run(ctx, sc, sim.Options{Timeline: &tl, Snapshots: &snaps, CheckInvariants: true})
	if err != nil {
		checkInputError(t, err)
		return
	}
	s := res.Summary
	if s.Submitted != s.Completed+s.CallerRan+s.Discarded+s.QueuedEnd+s.RunningEnd {
		t.Fatalf("conservation broken: %+v", s)
	}
}

// TestLoadBounds pins the loader's limits, each found by the fuzzers or by
// feeding it /dev/zero: every case used to exhaust memory (a Go stack
// trace), return a non-input error, or silently accept a value.
func TestLoadBounds(t *testing.T) {
	dir := fuzzDir(t)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "pool: {preset: fixed, core: 2}\nduration: 10s\n"
	aliases := head + "workload:\n  phases:\n    - &p {duration: 1s, arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\n" +
		strings.Repeat("    - *p\n", 100_000)
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string // the scenario file
		want string // the error's text
	}{
		// 9 MiB of comments: no hand-written scenario is that large.
		{"huge file", write("huge.yaml", strings.Repeat("# padding padding padding padding\n", 9<<20/34)),
			"huge.yaml: larger than 8388608 bytes: not a scenario (a YAML scenario)"},
		// 100 001 phases through one anchor: 1.3 million values.
		{"alias expansion", write("alias.yaml", aliases),
			"alias.yaml: more than 1000000 YAML values once aliases are expanded (a scenario of reasonable size)"},
		// A samples file with an endless line.
		{"samples line", write("sl.yaml", head+"workload: {arrivals: {process: poisson, rate: 1}, service: {dist: empirical, file: long.csv}}\n"),
			"long.csv:2: line longer than 1048576 bytes (a CSV column of service times)"},
		// A sample beyond 100 years used to be clamped silently.
		{"sample beyond 100 years", write("sb.yaml", head+"workload: {arrivals: {process: poisson, rate: 1}, service: {dist: empirical, file: big.csv}}\n"),
			`big.csv:3:1: service_s: not a service time: "1e301" (seconds from 0 to 3153600000 (100 years))`},
		// A directory as the samples file: a read error (exit 1), now an
		// input error at the file's key.
		{"samples directory", write("sd.yaml", head+"workload: {arrivals: {process: poisson, rate: 1}, service: {dist: empirical, file: adir}}\n"),
			"sd.yaml:3:84: workload.service.file: cannot open samples: is a directory (a CSV file, relative to the scenario's folder)"},
		// The same for a trace and an access log.
		{"trace directory", write("td.yaml", "pool: {preset: cached}\nworkload: {trace: adir}\n"),
			"td.yaml:2:19: workload.trace: cannot open trace: is a directory (a CSV trace, relative to the scenario's folder)"},
		{"access log directory", write("ad.yaml", head+"workload: {accesslog: {file: adir, pattern: '%h %t %D', durationUnit: us}}\n"),
			"ad.yaml:3:30: workload.accesslog.file: cannot open access log: is a directory (an access log, relative to the scenario's folder)"},
		// Faster than one task per nanosecond: arrivals piled up at t=0 forever.
		{"rate beyond the clock", write("r.yaml", head+"workload: {arrivals: {process: poisson, rate: 2e9}, service: {dist: constant, value: 1ms}}\n"),
			`r.yaml:3:47: workload.arrivals.rate: "2e9" is faster than the clock: more than one task per nanosecond (a number per second, or N/s, N/min, N/h; at most 1e9/s)`},
		// A missing access log is located at its key (it was a plain error, exit 1).
		{"access log missing", write("al.yaml", head+"workload: {accesslog: {file: nope.log, pattern: common, durationUnit: us}}\n"),
			"al.yaml:3:30: workload.accesslog.file: cannot open access log: no such file or directory (an access log, relative to the scenario's folder)"},
	}
	write("long.csv", "service_s\n"+strings.Repeat("1", 2<<20)+"\n")
	write("big.csv", "service_s\n1\n1e301\n")
	for _, tt := range tests {
		_, err := scenarios.Load(tt.path, nil)
		if err == nil || !inputerr.Is(err) || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant …%s", tt.name, err, tt.want)
		}
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := scenarios.Load("/dev/zero", nil)
		if want := "/dev/zero: larger than 8388608 bytes: not a scenario (a YAML scenario)"; err == nil || err.Error() != want {
			t.Errorf("/dev/zero: got %v, want %s", err, want)
		}
	}
}

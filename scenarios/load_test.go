package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/model"
)

const minimal = "pool: {preset: fixed, core: 4}\nworkload: {arrivals: {process: poisson, rate: 10}, service: {dist: exponential, mean: 50ms}}\nduration: 1m\n"

func TestLoadDefaults(t *testing.T) {
	sc, err := Parse([]byte(minimal), "dir/min.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "min" || sc.Seed != 1 || sc.Sample != time.Second*60/100 || sc.Warmup != 0 {
		t.Errorf("defaults: name %q seed %d sample %v warmup %v", sc.Name, sc.Seed, sc.Sample, sc.Warmup)
	}
	want := model.Config{Core: 4, Max: 4, Queue: model.Linked, QueueCapacity: model.Unbounded}
	if sc.Pool.Config != want || sc.Pool.Preset != "fixed" || sc.Pool.ThreadNamePrefix != "pool-1-thread-" {
		t.Errorf("pool %+v, want %+v", sc.Pool, want)
	}
}

// TestPresetsExact: each preset has the exact parameters of the factory or
// server default it stands for (spec R73, R74, R81–R83, P1, P2).
func TestPresetsExact(t *testing.T) {
	tests := []struct {
		pool string
		want model.Config
	}{
		// newFixedThreadPool(5): TPE(5, 5, 0, LBQ()).
		{"{preset: fixed, core: 5}", model.Config{Core: 5, Max: 5, Queue: model.Linked, QueueCapacity: model.Unbounded}},
		// newCachedThreadPool(): TPE(0, MAX, 60s, SynchronousQueue()).
		{"{preset: cached}", model.Config{Max: model.Unbounded, KeepAlive: time.Minute, Queue: model.Synchronous}},
		// newSingleThreadExecutor(): TPE(1, 1, 0, LBQ()) behind a wrapper without setters (R82).
		{"{preset: single}", model.Config{Core: 1, Max: 1, Queue: model.Linked, QueueCapacity: model.Unbounded, Delegated: true}},
		// Tomcat connector: minSpareThreads 10, maxThreads 200, 60 s, TaskQueue(MAX).
		{"{preset: tomcat}", model.Config{Flavor: model.Tomcat, Core: 10, Max: 200, KeepAlive: time.Minute, Queue: model.TaskQueue, QueueCapacity: model.Unbounded, Prestart: true}},
		// Tomcat <Executor>: minSpareThreads 25.
		{"{preset: tomcat-executor}", model.Config{Flavor: model.Tomcat, Core: 25, Max: 200, KeepAlive: time.Minute, Queue: model.TaskQueue, QueueCapacity: model.Unbounded, Prestart: true}},
		// Tomcat clamps core to max (getMinSpareThreads, R73).
		{"{preset: tomcat, core: 50, max: 20}", model.Config{Flavor: model.Tomcat, Core: 20, Max: 20, KeepAlive: time.Minute, Queue: model.TaskQueue, QueueCapacity: model.Unbounded, Prestart: true}},
		// Spring Boot: core 8, max MAX, queue MAX, allowCoreThreadTimeOut, 60 s.
		{"{preset: spring-boot}", model.Config{Core: 8, Max: model.Unbounded, KeepAlive: time.Minute, CoreTimeOut: true, Queue: model.Linked, QueueCapacity: model.Unbounded}},
		// Spring ThreadPoolTaskExecutor: core 1, max MAX, 60 s.
		{"{preset: spring}", model.Config{Core: 1, Max: model.Unbounded, KeepAlive: time.Minute, Queue: model.Linked, QueueCapacity: model.Unbounded}},
		// jdk: explicit sizes, default queue and keepAlive.
		{"{core: 2, max: 3}", model.Config{Core: 2, Max: 3, KeepAlive: time.Minute, Queue: model.Linked, QueueCapacity: model.Unbounded}},
	}
	for _, tt := range tests {
		y := "pool: " + tt.pool + "\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\nduration: 1m\n"
		sc, err := Parse([]byte(y), "p.yaml", nil)
		if err != nil {
			t.Errorf("%s: %v", tt.pool, err)
			continue
		}
		if sc.Pool.Config != tt.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.pool, sc.Pool.Config, tt.want)
		}
	}
}

// TestLoadErrors: bad scenarios get file:line:col, the key, and what is
// allowed.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
		sets             []string
	}{
		{"unknown top key", "pool: {preset: fixed, core: 1}\nworkloads: {}\n", `s.yaml:2:1: workloads: unknown key "workloads"; did you mean "workload"?`, nil},
		{"unknown nested key", "pool:\n  preset: fixed\n  core: 1\n  queue: {type: linked, capacty: 3}\n", `s.yaml:4:25: pool.queue.capacty: unknown key "capacty"; did you mean "capacity"?`, nil},
		{"negative core", "pool: {core: -1, max: 2}\n", "s.yaml:1:14: pool.core: must be >= 0, got -1", nil},
		{"max below core", "pool: {core: 5, max: 2}\n", "s.yaml:1:22: pool.max: must be >= core (5), got 2", nil},
		{"zero max", "pool: {core: 0, max: 0}\n", "s.yaml:1:22: pool.max: must be > 0, got 0", nil},
		{"negative keepAlive", "pool: {core: 1, max: 2, keepAlive: -5s}\n", "s.yaml:1:36: pool.keepAlive: must be >= 0, got -5s", nil},
		{"core timeout with keepAlive 0", "pool: {core: 1, max: 2, keepAlive: 0s, allowCoreThreadTimeOut: true}\n", "s.yaml:1:64: pool.allowCoreThreadTimeOut: needs keepAlive > 0", nil},
		{"zero capacity", "pool: {core: 1, max: 2, queue: {type: array, capacity: 0}}\n", "s.yaml:1:56: pool.queue.capacity: must be in 1..2147483647, got 0", nil},
		{"unknown queue", "pool: {core: 1, max: 2, queue: {type: linkd}}\n", `s.yaml:1:39: pool.queue.type: unknown value "linkd"; did you mean "linked"?`, nil},
		{"unknown policy", "pool: {core: 1, max: 2, rejection: callerruns}\n", `s.yaml:1:36: pool.rejection: unknown value "callerruns"; did you mean "caller-runs"?`, nil},
		{"unknown preset", "pool: {preset: tomact}\n", `s.yaml:1:16: pool.preset: unknown value "tomact"; did you mean "tomcat"?`, nil},
		{"jdk needs max", "pool: {core: 1}\n", "s.yaml:1:7: pool.max: missing", nil},
		{"fixed with other max", "pool: {preset: fixed, core: 4, max: 8}\n", "s.yaml:1:37: pool.max: newFixedThreadPool(n) has max == core", nil},
		{"not an int", "pool: {core: many, max: 2}\n", `s.yaml:1:14: pool.core: not an integer: "many"`, nil},
		{"bad duration", "duration: 10 minutes\n", `s.yaml:1:11: duration: not a duration: "10 minutes"`, nil},
		{"bad rate", "pool: {preset: fixed, core: 1}\nworkload: {arrivals: {process: poisson, rate: fast}, service: {dist: constant, value: 1s}}\n", `s.yaml:2:47: workload.arrivals.rate: not a rate: "fast"`, nil},
		{"cv on exponential", "pool: {preset: fixed, core: 1}\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: exponential, mean: 1s, cv: 2}}\n", `s.yaml:2:90: workload.service.cv: does not apply to the distribution exponential`, nil},
		{"lognormal cv 0", "pool: {preset: fixed, core: 1}\nduration: 1m\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: lognormal, mean: 1s, cv: 0}}\n", `s.yaml:3:92: workload.service.cv: must be > 0, got 0`, nil},
		{"pareto alpha 1", "pool: {preset: fixed, core: 1}\nduration: 1m\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: pareto, mean: 1s, alpha: 1}}\n", `s.yaml:3:92: workload.service.alpha: must be > 1 for a finite mean, got 1`, nil},
		{"missing service", "pool: {preset: fixed, core: 1}\nworkload: {arrivals: {process: poisson, rate: 1}}\n", "s.yaml:2:11: workload.service: missing", nil},
		{"events out of order", minimal + "events:\n  - {at: 30s, set: {core: 2}}\n  - {at: 10s, set: {core: 3}}\n", "s.yaml:6:10: events[1].at: 10s is before the previous event's 30s", nil},
		{"event after end", minimal + "events:\n  - {at: 2m, shutdown: graceful}\n", "s.yaml:5:10: events[0].at: 2m0s is after the end of the run (1m0s)", nil},
		{"event core above max", minimal + "events:\n  - {at: 10s, set: {core: 9}}\n", "s.yaml:5:27: events[0].set.core: at 10s: must be in 0..max (4), got 9", nil},
		{"event does nothing", minimal + "events:\n  - {at: 10s}\n", "s.yaml:5:5: events[0]: does nothing", nil},
		// newSingleThreadExecutor()'s wrapper hides every setter, keepAlive's too (R82).
		{"single setter", strings.Replace(minimal, "{preset: fixed, core: 4}", "{preset: single}", 1) + "events:\n  - {at: 10s, set: {keepAlive: 5s}}\n",
			"s.yaml:5:32: events[0].set.keepAlive: at 10s: newSingleThreadExecutor() hides the setters (R82)", nil},
		// Several setters in one event are applied in an order the JDK accepts (R21, R22).
		{"lower max below a raised core", minimal + "events:\n  - {at: 10s, set: {core: 8, max: 6}}\n",
			"s.yaml:5:27: events[0].set.core: at 10s: must be in 0..max (6), got 8", nil},
		{"snapshot after end", minimal + "snapshots: [5m]\n", "s.yaml:4:13: snapshots[0]: 5m0s is after the end of the run (1m0s)", nil},
		{"duplicate key", "pool: {preset: fixed, core: 1, core: 2}\n", "s.yaml:1:32: pool.core: key given twice (first at line 1)", nil},
		{"yaml syntax", "pool: {preset: fixed\n", "s.yaml:1: invalid YAML: did not find expected ',' or '}'", nil},
		{"not a mapping", "- just\n- a list\n", "s.yaml:1:1: a scenario must be a mapping of keys, got a list", nil},
		{"bad --set value", minimal, `--set pool.core=lots: pool.core: not an integer: "lots"`, []string{"pool.core=lots"}},
		{"--set without =", minimal, "--set pool.core: expected KEY=VALUE", []string{"pool.core"}},
		{"--set unknown key", minimal, `--set pool.cores=3: pool.cores: unknown key "cores"; did you mean "core"?`, []string{"pool.cores=3"}},
		{"warmup too long", minimal + "warmup: 2m\n", "s.yaml:4:9: warmup: 2m0s is not shorter than the duration 1m0s", nil},
		{"missing duration", "pool: {preset: fixed, core: 1}\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1s}}\n", "s.yaml:1:1: duration: missing", nil},
		{"tomcat prestart off", "pool: {preset: tomcat, prestart: false}\n", "s.yaml:1:34: pool.prestart: Tomcat's constructor always prestarts", nil},
		{"two workload forms", "pool: {preset: fixed, core: 1}\nworkload: {trace: x.csv, arrivals: {process: poisson, rate: 1}}\n", "s.yaml:2:19: workload.trace: cannot open trace", nil},
	}
	for _, tt := range tests {
		wantParseError(t, tt.name, "s.yaml", tt.yaml, tt.sets, tt.want)
	}
}

// TestOverrideEqualsEdit: --set pool.core=20 gives the same scenario as
// editing the file.
func TestOverrideEqualsEdit(t *testing.T) {
	a, err := Parse([]byte(minimal), "s.yaml", []string{"pool.core=7", "workload.arrivals.rate=3/s", "seed=9", "pool.queue={type: array, capacity: 3}"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte("pool: {preset: fixed, core: 7, queue: {type: array, capacity: 3}}\nworkload: {arrivals: {process: poisson, rate: 3}, service: {dist: exponential, mean: 50ms}}\nduration: 1m\nseed: 9\n"), "s.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Text, b.Text = nil, nil
	if a.Pool != b.Pool || a.Seed != b.Seed || !reflect.DeepEqual(a.Workload, b.Workload) {
		t.Errorf("override %+v\n    edit %+v", a, b)
	}
}

// TestEditedTextKeepsBlockScalars: the edited text of a scenario with
// --set overrides reads back the same description whatever block scalar
// gave it, including a folded one with a more-indented line, which the
// YAML encoder writes back with an extra blank line in folded style
// (CI's fuzzing found it).
func TestEditedTextKeepsBlockScalars(t *testing.T) {
	for _, desc := range []string{
		"description: >\n  a\n   b\n",       // "a\n b\n": more indented
		"description: >\n  a\n  b\n\n  c\n", // "a b\nc\n": folded as it should
		"description: |\n  a\n   b\n",       // literal
		"description: >-\n  x\n\n   y\n  z\n",
		"description: |+\n  keep\n\n",
		"description: >\n  a \n   b \n  c\n",
	} {
		a, err := Parse([]byte(desc+minimal), "s.yaml", []string{"pool.core=7"})
		if err != nil {
			t.Fatalf("%q: %v", desc, err)
		}
		text, err := a.EditedText()
		if err != nil {
			t.Fatalf("%q: %v", desc, err)
		}
		b, err := Parse(text, "s.yaml", nil)
		if err != nil {
			t.Fatalf("%q: edited text %q: %v", desc, text, err)
		}
		if a.Description != b.Description || b.Pool.Config.Core != 7 {
			t.Errorf("%q: description %q, edited text %q reads %q (core %d)", desc, a.Description, text, b.Description, b.Pool.Config.Core)
		}
	}
}

// TestBundledScenariosLoad: every example in scenarios/examples loads.
func TestBundledScenariosLoad(t *testing.T) {
	files, _ := filepath.Glob("examples/*.yaml")
	if len(files) < 5 {
		t.Fatalf("only %d bundled scenarios", len(files))
	}
	for _, f := range files {
		if _, err := Load(f, nil); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestTraceScenario(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("arrival_s,service_s\n0,1\n2,0.5\n"), 0o644)
	y := "pool: {preset: cached}\nworkload: {trace: t.csv}\n"
	os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(y), 0o644)
	sc, err := Load(filepath.Join(dir, "s.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// A trace without duration runs until its last task could end plus one keepAlive.
	if want := 2500*time.Millisecond + time.Minute + time.Second; sc.Duration != want {
		t.Errorf("duration %v, want %v", sc.Duration, want)
	}
}

// wantParseError parses yaml as file name with the --set overrides and
// requires an input error whose message starts with want.
func wantParseError(t *testing.T, name, file, yaml string, sets []string, want string) {
	t.Helper()
	_, err := Parse([]byte(yaml), file, sets)
	switch {
	case err == nil:
		t.Errorf("%s: no error", name)
	case !inputerr.Is(err):
		t.Errorf("%s: %T is not an input error: %v", name, err, err)
	case !strings.HasPrefix(err.Error(), want):
		t.Errorf("%s:\n got %v\nwant %s…", name, err, want)
	}
}

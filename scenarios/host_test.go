package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/model"
)

const hostPool = "pool: {preset: fixed, core: 4}\nduration: 1m\n"

// TestHostBlock: the host block's keys, their defaults and units.
func TestHostBlock(t *testing.T) {
	tests := []struct {
		host string // the host block, "" for none
		want Host
	}{
		// No host block: unlimited CPUs, free thread starts, HotSpot's 1 MiB stacks.
		{"", Host{StackSize: 1 << 20}},
		// Every key.
		{"host: {cpus: 8, threadStart: 200µs, stackSize: 512k}\n", Host{CPUs: 8, ThreadStart: 200 * time.Microsecond, StackSize: 512 << 10}},
		// -Xss spellings: m, MB, MiB, a plain byte count; us for µs.
		{"host: {stackSize: 2m, threadStart: 60us}\n", Host{ThreadStart: 60 * time.Microsecond, StackSize: 2 << 20}},
		{"host: {stackSize: 1MiB}\n", Host{StackSize: 1 << 20}},
		{"host: {stackSize: 1GB}\n", Host{StackSize: 1 << 30}},
		{"host: {stackSize: 65536}\n", Host{StackSize: 65536}},
		// An empty block changes nothing.
		{"host:\n", Host{StackSize: 1 << 20}},
	}
	for _, tt := range tests {
		y := hostPool + tt.host + "workload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\n"
		sc, err := Parse([]byte(y), "h.yaml", nil)
		if err != nil {
			t.Errorf("%q: %v", tt.host, err)
			continue
		}
		if sc.Host != tt.want {
			t.Errorf("%q: host %+v, want %+v", tt.host, sc.Host, tt.want)
		}
	}
}

// TestSplitServiceLoads: a service split into cpu and blocking parts, at the
// top and in phases; --set reaches inside it.
func TestSplitServiceLoads(t *testing.T) {
	y := hostPool + "host: {cpus: 2}\nworkload:\n  phases:\n    - {duration: 10s, arrivals: {process: poisson, rate: 5}, service: {cpu: {dist: exponential, mean: 2ms}, blocking: {dist: lognormal, mean: 40ms, cv: 1}, slices: 4}}\n    - {arrivals: {process: poisson, rate: 5}, service: {dist: constant, value: 1ms}}\n"
	sc, err := Parse([]byte(y), "h.yaml", []string{"workload.phases.0.service.cpu.mean=3ms"})
	if err != nil {
		t.Fatal(err)
	}
	sp := sc.Workload.Phases[0].Split
	if sp == nil || sp.Slices != 4 || sp.CPU.Dist != "exponential" || sp.CPU.Mean != 3*time.Millisecond || sp.Blocking.Dist != "lognormal" || sp.Blocking.CV != 1 {
		t.Errorf("phase 0 split %+v (cpu %+v, blocking %+v)", sp, sp.CPU, sp.Blocking)
	}
	if sc.Workload.Phases[1].Split != nil || sc.Workload.Phases[1].Service.Dist != "constant" {
		t.Errorf("phase 1 is a plain law: %+v", sc.Workload.Phases[1])
	}
	y = hostPool + "workload: {arrivals: {process: poisson, rate: 1}, service: {cpu: {dist: constant, value: 5ms}}}\n"
	if sc, err = Parse([]byte(y), "h.yaml", nil); err != nil {
		t.Fatal(err)
	}
	if sp := sc.Workload.Phases[0].Split; sp == nil || sp.Blocking != nil || sp.CPU.Mean != 5*time.Millisecond || sp.Slices != 0 {
		t.Errorf("cpu-only split: %+v", sp)
	}
}

// TestHostErrors: bad host values and bad splits name the file, line,
// column and key.
func TestHostErrors(t *testing.T) {
	svc := func(s string) string {
		return hostPool + "workload: {arrivals: {process: poisson, rate: 1}, service: " + s + "}\n"
	}
	okWork := "workload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\n"
	tests := []struct{ name, yaml, want string }{
		// cpus must be a positive integer.
		{"zero cpus", hostPool + "host: {cpus: 0}\n" + okWork, "h.yaml:3:14: host.cpus: must be in 1..1048576, got 0"},
		{"fractional cpus", hostPool + "host: {cpus: 1.5}\n" + okWork, `h.yaml:3:14: host.cpus: not an integer: "1.5"`},
		// A thread start cannot be negative.
		{"negative start", hostPool + "host: {threadStart: -1ms}\n" + okWork, "h.yaml:3:21: host.threadStart: must be >= 0, got -1ms"},
		// Stack sizes: JVM units only.
		{"bad stack unit", hostPool + "host: {stackSize: 1TB}\n" + okWork, `h.yaml:3:19: host.stackSize: unknown unit "tb" in "1TB"`},
		{"negative stack", hostPool + "host: {stackSize: -1m}\n" + okWork, `h.yaml:3:19: host.stackSize: not a size: "-1m"`},
		// Typos are caught, with a suggestion.
		{"typo", hostPool + "host: {cpu: 4}\n" + okWork, `h.yaml:3:8: host.cpu: unknown key "cpu"; did you mean "cpus"?`},
		// A service is a law or a split, not both.
		{"law and split", svc("{dist: constant, value: 1ms, cpu: {dist: constant, value: 1ms}}"), "h.yaml:3:67: workload.service.dist: a service is either a law (dist: ...) or split into cpu and blocking parts, not both"},
		// A split needs a part.
		{"slices alone", svc("{slices: 2}"), "h.yaml:3:60: workload.service.cpu: missing: a split service needs a cpu part, a blocking part or both"},
		{"zero slices", svc("{cpu: {dist: constant, value: 1ms}, slices: 0}"), "h.yaml:3:104: workload.service.slices: must be in 1..10000, got 0"},
		// The parts are laws, checked as such.
		{"bad cpu law", svc("{cpu: {dist: exponential}}"), "h.yaml:3:66: workload.service.cpu.mean: missing for the distribution exponential"},
		{"cv on a blocking exponential", svc("{blocking: {dist: exponential, mean: 1ms, cv: 2}}"), "h.yaml:3:102: workload.service.blocking.cv: does not apply to the distribution exponential"},
		{"unknown split key", svc("{cpu: {dist: constant, value: 1ms}, blockng: {dist: constant, value: 1ms}}"), `h.yaml:3:96: workload.service.blockng: unknown key "blockng"; did you mean "blocking"?`},
		// host.wakeup.race is a duration or a law, checked as one; a typo is named.
		{"negative race", hostPool + "host: {wakeup: {latency: 40us, race: -1us}}\n" + okWork, "h.yaml:3:38: host.wakeup.race: must be >= 0, got -1µs"},
		{"bad race law", hostPool + "host: {wakeup: {latency: 40us, race: {dist: lognormal, mean: 20us}}}\n" + okWork, "h.yaml:3:38: host.wakeup.race.cv: missing for the distribution lognormal"},
		{"race typo", hostPool + "host: {wakeup: {latency: 40us, rase: 20us}}\n" + okWork, `h.yaml:3:32: host.wakeup.rase: unknown key "rase"; did you mean "race"?`},
		// Thread-per-task has no sizes, no queue and no setters.
		{"thread-per-task core", "pool: {preset: thread-per-task, core: 2}\nduration: 1m\n" + okWork, "h.yaml:1:39: pool.core: a thread-per-task executor has no core threads, got 2"},
		{"thread-per-task max", "pool: {preset: thread-per-task, max: 10}\nduration: 1m\n" + okWork, "h.yaml:1:38: pool.max: a thread-per-task executor has no thread limit, got 10"},
		{"thread-per-task queue", "pool: {preset: thread-per-task, queue: {type: linked}}\nduration: 1m\n" + okWork, "h.yaml:1:47: pool.queue.type: a thread-per-task executor has no queue"},
		{"thread-per-task setter", "pool: {preset: thread-per-task}\nduration: 1m\n" + okWork + "events:\n  - {at: 1s, set: {max: 3}}\n", "h.yaml:5:25: events[0].set.max: at 1s: a thread-per-task executor has no pool settings to change"},
	}
	for _, tt := range tests {
		wantParseError(t, tt.name, "h.yaml", tt.yaml, nil, tt.want)
	}
}

// TestThreadPerTaskPreset: newThreadPerTaskExecutor is run as
// TPE(0, Integer.MAX_VALUE, 0s, SynchronousQueue) of its own flavor (R86).
func TestThreadPerTaskPreset(t *testing.T) {
	sc, err := Parse([]byte("pool: {preset: thread-per-task}\nduration: 1m\nworkload: {arrivals: {process: poisson, rate: 1}, service: {dist: constant, value: 1ms}}\n"), "p.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := model.Config{Flavor: model.ThreadPerTask, Max: model.Unbounded, Queue: model.Synchronous}
	if sc.Pool.Config != want || sc.Pool.ThreadNamePrefix != "Thread-" {
		t.Errorf("pool %+v, want %+v", sc.Pool, want)
	}
	if d := Describe(sc.Pool.Config); !strings.Contains(d, "a new thread per task") {
		t.Errorf("Describe = %q", d)
	}
}

// TestParseBytes: -Xss's units are powers of 1024.
func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64 // -1: an error
	}{
		{"0", 0},                          // nothing reserved
		{"1024", 1024},                    // plain bytes
		{"1k", 1024},                      // -Xss1k
		{"256K", 256 << 10},               // -Xss256K
		{"1m", 1 << 20},                   // HotSpot's default
		{"1 MB", 1 << 20},                 // spaced and spelled out
		{"2g", 2 << 30},                   // gigabytes
		{"1_024k", 1 << 20},               // underscores as in sizes
		{"9223372036854775807g", -1},      // overflows
		{"m", -1},                         // no number
		{"1.5m", -1},                      // -Xss takes integers
		{"10q", -1},                       // unknown unit
		{"-1", -1},                        // negative
		{"", -1},                          // empty
		{"1e6", -1},                       // no exponents
		{"12345678901234567890", -1},      // beyond int64
		{"1kB", 1 << 10},                  // mixed case
		{"3GiB", 3 << 30},                 // binary spelled out
		{"  7k ", 7 << 10},                // surrounding spaces
		{"100b", 100},                     // explicit bytes
		{"4096B", 4096},                   // explicit bytes, upper case
		{"8589934592k", 8589934592 << 10}, // large but fits
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if tt.want < 0 {
			if err == nil {
				t.Errorf("ParseBytes(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

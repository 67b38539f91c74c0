package sim

import (
	"fmt"
	"strings"
	"testing"
)

// Virtual threads (virtual.go) against closed forms, with the same
// replication scheme as queueing_test.go: R independent seeds, the theory
// inside the Student-t 99.9% interval of the replication means, and the
// interval narrower than a few percent of the value so the check bites.

// TestVirtualErlangC: VTs whose task is one exponential compute, Poisson
// arrivals, P carriers: the carrier stage is M/M/P FIFO (R131, R132: a
// runnable VT waits FIFO for one of P carriers, and keeps it until it
// ends). Its mean carrier wait is Erlang C's C(P, a)/(Pμ − λ).
func TestVirtualErlangC(t *testing.T) {
	const p, lambda, mu = 4, 28.0, 10.0
	theory := erlangC(p, lambda/mu) / (p*mu - lambda)
	y := fmt.Sprintf(`duration: 1h
warmup: 5m
sample: 1m
pool: {preset: virtual}
jvm: {parallelism: %d}
workload: {arrivals: {process: poisson, rate: %v}, service: {dist: exponential, mean: %vms}}
`, p, lambda, 1000/mu)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Virtual.CarrierWaitAvg) })
	checkAgainst(t, "M/M/4 carriers: mean carrier wait (Erlang C)", theory, mean, half, 0.06)
}

// TestVirtualBlockIsInfiniteServer: a compute step, then an unpinned
// block of constant B (a socket read, R133): the block holds no carrier,
// so it only adds delay — an infinite-server stage — and the carriers stay
// the M/M/P of the compute step alone (with the block holding a carrier
// the load would be 28 × 0.6 s = 16.8 carriers). After the block the VT
// must mount again to finish: a zero-length visit, which delays nobody
// under FIFO and, arriving as M/M/P departures shifted by B (Poisson by
// Burke's theorem, independent of the state then), waits as an arrival
// does. So every mount waits Wq on average, and the response is
// Wq + 1/μ + B + Wq.
func TestVirtualBlockIsInfiniteServer(t *testing.T) {
	const p, lambda, mu, block = 4, 28.0, 10.0, 0.5
	wq := erlangC(p, lambda/mu) / (p*mu - lambda)
	y := fmt.Sprintf(`duration: 1h
warmup: 5m
sample: 1m
pool: {preset: virtual}
jvm: {parallelism: %d, version: 21}
workload:
  arrivals: {process: poisson, rate: %v}
  service:
    steps:
      - compute: {dist: exponential, mean: %vms}
      - block: {dist: constant, value: %vms}
`, p, lambda, 1000/mu, 1000*block)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Virtual.CarrierWaitAvg) })
	checkAgainst(t, "compute + unpinned block: mean carrier wait per mount (Wq of M/M/4)", wq, mean, half, 0.06)
	theory := 2*wq + 1/mu + block
	mean, half = replicate(t, y, func(s Summary) float64 { return float64(s.ResponseMean) })
	checkAgainst(t, "compute + unpinned block: mean response", theory, mean, half, 0.01)
}

// TestVirtualPinnedBlockIsMG1: the same block inside synchronized on JDK 21
// pins the carrier (R134): it is held for compute + block, so the
// carriers are M/G/P with service X + B. With P = 1 that is M/G/1, whose
// mean wait is Pollaczek–Khinchine's λE[S²]/(2(1 − ρ)), E[S²] = Var X +
// (E X + B)² for X exponential of mean m: m² + (m + B)².
func TestVirtualPinnedBlockIsMG1(t *testing.T) {
	const lambda, m, block = 10.0, 0.02, 0.05
	es := m + block
	es2 := m*m + es*es
	theory := lambda * es2 / (2 * (1 - lambda*es))
	y := fmt.Sprintf(`duration: 2h
warmup: 5m
sample: 1m
pool: {preset: virtual}
jvm: {parallelism: 1, version: 21}
workload:
  arrivals: {process: poisson, rate: %v}
  service:
    steps:
      - compute: {dist: exponential, mean: %vms}
      - block: {dist: constant, value: %vms}
        in: synchronized
`, lambda, 1000*m, 1000*block)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Virtual.CarrierWaitAvg) })
	checkAgainst(t, "pinned block on 1 carrier: mean carrier wait (M/G/1, Pollaczek–Khinchine)", theory, mean, half, 0.06)
}

// virtualCases are VT scenarios that exercise every path: unpinned and
// pinned holds, compensation (file I/O on JDK 21, R136) with surplus
// carriers that retire, resource timeouts, and SimpleAsyncTaskExecutor's
// limit holding the caller (R143).
var virtualCases = map[string]string{
	"hikari-timeouts": `duration: 2m
warmup: 10s
sample: 1s
pool: {preset: spring-boot-virtual}
jvm: {parallelism: 2}
resources: {db: {type: hikari, maximumPoolSize: 5, connectionTimeout: 1s, connect: {dist: constant, value: 5ms}}}
workload:
  arrivals: {process: poisson, rate: 200/s}
  service:
    steps:
      - compute: {dist: exponential, mean: 2ms}
      - hold: db
        for: {dist: exponential, mean: 30ms}
      - compute: {dist: exponential, mean: 1ms}
`,
	"pinned-21": `duration: 1m
sample: 1s
snapshots: [30s]
pool: {preset: virtual}
jvm: {parallelism: 2, version: 21}
resources: {db: {type: semaphore, permits: 3}}
workload:
  arrivals: {process: poisson, rate: 60/s}
  service:
    steps:
      - compute: {dist: exponential, mean: 2ms}
      - hold: db
        for: {dist: exponential, mean: 20ms}
        in: synchronized
      - block: {dist: exponential, mean: 10ms}
        in: native
`,
	"compensated-file-io-21": `duration: 3m
sample: 1s
pool: {preset: virtual}
jvm: {parallelism: 2, version: 21, maxPoolSize: 6, minRunnable: 1}
workload:
  phases:
    - duration: 1m
      arrivals: {process: poisson, rate: 100/s}
      service:
        steps:
          - compute: {dist: exponential, mean: 3ms}
          - block: {dist: exponential, mean: 20ms}
            in: file-io
          - block: {dist: exponential, mean: 10ms}
            in: object-wait
    - duration: 2m
      arrivals: {process: poisson, rate: 0.1/s}
      service:
        steps:
          - compute: {dist: exponential, mean: 3ms}
          - block: {dist: exponential, mean: 20ms}
            in: file-io
          - block: {dist: exponential, mean: 10ms}
            in: object-wait
`,
	"users-client": `duration: 1m
sample: 1s
pool: {preset: virtual}
jvm: {parallelism: 2}
workload:
  users: {count: 10, think: {dist: exponential, mean: 100ms}}
  service: {dist: exponential, mean: 10ms}
  client: {timeout: 50ms, retries: 1}
`,
	"simple-async-limit": `duration: 1m
sample: 1s
pool: {preset: simple-async, concurrencyLimit: 4}
jvm: {parallelism: 2}
workload:
  arrivals: {process: poisson, rate: 100/s}
  service:
    steps:
      - compute: {dist: exponential, mean: 1ms}
      - block: {dist: exponential, mean: 50ms}
`,
}

// TestVirtualInvariants runs every case with the invariants checked after
// every event (the pool's, the carriers', and that the mounted programs
// are the busy carriers) and checks what each case must show.
func TestVirtualInvariants(t *testing.T) {
	for name, y := range virtualCases {
		t.Run(name, func(t *testing.T) {
			o := runAll(t, parse(t, y), true)
			s := o.res.Summary
			v := s.Virtual
			if v == nil {
				t.Fatal("no virtual summary")
			}
			if !strings.Contains(strings.SplitN(o.timeline, "\n", 2)[0], ",vt_live,vt_mounted,vt_runnable,vt_parked,vt_pinned,carriers,carriers_busy,vt_heap_bytes") {
				t.Errorf("timeline header lacks the virtual columns: %s", strings.SplitN(o.timeline, "\n", 2)[0])
			}
			t.Logf("%s: completed %d, carriers peak %d, vt peak %d, compensations %d (%d carriers), pinned %.3g carrier-s, caller waits %d, wait p99 %.3g s",
				name, s.Completed, v.CarriersPeak, v.VTPeak, v.Compensations, v.CarriersStarted, float64(v.PinnedCarrierSeconds), v.CallerWaits, float64(s.WaitP99))
			switch name {
			case "hikari-timeouts":
				if *s.ResourceErrors == 0 || v.CarriersPeak != 2 {
					t.Errorf("want acquisition timeouts and 2 carriers: %d errors, %d carriers", *s.ResourceErrors, v.CarriersPeak)
				}
			case "pinned-21":
				if v.PinnedCarrierSeconds <= 0 || v.Compensations != 0 || v.CarriersPeak != 2 {
					t.Errorf("a pinned park holds its carrier without compensation (R134)")
				}
				// The snapshot names each VT by its state (R137): one line
				// per live VT, the pinned ones WAITING with their carrier
				// held, and the header counts them.
				lines := strings.Split(strings.TrimSpace(o.snapshots), "\n")
				var live, held int
				fmt.Sscanf(lines[1][strings.Index(lines[1], ": ")+2:], "%d virtual threads", &live)
				for _, l := range lines[3:] {
					if strings.Contains(l, "(carrier held: pinned)") || strings.Contains(l, "; carrier held: pinned)") {
						held++
					}
				}
				if live == 0 || len(lines)-3 != live || held == 0 || held > 2 {
					t.Errorf("snapshot: %d VT lines for %d live, %d held carriers:\n%s", len(lines)-3, live, held, o.snapshots)
				}
			case "compensated-file-io-21":
				if v.CarriersStarted == 0 || v.CarriersPeak <= 2 || v.CarriersPeak > 6 {
					t.Errorf("file I/O on JDK 21 compensates up to maxPoolSize 6 (R136): peak %d", v.CarriersPeak)
				}
				last := strings.Split(strings.TrimSpace(o.timeline), "\n")
				cols := strings.Split(last[len(last)-1], ",")
				if got := cols[len(cols)-3]; got != "2" {
					t.Errorf("carriers at the end %s, want 2: the surplus ones retire after 30 s idle", got)
				}
			case "users-client":
				if v.Mounts == 0 || v.CarriersPeak != 2 {
					t.Errorf("closed-loop users' requests run on the carriers: %d mounts, %d carriers", v.Mounts, v.CarriersPeak)
				}
			case "simple-async-limit":
				if v.VTPeak != 4 || v.CallerWaits == 0 || s.WaitP99 <= 0 {
					t.Errorf("concurrencyLimit 4: vt peak %d, caller waits %d, wait p99 %v", v.VTPeak, v.CallerWaits, s.WaitP99)
				}
			}
		})
	}
}

// TestVirtualSameBytes: same scenario and seed, same bytes.
func TestVirtualSameBytes(t *testing.T) {
	for name, y := range virtualCases {
		a, b := runAll(t, parse(t, y), false), runAll(t, parse(t, y), false)
		if a.timeline != b.timeline || a.summary != b.summary {
			t.Errorf("%s: two runs differ", name)
		}
	}
}

// TestVirtualMeasuredPinning replays the measurements of R135 (JDK 25.0.3,
// P = 2): 16 VTs each sleeping 200 ms inside synchronized took 214 ms (they
// unmount: one round); 4 VTs each sleeping 300 ms in a class initialiser
// took 604 ms (pinned, not compensated: two rounds of two), carriers
// staying at 2 (the model may use one where the VTs unmount at once: a
// zero-time mount needs no second carrier). The model has no start-up or scheduling overhead, so it
// gives the rounds exactly: 200 ms and 600 ms. On JDK 21 the synchronized
// sleep pins (R134): 8 rounds, 1.6 s.
func TestVirtualMeasuredPinning(t *testing.T) {
	for _, c := range []struct {
		name         string
		version, vts int
		sleep        string
		in           string
		want         float64 // last task end, seconds
	}{
		{"25 synchronized", 25, 16, "200ms", "synchronized", 0.2}, // measured 214 ms
		{"25 clinit", 25, 4, "300ms", "clinit", 0.6},              // measured 604 ms
		{"21 synchronized", 21, 16, "200ms", "synchronized", 1.6}, // R134: pinned, 16 / 2 rounds
	} {
		y := fmt.Sprintf(`duration: 10s
sample: 100ms
pool: {preset: virtual}
jvm: {parallelism: 2, version: %d}
workload:
  arrivals: {process: burst, count: %d}
  service:
    steps:
      - block: {dist: constant, value: %s}
        in: %s
`, c.version, c.vts, c.sleep, c.in)
		o := runAll(t, parse(t, y), true)
		s := o.res.Summary
		if float64(s.LastTaskEnd) != c.want || s.Virtual.CarriersPeak > 2 || s.Virtual.Compensations != 0 {
			t.Errorf("%s: last task ended at %v s with %d carriers and %d compensations, want %v s, at most 2 carriers, none",
				c.name, s.LastTaskEnd, s.Virtual.CarriersPeak, s.Virtual.Compensations, c.want)
		}
	}
}

// TestVirtualTimelineStates: every row of the timeline splits the live VTs
// into mounted, runnable and parked (R137: RUNNABLE on a carrier or
// waiting for one, WAITING/TIMED_WAITING parked), pinned ones are mounted,
// busy carriers are the mounted VTs, and the heap is 1200 B per unmounted
// VT (R140).
func TestVirtualTimelineStates(t *testing.T) {
	for name, y := range virtualCases {
		o := runAll(t, parse(t, y), false)
		lines := strings.Split(strings.TrimSpace(o.timeline), "\n")
		head := strings.Split(lines[0], ",")
		col := map[string]int{}
		for i, h := range head {
			col[h] = i
		}
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			v := func(k string) int {
				var n int
				fmt.Sscan(f[col[k]], &n)
				return n
			}
			live, mounted, runnable, parked, pinned := v("vt_live"), v("vt_mounted"), v("vt_runnable"), v("vt_parked"), v("vt_pinned")
			if live != mounted+runnable+parked || pinned > mounted || v("carriers_busy") != mounted || v("carriers_busy") > v("carriers") ||
				v("vt_heap_bytes") != 1200*(live-mounted) || v("pool_size") != live {
				t.Fatalf("%s: inconsistent row %s", name, l)
			}
		}
	}
}

// TestVirtualSimpleAsyncLimitIsMMn: SimpleAsyncTaskExecutor with
// concurrencyLimit n (R143) holds each caller FIFO until a permit frees,
// so with Poisson arrivals and exponential blocking tasks (they hold no
// carrier: R133) the callers' wait is that of M/M/n FIFO: Erlang C.
func TestVirtualSimpleAsyncLimitIsMMn(t *testing.T) {
	const n, lambda, mu = 4, 28.0, 10.0
	theory := erlangC(n, lambda/mu) / (n*mu - lambda)
	y := fmt.Sprintf(`duration: 2h
warmup: 5m
sample: 1m
pool: {preset: simple-async, concurrencyLimit: %d}
jvm: {parallelism: 2}
workload:
  arrivals: {process: poisson, rate: %v}
  service:
    steps:
      - block: {dist: exponential, mean: %vms}
`, n, lambda, 1000/mu)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.WaitMean) })
	checkAgainst(t, "concurrencyLimit 4: the caller's mean wait (M/M/4, Erlang C)", theory, mean, half, 0.06)
}

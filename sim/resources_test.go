package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestHikariErlangC: tasks that hold a connection of a fixed HikariCP pool
// of N for an exponential time, arriving as a Poisson stream on a pool of
// threads that never runs short, wait for a connection as customers of
// M/M/N wait for a server: the mean wait over all acquisitions is
// C(N, a) / (Nμ − λ) (Erlang C), whatever HikariCP's borrow order (it
// decides which connection, not who gets one: waiters are served FIFO).
func TestHikariErlangC(t *testing.T) {
	const n, lambda, mu = 4, 32.0, 10.0
	theory := erlangC(n, lambda/mu) / (n*mu - lambda)
	y := fmt.Sprintf(`duration: 2h
warmup: 5m
sample: 1m
pool: {preset: fixed, core: 100}
resources:
  db: {type: hikari, maximumPoolSize: %d, connectionTimeout: 1h, maxLifetime: 0s}
workload:
  arrivals: {process: poisson, rate: %v}
  service: {steps: [{hold: db, for: {dist: exponential, mean: %vms}}]}
`, n, lambda, 1000/mu)
	mean, half := replicate(t, y, func(s Summary) float64 { return float64(s.Resources[0].WaitMean) })
	checkAgainst(t, "HikariCP pool of 4, M/M/4 wait for a connection (Erlang C)", theory, mean, half, 0.05)
}

// erlangA returns the abandoned share and the mean wait (of all callers,
// abandoning or served) of M/M/n+M: Poisson arrivals λ, n servers of rate
// μ, exponential patience of rate θ. Its stationary law is that of a
// birth–death chain with death rate nμ + jθ at n + j (Palm); the queue's
// mean length gives both by Little's law: abandoned share θ·E[Lq]/λ, mean
// wait E[Lq]/λ.
func erlangA(n int, lambda, mu, theta float64) (abandon, wait float64) {
	p := []float64{1}
	for k := 1; k <= n; k++ {
		p = append(p, p[k-1]*lambda/(float64(k)*mu))
	}
	for j := 1; ; j++ {
		next := p[len(p)-1] * lambda / (float64(n)*mu + float64(j)*theta)
		p = append(p, next)
		if next < 1e-18 {
			break
		}
	}
	sum, lq := 0.0, 0.0
	for k, v := range p {
		sum += v
		if k > n {
			lq += float64(k-n) * v
		}
	}
	lq /= sum
	return theta * lq / lambda, lq / lambda
}

// TestSemaphoreErlangA: a semaphore bulkhead of N permits whose callers
// give up after an exponential patience (a per-acquisition timeout law) is
// M/M/N+M, Erlang A: the share of acquisitions that time out and their mean
// wait (served or not) match Palm's closed form.
func TestSemaphoreErlangA(t *testing.T) {
	const n, lambda, mu, theta = 5, 60.0, 10.0, 4.0
	abandon, wait := erlangA(n, lambda, mu, theta)
	y := fmt.Sprintf(`duration: 2h
warmup: 5m
sample: 1m
pool: {preset: fixed, core: 200}
resources:
  bulkhead: {type: semaphore, permits: %d, fair: true}
workload:
  arrivals: {process: poisson, rate: %v}
  service:
    steps:
      - hold: bulkhead
        for: {dist: exponential, mean: %vms}
        timeout: {dist: exponential, mean: %vms}
`, n, lambda, 1000/mu, 1000/theta)
	share := func(s Summary) float64 {
		r := s.Resources[0]
		return float64(r.Timeouts) / float64(r.Acquisitions)
	}
	mean, half := replicate(t, y, share)
	checkAgainst(t, "semaphore of 5 with exponential patience, M/M/5+M abandoned share (Erlang A)", abandon, mean, half, 0.05)
	mean, half = replicate(t, y, func(s Summary) float64 { return float64(s.Resources[0].WaitMean) })
	checkAgainst(t, "M/M/5+M mean wait (Erlang A)", wait, mean, half, 0.05)
}

// TestTomcatBehindHikari is the incident of issue 14: a Tomcat pool of 200
// threads in front of 10 connections, at more requests than the
// connections can serve (300/s of 40 ms holds; 10 connections serve 250/s).
// Every thread ends up busy, nearly all of them parked in
// ConcurrentBag.borrow, the connections all in use, and the wait for one
// is the waiters over the connections' rate.
func TestTomcatBehindHikari(t *testing.T) {
	sc := parse(t, `duration: 2m
warmup: 30s
sample: 5s
pool: {preset: tomcat, max: 200}
resources:
  db: {type: hikari, maximumPoolSize: 10, connect: {dist: constant, value: 20ms}}
workload:
  arrivals: {process: poisson, rate: 300/s}
  service:
    steps:
      - compute: {dist: exponential, mean: 2ms}
      - hold: db
        for: {dist: lognormal, mean: 40ms, cv: 1}
      - compute: {dist: constant, value: 1ms}
snapshots: [1m]
`)
	r := runAll(t, sc, true)
	s := r.res.Summary
	db := s.Resources[0]
	switch {
	case s.PoolSizeMean != 200 || s.BusyMean != 200:
		t.Errorf("pool size mean %v, busy %v: want every one of the 200 threads busy", s.PoolSizeMean, s.BusyMean)
	case float64(*s.BlockedMean) < 185:
		t.Errorf("blocked mean %v: want nearly all 200 threads waiting for a connection", *s.BlockedMean)
	case db.InUseMean != 10 || db.Utilization != 1:
		t.Errorf("connections in use %v (utilization %v): want all 10", db.InUseMean, db.Utilization)
	case db.Timeouts != 0 || *s.ResourceErrors != 0:
		t.Errorf("%d timeouts: a wait under 1 s never reaches connectionTimeout 30 s", db.Timeouts)
	}
	// A waiter waits for the ~189 ahead of it at 10 / 40 ms = 250 per
	// second: about 0.76 s.
	if w := float64(db.WaitMean); math.Abs(w-float64(db.WaitersMean)/250) > 0.05 {
		t.Errorf("mean wait for a connection %.3fs; the waiters over the connections' rate give %.3fs", w, float64(db.WaitersMean)/250)
	}
	if !strings.Contains(r.snapshots, "TIMED_WAITING (parking) in ConcurrentBag.borrow") || !strings.Contains(r.snapshots, "resource db (hikari): 10 units, 10 in use") {
		t.Errorf("snapshot does not show threads parked in ConcurrentBag.borrow:\n%.600s", r.snapshots)
	}
	if !strings.Contains(r.timeline, ",blocked,db_total,db_in_use,db_idle,db_waiters,db_timeouts\n") {
		t.Errorf("timeline header lacks the resource columns: %.400s", r.timeline)
	}
}

// TestAcquisitionTimeoutEndsTask: when connectionTimeout passes the task
// ends at once with an error (SQLTransientConnectionException, R151), its
// remaining steps skipped, and the thread goes back to the pool alive.
func TestAcquisitionTimeoutEndsTask(t *testing.T) {
	sc := parse(t, `duration: 10s
sample: 1s
pool: {preset: fixed, core: 3}
resources:
  db: {type: hikari, maximumPoolSize: 1, connectionTimeout: 1s}
workload:
  arrivals: {process: burst, count: 3}
  service:
    steps:
      - hold: db
        for: {dist: constant, value: 3s}
      - compute: {dist: constant, value: 1s}
`)
	var ends []string
	r, err := Run(context.Background(), sc, Options{CheckInvariants: true, OnTask: func(e TaskEvent) {
		if e.End {
			ends = append(ends, fmt.Sprintf("task %d at %v", e.TaskID, e.T))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary
	// Task 1 holds the connection 3 s then computes 1 s: it ends at 4 s;
	// tasks 2 and 3 give up at 1 s.
	want := "task 2 at 1s, task 3 at 1s, task 1 at 4s"
	if got := strings.Join(ends, ", "); got != want {
		t.Errorf("task ends: %s, want %s", got, want)
	}
	if *s.ResourceErrors != 2 || s.Resources[0].Timeouts != 2 || s.Completed != 3 || s.ThreadsExited != 0 {
		t.Errorf("errors %d, timeouts %d, completed %d, threads exited %d: want 2, 2, 3, 0",
			*s.ResourceErrors, s.Resources[0].Timeouts, s.Completed, s.ThreadsExited)
	}
	if w := s.Resources[0].WaitMax; float64(w) != time.Second.Seconds() {
		t.Errorf("longest wait %vs, want the 1 s timeout", w)
	}
}

// TestTomcatHikariExample: scenarios/examples/tomcat-hikari.yaml shows the
// incident its comment describes: 200 threads busy, nearly all of them
// waiting for one of 10 connections, all connections in use, the queue in
// front of the pool growing by the excess demand (300/s − 250/s).
func TestTomcatHikariExample(t *testing.T) {
	sc := loadExample(t, "tomcat-hikari.yaml")
	r := runAll(t, sc, true)
	s := r.res.Summary
	db := s.Resources[0]
	if s.BusyMean != 200 || float64(*s.BlockedMean) < 185 || db.Utilization != 1 || db.Timeouts != 0 {
		t.Errorf("busy %v, blocked %v, connections used %v, timeouts %d: want 200, > 185, 1, 0", s.BusyMean, *s.BlockedMean, db.Utilization, db.Timeouts)
	}
	// 4 min of steady state at ~50 tasks/s more than the connections serve:
	// about 12,000 more queued (Poisson sd of the arrivals ≈ √(300·240) ≈ 270).
	if q := s.QueuedEnd; q < 11000 || q > 16000 {
		t.Errorf("%d queued at the end, want about 12,000–15,000", q)
	}
}

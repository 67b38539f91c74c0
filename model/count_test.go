package model

import (
	"testing"
	"time"
)

// TestCountLiveOnly checks that Count answers for live workers only: a
// thread created (out of Starting) and one exited (into Exited) leave no
// live worker in either state, whatever setState's counts keep for them.
func TestCountLiveOnly(t *testing.T) {
	// newCachedThreadPool: core 0, a SynchronousQueue, keepAlive 1s; the
	// worker started for the task exits when its keepAlive expires (R15c).
	cfg := Config{Core: 0, Max: Unbounded, KeepAlive: time.Second, Queue: Synchronous}
	var timed *Worker
	p, err := New(0, cfg, ObserverFunc(func(e *Event) {
		if e.Kind == TimerArmed {
			timed = e.Worker
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	var started *Worker
	p.Execute(0, &Task{ID: 1, Service: time.Second})
	p.Workers(func(w *Worker) { started = w })
	if started == nil {
		t.Fatal("no worker started for the task")
	}
	p.TaskDone(time.Second, started)
	if timed != started || !p.TimedWaitExpired(2*time.Second, started) {
		t.Fatalf("worker %d did not wait timed and expire", started.ID)
	}
	p.CheckInvariants()
	if p.PoolSize() != 0 || started.State() != Exited {
		t.Fatalf("pool size %d, worker %v: want 0, EXITED", p.PoolSize(), started.State())
	}
	for s := Starting; s <= Exited; s++ {
		if n := p.Count(s); n != 0 {
			t.Errorf("Count(%v) = %d with no live worker, want 0", s, n)
		}
	}
}

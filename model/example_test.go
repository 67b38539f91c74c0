package model_test

import (
	"fmt"
	"time"

	"github.com/poolsim/poolsim/model"
)

// A ThreadPoolExecutor driven by hand: new ThreadPoolExecutor(1, 2, 1s,
// new ArrayBlockingQueue<>(1)). The model schedules nothing itself: it
// reports what must happen (a task runs until t, a worker waits until t)
// and the caller — here a loop of a few lines, in a real run sim.Engine —
// calls back at those times. Three tasks of 100 ms arrive at once: the
// first starts the core thread (R4), the second waits in the queue (R5),
// the third finds the queue full and starts a second thread (R6). After
// the burst the thread above core waits in poll(keepAlive), TIMED_WAITING,
// and times out one second later (R15, R16); the core thread waits in
// take(), WAITING, forever.
func Example() {
	type due struct {
		at     time.Duration
		w      *model.Worker
		timer  bool
		taskID uint64
	}
	var pending []due
	obs := model.ObserverFunc(func(e *model.Event) {
		switch e.Kind {
		case model.Started:
			fmt.Printf("%-6v worker %d runs task %d\n", e.At, e.Worker.ID, e.Task.ID)
			pending = append(pending, due{at: e.At + e.Task.Service, w: e.Worker, taskID: e.Task.ID})
		case model.TimerArmed:
			pending = append(pending, due{at: e.Worker.Deadline(), w: e.Worker, timer: true})
		case model.WorkerChanged:
			if e.To != model.Running {
				fmt.Printf("%-6v worker %d is %v (%s)\n", e.At, e.Worker.ID, e.To, e.To.ThreadState())
			}
		}
	})
	cfg := model.Config{Core: 1, Max: 2, KeepAlive: time.Second, Queue: model.Array, QueueCapacity: 1}
	p, err := model.New(0, cfg, obs)
	if err != nil {
		panic(err)
	}
	for id := uint64(1); id <= 3; id++ {
		p.Execute(0, &model.Task{ID: id, Service: 100 * time.Millisecond})
	}
	fmt.Printf("pool size %d, queue %d\n", p.PoolSize(), p.QueueLen())
	for len(pending) > 0 { // the event loop: the earliest due first
		next := 0
		for i, d := range pending {
			if d.at < pending[next].at {
				next = i
			}
		}
		d := pending[next]
		pending = append(pending[:next], pending[next+1:]...)
		if d.timer {
			p.TimedWaitExpired(d.at, d.w) // a stale timer does nothing
		} else {
			p.TaskDone(d.at, d.w)
		}
	}
	fmt.Printf("pool size %d, completed %d\n", p.PoolSize(), p.CompletedTaskCount())
	// Output:
	// 0s     worker 1 runs task 1
	// 0s     worker 2 runs task 3
	// pool size 2, queue 1
	// 100ms  worker 1 runs task 2
	// 100ms  worker 2 is IDLE_TIMED (TIMED_WAITING)
	// 200ms  worker 1 is IDLE_TIMED (TIMED_WAITING)
	// 1.1s   worker 2 is EXITED (TERMINATED)
	// 1.2s   worker 1 is IDLE_UNTIMED (WAITING)
	// pool size 1, completed 3
}

// Apply makes a runtime change in the order the JDK accepts: raising core
// and max together raises max first (R21, R22).
func ExampleExecutor_Apply() {
	p, _ := model.New(0, model.Config{Core: 2, Max: 4, KeepAlive: time.Minute, Queue: model.Linked, QueueCapacity: model.Unbounded}, nil)
	core, max := 8, 16
	err := p.Apply(time.Second, model.Change{Core: &core, Max: &max})
	fmt.Println(err, p.Config().Core, p.Config().Max)
	// A core above max is refused, as setCorePoolSize refuses it.
	core = 20
	fmt.Println(p.Apply(2*time.Second, model.Change{Core: &core}))
	// Output:
	// <nil> 8 16
	// model: core: must be in 0..max (16), got 20 (R21: setCorePoolSize throws IllegalArgumentException)
}

// The virtual-thread scheduler driven by hand (R131–R134): two carriers,
// three VTs. Two mount at once, the third waits FIFO; on JDK 21 the first
// VT's park inside synchronized pins its carrier (no compensation), so the
// third mounts only when the second VT unmounts.
func ExampleCarrierScheduler() {
	jvm := model.DefaultJVM(21, 2)
	s := model.NewCarrierScheduler(jvm)
	for vt := model.VT(1); vt <= 3; vt++ {
		fmt.Printf("VT %d runnable at 0: mounted %v\n", vt, s.Runnable(0, vt))
	}
	b := jvm.Blocking(model.InSynchronized)
	c, _, _ := s.BeginBlocking(time.Millisecond, b)
	fmt.Printf("VT 1 parks in synchronized at 1ms: %v, %v\n", b, c == model.NotCompensated)
	m, _ := s.Unmount(5 * time.Millisecond)
	fmt.Printf("VT 2 parks at 5ms: VT %d mounts after %v\n", m.VT, m.Waited)
	fmt.Printf("carriers %d, busy %d, held %d, runnable %d\n", s.Carriers(5*time.Millisecond), s.Busy(), s.Held(), s.RunnableLen())
	// Output:
	// VT 1 runnable at 0: mounted true
	// VT 2 runnable at 0: mounted true
	// VT 3 runnable at 0: mounted false
	// VT 1 parks in synchronized at 1ms: pinned, true
	// VT 2 parks at 5ms: VT 3 mounts after 5ms
	// carriers 2, busy 2, held 1, runnable 0
}

package sim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/poolsim/poolsim/model"
)

// A virtual-thread run's snapshots are also written in the shape of `jcmd
// <pid> Thread.dump_to_file -format=json` on JDK 25 (R138), so that the
// tools that read real dumps — `poolsim jstack` among them — read the
// simulated one the same way: the carriers in a
// "ForkJoinPool-1/jdk.internal.vm.SharedThreadContainer" container, the
// virtual threads in the executor's "ThreadPerTaskExecutor" container,
// each with "virtual": true, its Thread.State (R137), a stack that shows
// what it does, and the carrier it is mounted on.
//
// What is made up, and said so in the dump's "runtimeVersion": the thread
// ids (carriers 1..n, VTs 1000 + the worker id), which carrier runs which
// mounted VT (the model counts busy carriers; they are given to the
// mounted VTs in worker order), the identity hashes, and the application
// frames, which name the scenario's step as poolsim.Simulated.<what>.

// VTDump is one snapshot in Thread.dump_to_file's JSON shape.
type VTDump struct {
	At   time.Duration
	JSON []byte
}

type jcmdDump struct {
	ThreadDump jcmdBody `json:"threadDump"`
}

type jcmdBody struct {
	ProcessID        string          `json:"processId"`
	Time             string          `json:"time"`
	RuntimeVersion   string          `json:"runtimeVersion"`
	ThreadContainers []jcmdContainer `json:"threadContainers"`
}

type jcmdContainer struct {
	Container   string       `json:"container"`
	Parent      *string      `json:"parent"`
	Owner       *string      `json:"owner"`
	Threads     []jcmdThread `json:"threads"`
	ThreadCount string       `json:"threadCount"`
}

type jcmdLock struct {
	Object string `json:"object"`
}

type jcmdMonitors struct {
	Depth int      `json:"depth"`
	Locks []string `json:"locks"`
}

type jcmdThread struct {
	Tid           string         `json:"tid"`
	Time          string         `json:"time"`
	Virtual       bool           `json:"virtual,omitempty"`
	Name          string         `json:"name"`
	State         string         `json:"state"`
	ParkBlocker   *jcmdLock      `json:"parkBlocker,omitempty"`
	Stack         []string       `json:"stack"`
	MonitorsOwned []jcmdMonitors `json:"monitorsOwned,omitempty"`
	Carrier       string         `json:"carrier,omitempty"`
}

// The frames every stack ends with.
var (
	vtBase = []string{
		"poolsim.Simulated.task(Simulated.java)",
		"java.base/java.util.concurrent.ThreadPerTaskExecutor$TaskRunner.run(ThreadPerTaskExecutor.java:291)",
		"java.base/java.lang.VirtualThread.run(VirtualThread.java:460)",
	}
	carrierBase = []string{
		"java.base/java.util.concurrent.ForkJoinPool.runWorker(ForkJoinPool.java:2019)",
		"java.base/java.util.concurrent.ForkJoinWorkerThread.run(ForkJoinWorkerThread.java:187)",
	}
	carrierBusy = []string{
		"java.base/jdk.internal.vm.Continuation.run(Continuation.java:251)",
		"java.base/java.lang.VirtualThread.runContinuation(VirtualThread.java:297)",
		"java.base/java.util.concurrent.ForkJoinTask$RunnableExecuteAction.compute(ForkJoinTask.java:1753)",
		"java.base/java.util.concurrent.ForkJoinPool$WorkQueue.topLevelExec(ForkJoinPool.java:1450)",
	}
	carrierIdle = []string{
		"java.base/jdk.internal.misc.Unsafe.park(Native Method)",
		"java.base/java.util.concurrent.ForkJoinPool.awaitWork(ForkJoinPool.java:2109)",
		"java.base/java.util.concurrent.ForkJoinPool.deactivate(ForkJoinPool.java:2063)",
	}
	// A park that unmounts (R133), and one on the carrier (pinned, R134).
	parkUnmounted = []string{
		"java.base/java.lang.VirtualThread.parkNanos(VirtualThread.java:784)",
		"java.base/java.lang.System$1.parkVirtualThread(System.java:2294)",
		"java.base/java.util.concurrent.locks.LockSupport.parkNanos(LockSupport.java:406)",
	}
	parkPinned = []string{
		"java.base/jdk.internal.misc.Unsafe.park(Native Method)",
		"java.base/java.lang.VirtualThread.parkOnCarrierThread(VirtualThread.java:819)",
		"java.base/java.lang.VirtualThread.parkNanos(VirtualThread.java:798)",
		"java.base/java.util.concurrent.locks.LockSupport.parkNanos(LockSupport.java:406)",
	}
)

// resourceFrames are the frames of a wait for a resource of type typ.
func resourceFrames(typ string) (frames []string, blocker string) {
	switch typ {
	case "hikari":
		return []string{
			"java.base/java.util.concurrent.SynchronousQueue.poll(SynchronousQueue.java:338)",
			"com.zaxxer.hikari.util.ConcurrentBag.borrow(ConcurrentBag.java:151)",
			"com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:162)",
			"com.zaxxer.hikari.HikariDataSource.getConnection(HikariDataSource.java:100)",
		}, "java.util.concurrent.SynchronousQueue$Transferer@0"
	case "semaphore":
		return []string{
			"java.base/java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireSharedInterruptibly(AbstractQueuedSynchronizer.java:1136)",
			"java.base/java.util.concurrent.Semaphore.acquire(Semaphore.java:318)",
		}, "java.util.concurrent.Semaphore$NonfairSync@0"
	}
	return []string{
		"java.base/java.util.concurrent.FutureTask.awaitDone(FutureTask.java:500)",
		"java.base/java.util.concurrent.FutureTask.get(FutureTask.java:191)",
	}, "java.util.concurrent.FutureTask@0"
}

// siteFrames are the frames of a blocking call at site s, below the park.
func siteFrames(s model.Site) []string {
	switch s {
	case model.InNative:
		return []string{"poolsim.Simulated.nativeCall(Native Method)"}
	case model.InClinit:
		return []string{"poolsim.Simulated$Init.<clinit>(Simulated.java)"}
	case model.InFileIO:
		return []string{"java.base/java.io.FileInputStream.readBytes(Native Method)", "java.base/java.io.FileInputStream.read(FileInputStream.java:287)"}
	case model.InObjectWait:
		return []string{"java.base/java.lang.Object.wait0(Native Method)", "java.base/java.lang.Object.wait(Object.java:389)"}
	}
	return nil
}

// vtDump builds the snapshot in Thread.dump_to_file's JSON shape.
func (e *Engine) vtDump() ([]byte, error) {
	at := time.Unix(0, 0).UTC().Add(e.now).Format("2006-01-02T15:04:05.000000000Z")
	c := e.vt.carriers
	nCarriers, busy := c.Carriers(e.now), c.Busy()
	root := "<root>"
	carriers := jcmdContainer{Container: "ForkJoinPool-1/jdk.internal.vm.SharedThreadContainer@0", Parent: &root}
	for i := 1; i <= nCarriers; i++ {
		stack := append(append([]string(nil), carrierIdle...), carrierBase...)
		state := "WAITING"
		if i <= busy {
			stack = append(append([]string(nil), carrierBusy...), carrierBase...)
			state = "RUNNABLE" // the mounted VT's own state is in its entry (R137)
		}
		carriers.Threads = append(carriers.Threads, jcmdThread{Tid: strconv.Itoa(i), Time: at, Name: fmt.Sprintf("ForkJoinPool-1-worker-%d", i), State: state, Stack: stack})
	}
	vts := jcmdContainer{Container: "java.util.concurrent.ThreadPerTaskExecutor@0", Parent: &root}
	nextCarrier := 0
	var werr error
	e.pool.Workers(func(w *model.Worker) {
		h := e.ws[w.Slot()].prog
		if h == 0 {
			werr = fmt.Errorf("sim: virtual thread %d has no program", w.ID)
			return
		}
		p := &e.progs[h-1]
		st := p.steps[min(p.next, len(p.steps)-1)]
		t := jcmdThread{Tid: strconv.FormatInt(1000+int64(w.ID), 10), Time: at, Virtual: true, Name: e.sc.Pool.ThreadNamePrefix, State: "RUNNABLE"}
		if t.Name != "" {
			t.Name += strconv.Itoa(w.ID)
		}
		var stack []string
		pinned := (p.waiting || p.blocking) && p.blk.HoldsCarrier()
		switch {
		case p.blocking && pinned && p.blk != model.Pinned:
			// Held, not pinned (R136): a file read runs in native code
			// (RUNNABLE, no park); JDK 21–23's Object.wait waits in wait0
			// inside Blocker.begin, not through parkOnCarrierThread.
			if model.Site(st.In) == model.InObjectWait {
				t.State = "TIMED_WAITING"
			}
			stack = append(stack, siteFrames(model.Site(st.In))...)
			stack = append(stack, "poolsim.Simulated.blockingCall(Simulated.java)")
		case p.waiting || p.blocking:
			t.State = "TIMED_WAITING"
			if pinned {
				stack = append(stack, parkPinned...)
			} else {
				stack = append(stack, parkUnmounted...)
			}
			if p.waiting {
				frames, blocker := resourceFrames(e.rec.res[p.held-1].spec.Type)
				stack = append(stack, frames...)
				t.ParkBlocker = &jcmdLock{Object: blocker}
			} else {
				stack = append(stack, siteFrames(model.Site(st.In))...)
				stack = append(stack, "poolsim.Simulated.blockingCall(Simulated.java)")
			}
		default:
			stack = append(stack, "poolsim.Simulated.compute(Simulated.java)")
		}
		if model.Site(st.In) == model.InSynchronized && (p.waiting || p.blocking) {
			t.MonitorsOwned = []jcmdMonitors{{Depth: len(stack) - 1, Locks: []string{"java.lang.Object@0"}}}
		}
		stack = append(stack, vtBase...)
		t.Stack = stack
		if p.mounted || pinned {
			nextCarrier++
			if nextCarrier <= nCarriers {
				t.Carrier = strconv.Itoa(nextCarrier)
			}
		}
		vts.Threads = append(vts.Threads, t)
	})
	if werr != nil {
		return nil, werr
	}
	carriers.ThreadCount = strconv.Itoa(len(carriers.Threads))
	vts.ThreadCount = strconv.Itoa(len(vts.Threads))
	d := jcmdDump{ThreadDump: jcmdBody{ProcessID: "1", Time: at,
		RuntimeVersion:   fmt.Sprintf("poolsim (simulated JDK %d; thread ids, carriers' assignment and application frames made up)", e.vt.jvm.Version),
		ThreadContainers: []jcmdContainer{{Container: "<root>", Threads: []jcmdThread{}, ThreadCount: "0"}, carriers, vts}}}
	return json.MarshalIndent(d, "", "  ")
}

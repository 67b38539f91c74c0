package threaddump

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// jdk8Want is what testdata/jdk8-tomcat-kill3.log (hand-made, see
// testdata/README.md) holds, pool by pool.
func jdk8Want() []poolWant {
	return []poolWant{
		// Tomcat 8.5 connector pool on the JDK's ThreadPoolExecutor (R63): 9 in TaskQueue.poll,
		// 1 left in TaskQueue.take since wc <= core (R16, R60), 2 busy (socket read, sleep).
		{prefix: "http-nio-8080-exec-", family: FamilyTomcat, threads: 12, daemon: 12, busy: 2, idleTimed: 9, idleUntimed: 1,
			states: map[string]int{StateRunnable: 1, StateTimedWaiting: 10, StateWaiting: 1},
			sites: []ParkSite{{Site: "TaskQueue.poll", Queue: QueueTomcat, Timed: 9},
				{Site: "TaskQueue.take", Queue: QueueTomcat, Untimed: 1}}, maxNumber: 12},
		// newCachedThreadPool on JDK 8: SynchronousQueue$TransferStack frames (R59).
		{prefix: "pool-2-thread-", family: FamilyJDK, threads: 3, idleTimed: 3,
			states: map[string]int{StateTimedWaiting: 3},
			sites:  []ParkSite{{Site: "SynchronousQueue.poll", Queue: QueueSynchronous, Timed: 3}}, maxNumber: 3},
		// The common ForkJoinPool: a bare Unsafe.park, so the printed state decides.
		{prefix: "ForkJoinPool.commonPool-worker-", family: FamilyForkJoin, threads: 2, daemon: 2, idleTimed: 1, idleUntimed: 1,
			states: map[string]int{StateTimedWaiting: 1, StateWaiting: 1},
			sites:  []ParkSite{{Site: "ForkJoinPool.awaitWork", Queue: QueueForkJoin, Timed: 1, Untimed: 1}}, maxNumber: 3},
		// newScheduledThreadPool(2): leader timed, follower untimed (R61).
		{prefix: "pool-1-thread-", family: FamilyScheduled, threads: 2, idleTimed: 1, idleUntimed: 1,
			states: map[string]int{StateTimedWaiting: 1, StateWaiting: 1},
			sites:  []ParkSite{{Site: "DelayedWorkQueue.take", Queue: QueueDelayed, Timed: 1, Untimed: 1}}, maxNumber: 2},
		// Tomcat's acceptor and poller: numbered names, no worker loop.
		{prefix: "http-nio-8080-Acceptor-", family: FamilyUnknown, threads: 1, daemon: 1, other: 1,
			states: map[string]int{StateRunnable: 1}, maxNumber: 0},
		{prefix: "http-nio-8080-ClientPoller-", family: FamilyUnknown, threads: 1, daemon: 1, other: 1,
			states: map[string]int{StateRunnable: 1}, maxNumber: 0},
	}
}

// TestFixtures reads every committed dump: the real ones taken from
// PoolStates.java (JDK 17 and 25, every tool), the JDK 21-format ones
// derived from them, the real deadlock log, and the hand-made JDK 8 log.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file      string
		form      Form
		vm        string // substring of Dump.VM
		pid       int64
		pools     []poolWant
		exact     bool // no pool besides those in pools
		inferred  bool // the form prints no states (JDK 21–24 Thread.dump_to_file)
		skipped   bool // log lines around the dump
		deadlocks int
		threads   int // all threads of the dump, JVM-internal and virtual ones included
	}{
		// jstack -l on JDK 17: "Locked ownable synchronizers", hex nid.
		{file: "jdk17-jstack-l.txt", form: FormHotSpot, vm: "17.0.19", pools: poolStatesWant(), exact: true, threads: 57},
		// jcmd Thread.print on JDK 17: the "<pid>:" line first.
		{file: "jdk17-jcmd.txt", form: FormHotSpot, vm: "17.0.19", pid: 22430, pools: poolStatesWant(), exact: true, threads: 57},
		// kill -3 on JDK 17: POOL/READY lines before, the heap summary after.
		{file: "jdk17-kill3.log", form: FormHotSpot, vm: "17.0.19", pools: poolStatesWant(), exact: true, skipped: true, threads: 57},
		// jstack on JDK 25: "#N [osid]", decimal nid; plus the virtual threads' carrier pool.
		{file: "jdk25-jstack.txt", form: FormHotSpot, vm: "25.0.3", pools: poolStatesWant(), threads: 61},
		// jcmd Thread.print -l on JDK 25.
		{file: "jdk25-jcmd-l.txt", form: FormHotSpot, vm: "25.0.3", pid: 22767, pools: poolStatesWant(), threads: 61},
		// jcmd Thread.dump_to_file on JDK 25: states, lock lines, virtual threads.
		{file: "jdk25-dump.txt", form: FormText, vm: "25.0.3", pid: 22767, pools: poolStatesWant(), threads: 51},
		// jcmd Thread.dump_to_file -format=json on JDK 25.
		{file: "jdk25-dump.json", form: FormJSON, vm: "25.0.3", pid: 22767, pools: poolStatesWant(), threads: 51},
		// The same two in JDK 21's format (no states, no locks): states inferred.
		{file: "jdk21-dump.txt", form: FormText, vm: "21-format", pid: 22767, pools: poolStatesWant(), inferred: true, threads: 51},
		{file: "jdk21-dump.json", form: FormJSON, vm: "21-format", pid: 22767, pools: poolStatesWant(), inferred: true, threads: 51},
		// kill -3 of a deadlocked JDK 17: the deadlock report after the dump.
		{file: "jdk17-deadlock-kill3.log", form: FormHotSpot, vm: "17.0.19", skipped: true, deadlocks: 1, threads: 21,
			pools: []poolWant{{prefix: "Thread-", family: FamilyUnknown, threads: 2, other: 2,
				states: map[string]int{StateBlocked: 2}, maxNumber: 1}}, exact: true},
		// Hand-made JDK 8 kill -3 in a catalina.out (testdata/README.md gives its sources).
		{file: "jdk8-tomcat-kill3.log", form: FormHotSpot, vm: "25.281-b09", pools: jdk8Want(), exact: true, skipped: true, threads: 34},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			d, err := ParseFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if d.Form != tt.form || !strings.Contains(d.VM, tt.vm) || d.PID != tt.pid {
				t.Errorf("form %s, VM %q, pid %d; want %s, %q, %d", d.Form, d.VM, d.PID, tt.form, tt.vm, tt.pid)
			}
			if len(d.Threads) != tt.threads {
				t.Errorf("%d threads, want %d", len(d.Threads), tt.threads)
			}
			checkClean(t, d, tt.skipped)
			if tt.skipped != (d.SkippedLines > 0) {
				t.Errorf("%d skipped lines, want some: %v", d.SkippedLines, tt.skipped)
			}
			if d.StatesInferred != tt.inferred {
				t.Errorf("StatesInferred %v, want %v", d.StatesInferred, tt.inferred)
			}
			if d.Deadlocks != tt.deadlocks {
				t.Errorf("%d deadlocks, want %d", d.Deadlocks, tt.deadlocks)
			}
			checkPools(t, d, tt.pools, nil, tt.inferred, tt.exact)
		})
	}
}

// TestInferredStatesNeverContradict: where a JDK 21-format dump's state is
// inferred from frames, it equals the state JDK 25 printed for the same
// thread at the same instant; otherwise it stays unknown.
func TestInferredStatesNeverContradict(t *testing.T) {
	pairs := [][2]string{{"jdk21-dump.txt", "jdk25-dump.txt"}, {"jdk21-dump.json", "jdk25-dump.json"}}
	for _, pair := range pairs {
		inferred, err := ParseFile(filepath.Join("testdata", pair[0]))
		if err != nil {
			t.Fatal(err)
		}
		truth, err := ParseFile(filepath.Join("testdata", pair[1]))
		if err != nil {
			t.Fatal(err)
		}
		if len(inferred.Threads) != len(truth.Threads) {
			t.Fatalf("%s: %d threads, %s: %d", pair[0], len(inferred.Threads), pair[1], len(truth.Threads))
		}
		n := 0
		for i, th := range inferred.Threads {
			want := truth.Threads[i]
			if th.Number != want.Number || th.Virtual != want.Virtual {
				t.Fatalf("%s: thread %d is #%d (virtual %v), %s has #%d (virtual %v)", pair[0], i, th.Number, th.Virtual, pair[1], want.Number, want.Virtual)
			}
			c, w := th.Classify(), want.Classify()
			if c.Queue == QueueForkJoin && w.Queue == QueueForkJoin {
				// A bare Unsafe.park: only the state tells timed from untimed (idleRole).
				c.Role, w.Role = RoleOther, RoleOther
			}
			if c != w {
				t.Errorf("%s: %q classified %+v, with JDK 25's state %+v", pair[0], th.Name, c, w)
			}
			if th.State == "" {
				continue
			}
			n++
			if !th.StateInferred || th.State != want.State {
				t.Errorf("%s: %q inferred %s, JDK 25 printed %s", pair[0], th.Name, th.State, want.State)
			}
		}
		// Most threads sleep or park: the inference must decide most of them.
		if n < len(inferred.Threads)*3/4 {
			t.Errorf("%s: only %d of %d states inferred", pair[0], n, len(inferred.Threads))
		}
	}
}

// TestThreadFields spot-checks the fields read from real headers, frames,
// lock lines and JSON properties.
func TestThreadFields(t *testing.T) {
	load := func(file string) *Dump {
		d, err := ParseFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	find := func(d *Dump, name string) Thread {
		for _, th := range d.Threads {
			if th.Name == name {
				return th
			}
		}
		t.Fatalf("%s: no thread %q", d.Name, name)
		return Thread{}
	}
	worker := []string{"java.util.concurrent.ThreadPoolExecutor$Worker"}

	j17 := load("jdk17-jstack-l.txt")
	main := find(j17, "main")
	// JDK 17 header: #N, prio, os_prio, cpu, elapsed, tid, hex nid, status; module inside the parentheses.
	if main.Line != 21 || main.Number != 1 || main.Priority != 5 || main.OSPriority != 0 || main.Daemon ||
		main.CPU != 244250*time.Microsecond || main.Elapsed != 2270*time.Millisecond ||
		main.TID != "0x00007fa128017f60" || main.NID != 0x579f || main.Status != "runnable" || main.State != StateRunnable {
		t.Errorf("jdk17 main: %+v", main)
	}
	if f := main.Frames[0]; !reflect.DeepEqual(f, Frame{Module: "java.base@17.0.19", Class: "java.io.FileInputStream", Method: "readBytes", Native: true}) {
		t.Errorf("jdk17 main frame 0: %+v", f)
	}
	if f := main.Frames[len(main.Frames)-1]; f.Class != "PoolStates" || f.Method != "main" || f.File != "PoolStates.java" || f.Line != 124 ||
		len(f.Locks) != 1 || f.Locks[0].Verb != "locked" || f.Locks[0].Class != "java.lang.Object" {
		t.Errorf("jdk17 main last frame: %+v", f)
	}
	sleeper := find(j17, "pool-4-thread-1")
	// jstack -l: a busy worker holds its Worker lock (R13).
	if sleeper.State != StateTimedWaiting || sleeper.StateDetail != "sleeping" || !reflect.DeepEqual(sleeper.OwnableSynchronizers, worker) {
		t.Errorf("jdk17 pool-4-thread-1: %+v", sleeper)
	}
	exec1 := find(j17, "http-nio-8080-exec-1")
	if !exec1.Daemon || exec1.ParkBlocker != "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject" ||
		exec1.OwnableSynchronizers != nil || exec1.StateDetail != "parking" {
		t.Errorf("jdk17 http-nio-8080-exec-1: %+v", exec1)
	}
	if vm := find(j17, "VM Thread"); !vm.JVMInternal || vm.NID != 0x57a5 || vm.Number != 0 {
		t.Errorf("jdk17 VM Thread: %+v", vm)
	}

	j25 := load("jdk25-jstack.txt")
	// JDK 19+ header: "#3 [22771]" and a decimal nid.
	if m := find(j25, "main"); m.Number != 3 || m.NID != 22771 {
		t.Errorf("jdk25 main: %+v", m)
	}

	js := load("jdk25-dump.json")
	p4 := find(js, "pool-4-thread-1")
	if p4.Number != 33 || p4.State != StateTimedWaiting || p4.Container != "java.util.concurrent.ThreadPoolExecutor@330bedb4" ||
		!reflect.DeepEqual(p4.Frames[0], Frame{Module: "java.base", Class: "java.lang.Thread", Method: "sleepNanos0", Native: true}) {
		t.Errorf("jdk25 JSON pool-4-thread-1: %+v", p4)
	}
	// monitorsOwned depth 6 is main's 7th frame.
	if m := find(js, "main"); len(m.Frames) != 7 || !reflect.DeepEqual(m.Frames[6].Locks, []Lock{{Verb: "locked", Address: "6b376646", Class: "java.lang.Object"}}) {
		t.Errorf("jdk25 JSON main: %+v", m.Frames)
	}
	if e := find(js, "http-nio-8080-exec-1"); e.ParkBlocker != "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject" {
		t.Errorf("jdk25 JSON http-nio-8080-exec-1 park blocker %q", e.ParkBlocker)
	}
}

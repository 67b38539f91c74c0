package threaddump

import "time"

// Form names the text form a dump was read from.
type Form string

// The forms Parse reads.
const (
	// FormHotSpot is HotSpot's classic thread dump, as printed by jstack
	// (with or without -l, -e), jcmd Thread.print and kill -3 / SIGQUIT,
	// JDK 6 to 25.
	FormHotSpot Form = "hotspot"
	// FormText is jcmd Thread.dump_to_file in plain text (JDK 21+):
	// `#N "name" [virtual] [STATE] [time]` headers and indented frames.
	FormText Form = "dump-text"
	// FormJSON is jcmd Thread.dump_to_file -format=json (JDK 21+).
	FormJSON Form = "dump-json"
)

// The values of java.lang.Thread.State, and StateUnknown for a thread whose
// state the dump does not show and its frames do not tell.
const (
	StateNew          = "NEW"
	StateRunnable     = "RUNNABLE"
	StateBlocked      = "BLOCKED"
	StateWaiting      = "WAITING"
	StateTimedWaiting = "TIMED_WAITING"
	StateTerminated   = "TERMINATED"
	StateUnknown      = "UNKNOWN"
)

// Dump is one thread dump: the threads of one JVM at one instant.
type Dump struct {
	Name string // file name as the caller gave it
	Form Form
	Line int    // 1-based line where the dump starts in the file
	Time string // timestamp printed before the dump, as printed; "" if none
	VM   string // "OpenJDK 64-Bit Server VM (17.0.19+10 mixed mode, sharing)" or a runtime version
	PID  int64  // process id when the dump shows it (jcmd, Thread.dump_to_file); 0 otherwise

	// Threads in file order: Java threads, JVM-internal threads, virtual threads.
	Threads []Thread

	// Truncated reports that the dump was cut: its closing "JNI global refs"
	// line is missing, or the file ends inside a thread or a JSON document.
	// Threads holds what was complete; Notes says where the cut is.
	Truncated bool
	// StatesInferred reports that the format prints no java.lang.Thread.State
	// (Thread.dump_to_file on JDK 21–24, JDK 21+ carrier threads), so some
	// Thread.State values were inferred from the frames (Thread.StateInferred).
	StatesInferred bool
	// Deadlocks is the number of Java-level deadlocks the JVM reported.
	Deadlocks int
	// SkippedLines counts lines that belong to no thread dump (log lines,
	// junk) or that were not understood inside one.
	SkippedLines int
	// Notes are human-readable remarks about the reading, in a fixed order:
	// truncation, a partial dump, inferred states, lines not understood,
	// deadlocks, lines outside the dump, a removed log prefix, ignored NUL
	// bytes, other dumps in the same file.
	Notes []string
}

// Thread is one thread of a dump.
type Thread struct {
	Name string
	Line int // 1-based line of the thread's header (JSON: of its object) in the file

	Number     int64         // Java thread id: "#N" (jstack), "tid" (JSON); 0 when absent
	Daemon     bool          // "daemon"
	Priority   int           // Java priority "prio="; 0 when absent
	OSPriority int           // "os_prio="; 0 when absent
	TID        string        // "tid=": the JVM's thread address as printed (hotspot only)
	NID        int64         // native thread id: "nid=" (hex up to JDK 18, decimal from 19) or "[N]"
	CPU        time.Duration // "cpu=" (JDK 11+); 0 when absent
	Elapsed    time.Duration // "elapsed=" (JDK 11+); 0 when absent
	Status     string        // the VM's word for what the thread does: "waiting on condition", "runnable", ...

	// State is the java.lang.Thread.State: RUNNABLE, BLOCKED, WAITING,
	// TIMED_WAITING, NEW, TERMINATED; "" when the dump shows none and the
	// frames do not tell (and always for JVM-internal threads).
	State         string
	StateDetail   string // "parking", "sleeping", "on object monitor"
	StateInferred bool   // State was inferred from the frames, not printed

	Virtual         bool   // a virtual thread (JDK 21+)
	CarryingVirtual int64  // a carrier thread's "Carrying virtual thread #N"; 0 otherwise
	Carrier         int64  // a mounted virtual thread's carrier (JSON "carrier", jstack "Mounted virtual thread" on JDK 25); 0 otherwise
	Container       string // the thread container (JSON dumps), e.g. "java.util.concurrent.ThreadPoolExecutor@5e9f23b4"

	// ParkBlocker is the class of the object a parked thread waits for
	// ("parking to wait for <0x…> (a CLASS)"), e.g.
	// "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject".
	ParkBlocker string

	Frames []Frame // top (innermost) frame first

	// OwnableSynchronizers lists the classes of the "Locked ownable
	// synchronizers" (jstack -l, jcmd Thread.print -l); a busy pool worker
	// holds its java.util.concurrent.ThreadPoolExecutor$Worker.
	OwnableSynchronizers []string

	// JVMInternal marks a thread without a java.lang.Thread: "VM Thread",
	// "GC Thread#0", "G1 Conc#0", ... (no "#N", no state, no frames).
	JVMInternal bool
	// Incomplete marks the thread the file ends in: its frames may be cut.
	// Summarise leaves it out.
	Incomplete bool
}

// Frame is one stack frame, as StackTraceElement.toString prints it.
type Frame struct {
	Module string // module or class loader prefix, e.g. "java.base@17.0.19"; "" when absent
	Class  string // binary class name, e.g. "java.util.concurrent.ThreadPoolExecutor$Worker"
	Method string
	File   string // source file; "" for native methods and "Unknown Source"
	Line   int    // source line; 0 when unknown
	Native bool   // "(Native Method)"

	// Locks are the lines printed under the frame: "- locked <…>",
	// "- waiting on <…>", "- parking to wait for <…>", ...
	Locks []Lock
}

// Lock is one "- verb <object> (a Class)" line under a frame.
type Lock struct {
	Verb    string // "locked", "waiting on", "waiting to lock", "parking to wait for", "eliminated", ...
	Address string // "0x000000069ec20630", or an identity hash "1de3e99c"; "" when absent
	Class   string // the object's class; "" when not printed
}

// Role is what a thread does for its pool.
type Role int

// The roles of a thread. The zero value is RoleOther.
const (
	// RoleOther: not a pool worker, or a thread whose frames show no worker loop.
	RoleOther Role = iota
	// RoleIdleTimed: a worker waiting for a task with a timeout: poll(keepAlive)
	// inside getTask (R57, R59), Jetty's idleJobPoll with an idle timeout, the
	// leader of a ScheduledThreadPoolExecutor (R61). A dump shows TIMED_WAITING.
	RoleIdleTimed
	// RoleIdleUntimed: a worker waiting for a task without a timeout: take()
	// inside getTask (R58, R61). A dump shows WAITING.
	RoleIdleUntimed
	// RoleBusy: a worker running a task, whatever the task's state (R56).
	RoleBusy
)

func (r Role) String() string {
	switch r {
	case RoleIdleTimed:
		return "idle-timed"
	case RoleIdleUntimed:
		return "idle-untimed"
	case RoleBusy:
		return "busy"
	default:
		return "other"
	}
}

// Family is the kind of pool a worker's frames show.
type Family string

// The pool families.
const (
	FamilyJDK       Family = "jdk"       // java.util.concurrent.ThreadPoolExecutor
	FamilyTomcat    Family = "tomcat"    // org.apache.tomcat.util.threads (its ThreadPoolExecutor, TaskQueue, TaskThread)
	FamilyJetty     Family = "jetty"     // org.eclipse.jetty.util.thread.QueuedThreadPool
	FamilyScheduled Family = "scheduled" // java.util.concurrent.ScheduledThreadPoolExecutor
	FamilyForkJoin  Family = "forkjoin"  // java.util.concurrent.ForkJoinPool
	FamilyUnknown   Family = "unknown"
)

// QueueKind is the kind of queue an idle worker waits on, named like the
// scenario file's pool.queue.type where one exists.
type QueueKind string

// The queue kinds.
const (
	QueueNone        QueueKind = ""            // not an idle worker
	QueueLinked      QueueKind = "linked"      // LinkedBlockingQueue, LinkedBlockingDeque
	QueueArray       QueueKind = "array"       // ArrayBlockingQueue
	QueueSynchronous QueueKind = "synchronous" // SynchronousQueue
	QueuePriority    QueueKind = "priority"    // PriorityBlockingQueue
	QueueTransfer    QueueKind = "transfer"    // LinkedTransferQueue
	QueueTomcat      QueueKind = "tomcat"      // org.apache.tomcat.util.threads.TaskQueue
	QueueDelayed     QueueKind = "delayed"     // ScheduledThreadPoolExecutor$DelayedWorkQueue
	QueueJetty       QueueKind = "jetty"       // org.eclipse.jetty.util.BlockingArrayQueue
	QueueForkJoin    QueueKind = "forkjoin"    // ForkJoinPool.awaitWork
	QueueOther       QueueKind = "other"       // any other queue class
)

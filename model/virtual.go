package model

import "time"

// VirtualThreadPerTaskExecutor is the virtual-thread-per-task family (spec
// §13): Executors.newVirtualThreadPerTaskExecutor() (R130, a
// ThreadPerTaskExecutor over Thread.ofVirtual().factory()), Tomcat's
// VirtualThreadExecutor (R141, R142) and Spring's SimpleAsyncTaskExecutor
// with setVirtualThreads(true) (R143). execute starts one virtual thread
// per task: no queue, no limit, no reuse, no idle threads, no keep-alive
// (R145: none of §1.4–§1.5 applies); it rejects only after shutdown.
//
// Its workers are the virtual threads: PoolSize is threadCount() — VTs
// started and not finished — and every live VT reads Running here, since
// the pool has started its task. Where each VT stands on the carriers
// (mounted, runnable, parked, pinned, R137) is the CarrierScheduler's to
// say: the event loop drives both.
//
// With Config.Throttle it is SimpleAsyncTaskExecutor with a
// concurrencyLimit n (R143): ConcurrencyThrottleSupport.beforeAccess runs
// in the caller. While n tasks are live, CallerMustWait reports true: the
// caller waits (the event loop holds it, FIFO, until a task ends and
// afterAccess signals), or, with RejectWhenLimited, Execute refuses the
// task (TaskRejectedException). A limit of 0 refuses everything.
type VirtualThreadPerTaskExecutor struct {
	ThreadPerTaskExecutor
}

func newVirtual(now time.Duration, cfg Config, obs Observer) *VirtualThreadPerTaskExecutor {
	p := &VirtualThreadPerTaskExecutor{}
	p.init(now, cfg, obs, p)
	p.setterBan = &ConfigError{Msg: "a virtual-thread-per-task executor has no pool settings to change", Rule: "R130, R141: nothing limits or resizes it"}
	return p
}

// CallerMustWait is ConcurrencyThrottleSupport.beforeAccess's test
// (R143): whether the caller of execute would wait in
// concurrencyCondition.await() now. It is false without a limit, with
// rejectTasksWhenLimitReached (the caller is refused instead) and for
// limit 0 (refused too).
func (p *VirtualThreadPerTaskExecutor) CallerMustWait() bool {
	c := p.cfg
	return c.Throttle && !c.RejectWhenLimited && c.ConcurrencyLimit > 0 && p.runState == PoolRunning &&
		p.workers.n >= c.ConcurrencyLimit
}

// Execute is execute(task): beforeAccess (R143) when throttled, then one
// new virtual thread for t (R130). Calling it while CallerMustWait is a
// programmer error: the caller waits first.
func (p *VirtualThreadPerTaskExecutor) Execute(now time.Duration, t *Task) {
	if p.CallerMustWait() {
		panic("model: Execute while the concurrency limit holds the caller (check CallerMustWait)")
	}
	c := p.cfg
	if c.Throttle && p.runState == PoolRunning && (c.ConcurrencyLimit == 0 || p.workers.n >= c.ConcurrencyLimit) {
		// TaskRejectedException (rejectTasksWhenLimitReached) or the
		// NO_CONCURRENCY IllegalStateException of limit 0 reaches the caller.
		p.now = now
		p.aborted(t)
		return
	}
	p.ThreadPoolExecutor.Execute(now, t)
}

// Blocking is what a blocking call does to a virtual thread's carrier
// (R133–R136).
type Blocking uint8

const (
	// Unmounts: the VT parks and its carrier is free (R133).
	Unmounts Blocking = iota
	// Pinned: the carrier is held for the call, with no compensation
	// (R134; R135's native and class-initialiser frames).
	Pinned
	// Compensated: the carrier is held, but Blocker.begin compensates
	// (R136): another carrier may be woken or started.
	Compensated
	// HeldUncompensated: the carrier is held by a call that neither
	// unmounts nor compensates (JDK 24+ FileInputStream reads, R136).
	HeldUncompensated
)

var blockingNames = [...]string{Unmounts: "unmounts", Pinned: "pinned", Compensated: "compensated", HeldUncompensated: "held"}

func (b Blocking) String() string { return blockingNames[b] }

// HoldsCarrier reports whether the call keeps its carrier.
func (b Blocking) HoldsCarrier() bool { return b != Unmounts }

// Site is where a blocking call happens (a step's `in:`).
type Site uint8

const (
	// Anywhere: plain Java code: a j.u.c. wait, Thread.sleep, socket I/O.
	Anywhere Site = iota
	// InSynchronized: inside a synchronized block or method.
	InSynchronized
	// InNative: under a native frame (JNI, a foreign upcall).
	InNative
	// InFileIO: a file read or write (FileInputStream and the like).
	InFileIO
	// InObjectWait: Object.wait().
	InObjectWait
	// InClinit: inside a class initialiser.
	InClinit
)

var siteNames = [...]string{Anywhere: "", InSynchronized: "synchronized", InNative: "native", InFileIO: "file-io", InObjectWait: "object-wait", InClinit: "clinit"}

func (s Site) String() string { return siteNames[s] }

// SiteNames are the scenario spellings of the sites a step's `in:` takes.
func SiteNames() []string { return append([]string(nil), siteNames[1:]...) }

// ParseSite returns the site named name.
func ParseSite(name string) (Site, bool) {
	for i, n := range siteNames[1:] {
		if n == name {
			return Site(i + 1), true
		}
	}
	return 0, false
}

// JVM is the virtual-thread scheduler's setup (R131) and the JDK version
// that decides what pins (R134–R136).
type JVM struct {
	// Version is the JDK feature release, 21..25.
	Version int
	// Parallelism is jdk.virtualThreadScheduler.parallelism (P).
	Parallelism int
	// MaxPoolSize is jdk.virtualThreadScheduler.maxPoolSize: the most
	// carriers, compensation included.
	MaxPoolSize int
	// MinRunnable is jdk.virtualThreadScheduler.minRunnable.
	MinRunnable int
	// Frames is the extra stack frames of an unmounted VT beyond a shallow
	// stack, for its heap footprint (R140).
	Frames int
}

// DefaultJVM returns the scheduler's defaults for parallelism p on JDK
// version (R131): maxPoolSize max(P, 256), minRunnable max(P/2, 1).
func DefaultJVM(version, p int) JVM {
	return JVM{Version: version, Parallelism: p, MaxPoolSize: max(p, 256), MinRunnable: max(p/2, 1)}
}

// CarrierKeepAlive is how long a surplus idle carrier lives (R131: the
// scheduler's ForkJoinPool keep-alive, 30 s).
const CarrierKeepAlive = 30 * time.Second

// VTHeapBytes and VTFrameBytes are what an unmounted VT keeps on the heap
// (R140, measured on JDK 25: ≈ 1.2 KB at shallow depth, ≈ 20 B per extra
// frame).
const (
	VTHeapBytes  = 1200
	VTFrameBytes = 20
)

// HeapPerVT is the heap an unmounted VT keeps (R140).
func (j JVM) HeapPerVT() int64 { return VTHeapBytes + VTFrameBytes*int64(j.Frames) }

// Validate checks the settings (R131: the scheduler takes parallelism
// >= 1, maxPoolSize >= parallelism... poolsim bounds them sensibly).
func (j JVM) Validate() error {
	switch {
	case j.Version < 21 || j.Version > 25:
		return &ConfigError{"version", "must be in 21..25", "§13: virtual threads are final in JDK 21; pinning changed in 24 (R134, R135)"}
	case j.Parallelism < 1 || j.Parallelism > 32767:
		return &ConfigError{"parallelism", "must be in 1..32767", "R131: jdk.virtualThreadScheduler.parallelism"}
	case j.MaxPoolSize < j.Parallelism || j.MaxPoolSize > 32767:
		return &ConfigError{"maxPoolSize", "must be in parallelism..32767", "R131: jdk.virtualThreadScheduler.maxPoolSize (P = min(P, maxPoolSize): give parallelism <= maxPoolSize)"}
	case j.MinRunnable < 1 || j.MinRunnable > j.MaxPoolSize:
		return &ConfigError{"minRunnable", "must be in 1..maxPoolSize", "R131, R136: jdk.virtualThreadScheduler.minRunnable"}
	case j.Frames < 0:
		return &ConfigError{"stackFrames", "must be >= 0", "R140"}
	}
	return nil
}

// Blocking says what a blocking call at site does to the carrier on this
// JDK (R133–R136):
//
//	site          JDK 21–23                       JDK 24–25
//	(anywhere)    unmounts (R133)                 unmounts (R133)
//	synchronized  pinned, no compensation (R134)  unmounts (R135, JEP 491)
//	object-wait   held, compensated (R134, R136)  unmounts (R135)
//	file-io       held, compensated (R136)        held, not compensated (R136)
//	native        pinned (R134)                   pinned (R135)
//	clinit        pinned (R134)                   pinned (R135)
func (j JVM) Blocking(s Site) Blocking {
	jep491 := j.Version >= 24
	switch s {
	case InSynchronized:
		if jep491 {
			return Unmounts
		}
		return Pinned
	case InObjectWait:
		if jep491 {
			return Unmounts
		}
		return Compensated
	case InFileIO:
		if jep491 {
			return HeldUncompensated
		}
		return Compensated
	case InNative, InClinit:
		return Pinned
	}
	return Unmounts
}

package threaddump

import (
	"fmt"
	"sort"
	"strings"
)

// Virtual summarises the virtual threads of a dump and the carriers that run
// them (spec §13): where the virtual threads wait, how many are mounted, and
// which carriers are pinned.
//
// What a dump shows depends on the tool (R138): jcmd Thread.dump_to_file
// lists every virtual thread, with its carrier while mounted (JSON, JDK
// 25); jstack and jcmd Thread.print list platform threads only, so a
// virtual thread appears there only while mounted, under its carrier
// ("Mounted virtual thread #N", JDK 25). Listed reports which of the two
// the summary was made from.
type Virtual struct {
	Threads int // virtual threads in the dump
	// Listed: the dump lists every virtual thread (Thread.dump_to_file);
	// false for jstack-like dumps, which show only the mounted ones.
	Listed bool

	// States counts the virtual threads by java.lang.Thread.State (R137).
	States map[string]int
	// Sites counts where the virtual threads are, most first.
	Sites []VirtualSite
	// Executors counts the virtual threads by thread container (JSON
	// dumps: one per ThreadPerTaskExecutor, R138), most first.
	Executors []VirtualExecutor

	// Carriers are the scheduler's worker threads (ForkJoinPool-N-worker-M,
	// R131); CarriersBusy of them carry a virtual thread.
	CarrierPool            string // "ForkJoinPool-1-worker-"; "" when the dump shows none
	Carriers, CarriersBusy int
	// Mounted virtual threads (on a carrier), and of them Pinned: parked,
	// sleeping or blocked while mounted, so their carrier is held (R134,
	// R135). PinnedBy counts the pinned ones by cause, most first.
	Mounted, Pinned int
	PinnedBy        []PinCause
	// Compensated: mounted virtual threads blocked in Object.wait with
	// nothing on their stack that pins (no native frame, no class
	// initializer): JDK 21–23 wrap wait0 in Blocker.begin, so the carrier
	// is held but compensated, not pinned (R134, R136).
	Compensated int
}

// VirtualSite counts virtual threads that are at one place.
type VirtualSite struct {
	Site  string // "HikariCP ConcurrentBag.borrow", "Thread.sleep", "running", ...
	What  string // what waiting there means, for the reader; "" when nothing is known
	State string // their java.lang.Thread.State
	Count int
}

// VirtualExecutor counts the virtual threads of one thread container.
type VirtualExecutor struct {
	Container string
	Threads   int
}

// PinCause counts pinned virtual threads by why they hold their carrier.
type PinCause struct {
	Cause string // "class initializer", "native frame", "synchronized", "unknown"
	Count int
}

// knownSites name the frames virtual threads are found waiting in, as
// (class, method prefix) → site and meaning. The first match from the top
// of the stack wins.
var knownSites = []struct {
	class, method string
	site, what    string
}{
	{"com.zaxxer.hikari.util.ConcurrentBag", "borrow", "HikariCP ConcurrentBag.borrow", "waiting for a database connection (R151, R152)"},
	{"com.zaxxer.hikari.pool.HikariPool", "getConnection", "HikariCP HikariPool.getConnection", "waiting for a database connection (R151, R152)"},
	{"org.springframework.util.ConcurrencyThrottleSupport", "beforeAccess", "SimpleAsyncTaskExecutor concurrencyLimit", "a submitter waiting for a permit of the executor's concurrency limit (R143)"},
	{"java.util.concurrent.Semaphore", "acquire", "Semaphore.acquire", "waiting for a permit (a bulkhead, R160)"},
	{"java.util.concurrent.Semaphore", "tryAcquire", "Semaphore.tryAcquire", "waiting for a permit (a bulkhead, R160)"},
	{"sun.nio.ch.NioSocketImpl", "", "socket I/O", "blocked on the network: unmounted (R133)"},
	{"sun.nio.ch.SocketChannelImpl", "", "socket I/O", "blocked on the network: unmounted (R133)"},
	{"java.lang.Object", "wait", "Object.wait", ""},
	{"java.lang.Thread", "sleep", "Thread.sleep", ""},
	{"java.util.concurrent.CompletableFuture", "get", "CompletableFuture.get", ""},
	{"java.util.concurrent.FutureTask", "get", "Future.get", ""},
	{"java.util.concurrent.CountDownLatch", "await", "CountDownLatch.await", ""},
}

// SummariseVirtual summarises the virtual threads of d; nil when d has none
// and shows no carrier busy with one.
func SummariseVirtual(d *Dump) *Virtual {
	v := &Virtual{States: map[string]int{}, Listed: d.Form == FormJSON || d.Form == FormText}
	byID := map[int64]*Thread{}
	carried := map[int64]bool{} // virtual thread ids a carrier says it carries
	for i := range d.Threads {
		t := &d.Threads[i]
		if t.Number != 0 {
			byID[t.Number] = t
		}
		if t.CarryingVirtual != 0 {
			carried[t.CarryingVirtual] = true
		}
	}
	// The scheduler's carriers: the ForkJoinPool whose workers carry
	// virtual threads (R131). When none carries one, nothing tells the
	// scheduler from an application's own ForkJoinPool-N, and no carrier
	// pool is named.
	busy := map[int64]bool{}
	for i := range d.Threads {
		t := &d.Threads[i]
		if t.Virtual && t.Carrier != 0 {
			busy[t.Carrier] = true
		}
		if t.CarryingVirtual != 0 || !t.Virtual && len(t.Frames) > 0 && t.Frames[0].Class == "jdk.internal.vm.Continuation" && t.Frames[0].Method == "run" {
			busy[t.Number] = true
		}
	}
	for id := range busy {
		if c := byID[id]; c != nil && v.CarrierPool == "" {
			v.CarrierPool = carrierPool(c.Name)
		}
	}
	for i := range d.Threads {
		t := &d.Threads[i]
		if v.CarrierPool != "" && !t.Virtual && carrierPool(t.Name) == v.CarrierPool {
			v.Carriers++
			if busy[t.Number] {
				v.CarriersBusy++
			}
		}
	}
	// Whether an unmounted virtual thread is told apart from a mounted
	// one: JDK 25's JSON dump gives every mounted one its carrier (R137,
	// R138); jstack lists only mounted ones; JDK 21–24 dumps and the plain
	// text form do not say.
	carrierKnown := d.Form == FormJSON && !d.StatesInferred || d.Form == FormHotSpot

	sites := map[[3]string]int{}
	pins := map[string]int{}
	containers := map[string]int{}
	mounted := 0
	for i := range d.Threads {
		t := &d.Threads[i]
		if !t.Virtual || t.Incomplete {
			continue
		}
		v.Threads++
		state := t.State
		if state == "" {
			state = StateUnknown
		}
		v.States[state]++
		if t.Container != "" {
			containers[t.Container]++
		}
		on := t.Carrier != 0 || carried[t.Number] || d.Form == FormHotSpot
		blocked := state == StateWaiting || state == StateTimedWaiting || state == StateBlocked
		site, what := virtualSite(t.Frames)
		switch {
		case on && blocked && compensatedWait(t.Frames):
			mounted++
			v.Compensated++
			site, what = site+", compensated", "holds its carrier, but Blocker.begin compensates: another carrier may be woken or started (JDK 21–23, R134, R136)"
		case onCarrierPark(t.Frames) || on && blocked:
			// Parked on its carrier (VirtualThread.parkOnCarrierThread),
			// or blocked while mounted: pinned (R134, R135).
			mounted++
			v.Pinned++
			cause := pinCause(t.Frames)
			pins[cause]++
			site, what = site+", pinned", "holds its carrier: "+cause+" (R134, R135)"
		case on:
			mounted++
			site, what = "running", "mounted on a carrier"
		case state == StateRunnable && carrierKnown:
			site, what = "waiting for a carrier", "runnable, not mounted: queued in the scheduler (R132)"
		case state == StateRunnable || state == StateUnknown:
			site, what = "running or waiting for a carrier", "this dump does not say which (R137)"
		}
		sites[[3]string{site, what, state}]++
	}
	// A plain-text dump names no VT's carrier, but a busy carrier runs one.
	v.Mounted = max(mounted, v.CarriersBusy)
	if v.Threads == 0 && v.CarriersBusy == 0 {
		return nil
	}
	for k, n := range sites {
		v.Sites = append(v.Sites, VirtualSite{Site: k[0], What: k[1], State: k[2], Count: n})
	}
	sort.Slice(v.Sites, func(i, j int) bool {
		a, b := v.Sites[i], v.Sites[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Site != b.Site {
			return a.Site < b.Site
		}
		return a.State < b.State
	})
	for _, c := range mostFirst(pins) {
		v.PinnedBy = append(v.PinnedBy, PinCause{Cause: c, Count: pins[c]})
	}
	for _, c := range mostFirst(containers) {
		v.Executors = append(v.Executors, VirtualExecutor{Container: c, Threads: containers[c]})
	}
	return v
}

// mostFirst lists m's keys by count, most first, then by key.
func mostFirst(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// carrierPool is the name prefix of a ForkJoinPool worker
// ("ForkJoinPool-1-worker-3" → "ForkJoinPool-1-worker-"); "" for any
// other name (the common pool's workers are "ForkJoinPool.commonPool-worker-N").
func carrierPool(name string) string {
	rest, ok := strings.CutPrefix(name, "ForkJoinPool-")
	if !ok {
		return ""
	}
	i := strings.Index(rest, "-worker-")
	if i <= 0 || !allDigits(rest[:i]) || !allDigits(rest[i+len("-worker-"):]) {
		return ""
	}
	return "ForkJoinPool-" + rest[:i] + "-worker-"
}

// virtualSite names where a virtual thread is from its frames: the first
// known site from the top, else the top frame outside the JDK's own
// packages, else the top frame.
func virtualSite(frames []Frame) (site, what string) {
	for _, f := range frames {
		for _, k := range knownSites {
			if f.Class == k.class && strings.HasPrefix(f.Method, k.method) {
				return k.site, k.what
			}
		}
	}
	for _, f := range frames {
		if !jdkClass(f.Class) {
			return shortClass(f.Class) + "." + f.Method, ""
		}
	}
	if len(frames) > 0 {
		return shortClass(frames[0].Class) + "." + frames[0].Method, ""
	}
	return "no frames", ""
}

// causeWords puts a pin cause in a sentence: "2 by a class initializer".
func causeWords(c string) string {
	switch c {
	case "class initializer", "native frame":
		return "a " + c
	case "unknown":
		return "an unknown cause"
	}
	return c
}

// onCarrierPark: the thread parks on its carrier (VirtualThread.parkOnCarrierThread, R134, R135).
func onCarrierPark(frames []Frame) bool {
	for _, f := range frames {
		if f.Class == "java.lang.VirtualThread" && f.Method == "parkOnCarrierThread" {
			return true
		}
	}
	return false
}

// pinCause says why a virtual thread blocked while mounted holds its
// carrier (R134, R135): a class initializer on its stack, a native frame
// below the parking machinery, a monitor it holds (synchronized: pins on
// JDK 21–23 only), else unknown.
func pinCause(frames []Frame) string {
	native, locked := false, false
	for i, f := range frames {
		if f.Method == "<clinit>" {
			return "class initializer"
		}
		if f.Native && i > 0 && !parkFrame(f) {
			native = true
		}
		for _, l := range f.Locks {
			if l.Verb == "locked" {
				locked = true
			}
		}
	}
	switch {
	case native:
		return "native frame"
	case locked:
		return "synchronized"
	}
	return "unknown"
}

// compensatedWait: the thread waits in Object.wait on its carrier, not
// through VirtualThread.parkOnCarrierThread, with no native frame or class
// initializer that would pin it: JDK 21–23's Object.wait runs wait0 inside
// Blocker.begin/end, which compensates (R134, R136). On JDK 24+ such a
// wait unmounts (R135), so a mounted one is pinned for one of those causes.
func compensatedWait(frames []Frame) bool {
	if len(frames) == 0 || onCarrierPark(frames) {
		return false
	}
	if f := frames[0]; f.Class != "java.lang.Object" || f.Method != "wait0" && f.Method != "wait" {
		return false
	}
	c := pinCause(frames)
	return c != "native frame" && c != "class initializer"
}

// parkFrame: a frame of the machinery every park goes through.
func parkFrame(f Frame) bool {
	return f.Class == "jdk.internal.misc.Unsafe" || f.Class == "java.lang.VirtualThread" || f.Class == "java.lang.Object" && f.Method == "wait0"
}

// jdkClass: a class of the JDK itself.
func jdkClass(class string) bool {
	for _, p := range []string{"java.", "javax.", "jdk.", "sun.", "com.sun."} {
		if strings.HasPrefix(class, p) {
			return true
		}
	}
	return false
}

// shortClass drops a class's package: "com.example.Repo$Inner" → "Repo$Inner".
func shortClass(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		return class[i+1:]
	}
	return class
}

// formatVirtual writes the virtual-thread section of Format.
func formatVirtual(b *strings.Builder, v *Virtual) {
	fmt.Fprintf(b, "\nvirtual threads: %d", v.Threads)
	if len(v.Executors) > 0 {
		parts := make([]string, len(v.Executors))
		for i, e := range v.Executors {
			parts[i] = fmt.Sprintf("%d in %s", e.Threads, e.Container)
		}
		fmt.Fprintf(b, " (%s)", strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	pinnedBy := func() {
		if v.Compensated > 0 {
			fmt.Fprintf(b, ", %d in a compensated Object.wait (R136)", v.Compensated)
		}
		if len(v.PinnedBy) > 0 {
			parts := make([]string, len(v.PinnedBy))
			for i, p := range v.PinnedBy {
				parts[i] = fmt.Sprintf("%d by %s", p.Count, causeWords(p.Cause))
			}
			fmt.Fprintf(b, " (%s)", strings.Join(parts, ", "))
		}
		b.WriteString("\n")
	}
	switch {
	case v.CarrierPool == "" && v.Mounted > 0:
		// Virtual threads name carriers the dump does not hold (a cut or
		// edited dump): they are mounted all the same (R138).
		fmt.Fprintf(b, "carriers: not in this dump, though %d virtual threads name the carrier they are mounted on: %d running, %d pinned", v.Mounted, v.Mounted-v.Pinned-v.Compensated, v.Pinned)
		pinnedBy()
	case v.CarrierPool == "":
		b.WriteString("carriers: none running a virtual thread, so the scheduler's ForkJoinPool is not told apart from others\n")
	default:
		fmt.Fprintf(b, "carriers: %d (%s*), %d carrying a virtual thread: %d running, %d pinned", v.Carriers, v.CarrierPool, v.CarriersBusy, v.Mounted-v.Pinned-v.Compensated, v.Pinned)
		pinnedBy()
	}
	for _, s := range v.Sites {
		fmt.Fprintf(b, "  %5d  %-14s %s", s.Count, s.State, s.Site)
		if s.What != "" {
			fmt.Fprintf(b, ": %s", s.What)
		}
		b.WriteString("\n")
	}
	if !v.Listed {
		b.WriteString("  (this dump lists platform threads only: unmounted virtual threads are absent, R138;\n" +
			"   jcmd <pid> Thread.dump_to_file -format=json <file> lists them all)\n")
	}
	// What the numbers say.
	if top := v.Sites; len(top) > 0 && v.Threads >= 4 && 2*top[0].Count > v.Threads && strings.HasPrefix(top[0].What, "waiting for") {
		fmt.Fprintf(b, "  %d of %d virtual threads are %s at %s:\n"+
			"  with a thread per task nothing limits the threads, so the wait moves to what they share (R145);\n"+
			"  more threads or carriers do not help, more of what they wait for or shorter holds do.\n",
			top[0].Count, v.Threads, strings.SplitN(top[0].What, " (", 2)[0], top[0].Site)
	}
	if v.Pinned > 0 && v.Carriers > 0 {
		left := fmt.Sprintf("the scheduler runs every other virtual thread on the %d left", v.Carriers-v.Pinned)
		if v.Pinned >= v.Carriers {
			left = "no carrier is left for any other virtual thread"
		}
		fmt.Fprintf(b, "  %d of %d carriers are pinned: a virtual thread that blocks while pinned keeps its carrier and\n"+
			"  no carrier is added for it (R134–R136): %s.\n", v.Pinned, v.Carriers, left)
	}
}

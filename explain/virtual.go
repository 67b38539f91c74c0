package explain

import (
	"fmt"
	"strings"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
)

// virtualFindings explains a virtual-thread-per-task executor (spec §13):
// nothing limits the threads, so the explanation is where they wait — on
// a carrier, pinned, in a connection pool, behind a concurrency limit —
// instead of idle workers and keepAlive, which do not exist (R145). It
// reports whether it did, in which case the ThreadPoolExecutor reasoning of
// analyse does not apply.
func (e *Explanation) virtualFindings() bool {
	c := e.Config
	s := e.Result.Summary
	v := s.Virtual
	if c.Flavor != model.Virtual || v == nil {
		return false
	}
	st := e.Steady
	sc := e.Scenario

	e.add("A virtual thread per task", "%s starts a new virtual thread for every task and never reuses one: no queue, no idle threads, no keepAlive, %s (R130%s). %d were started for %d tasks; at most %d were alive at once (%s on average in the steady state). They cost no thread stack — an unmounted one keeps its frames on the heap, about %s each here (R140): %s at the peak.",
		virtualExecutorName(sc), limitWords(c), virtualRules(sc), s.ThreadsCreated, s.Submitted, v.VTPeak, f1(st.Mean), bytesWords(sc.JVM.HeapPerVT()), bytesWords(v.HeapPeak))

	busy := nan0(float64(v.MountedMean))
	runnable := nan0(float64(v.RunnableMean))
	held := nan0(float64(v.PinnedMean))
	par := float64(max(v.Parallelism, 1))
	share := pct(busy / par)
	if busy > par+0.005 {
		// Compensation (R136) starts carriers beyond the parallelism.
		share = fmt.Sprintf("more than the parallelism: tryCompensate added carriers for blocking calls, R136")
	}
	e.add("Carriers", "the scheduler runs them on %d carrier threads (jdk.virtualThreadScheduler.parallelism = %d on JDK %d, R131): %s of them busy on average (%s), at most %d carriers alive. A mounted virtual thread keeps its carrier until it blocks or ends — no time slicing (R132) — and the others wait for one as runnable tasks: %s on average, up to %d; a mount waited %s on average, p99 %s.",
		v.Parallelism, v.Parallelism, v.JDK, f2(busy), share, v.CarriersPeak,
		f2(runnable), v.RunnablePeak, dur(float64(v.CarrierWaitAvg)), dur(float64(v.CarrierWaitP99)))

	// Whether virtual threads wait for a carrier to any extent that
	// matters: half a thread on average, or a tenth of the response time.
	starved := runnable >= 0.5 || nan0(float64(v.CarrierWaitAvg)) >= 0.1*nan0(float64(s.ResponseMean))
	if held > 0.005 || float64(v.PinnedCarrierSeconds) > 0 {
		sites := pinningSites(sc)
		uncompensated, compensated := holdKinds(sc)
		title := "Pinned carriers"
		if !uncompensated {
			title = "Carriers held by blocking calls"
		}
		of := fmt.Sprintf("of the %d carriers are", v.Parallelism)
		if held > par+0.005 {
			of = fmt.Sprintf("carriers (more than the parallelism, %d) are", v.Parallelism)
		}
		text := fmt.Sprintf("%s %s held on average by virtual threads blocked where they cannot unmount — %s — %s carrier-seconds in all.",
			f2(held), of, sites, f1(nan0(float64(v.PinnedCarrierSeconds))))
		if uncompensated {
			text += " A pinned carrier runs nothing else, and the JDK adds no carrier for it (R134, R136)"
			if starved {
				text += ": with every carrier held, the runnable virtual threads wait however idle the CPUs are."
			} else {
				text += fmt.Sprintf("; here the remaining carriers kept up: %s virtual threads waited for a carrier on average.", f2(runnable))
			}
		}
		if compensated {
			text += fmt.Sprintf(" A call that Blocker.begin wraps does not pin: tryCompensate wakes or starts another carrier for it (R136): %d calls were compensated, %d extra carriers started, at most %d carriers alive.", v.Compensations, v.CarriersStarted, v.CarriersPeak)
		}
		if sc.JVM.Version < 24 {
			if un := unmountsOn25(sc); un != "" {
				text += fmt.Sprintf(" On JDK 24 and later a virtual thread unmounts inside %s (JEP 491, R135): see the what-if.", un)
			}
		}
		e.add(title, "%s", text)
	}
	if v.CallerWaits > 0 {
		e.add("Concurrency limit", "SimpleAsyncTaskExecutor's concurrencyLimit (%d) made the submitting thread wait %d times for a permit (R143): its queue is the blocked callers, not a task queue; a task's caller waited %s on average for its permit (p99 %s).",
			c.ConcurrencyLimit, v.CallerWaits, dur(nan0(float64(s.WaitMean))), dur(nan0(float64(s.WaitP99))))
	}
	// Where the wait went: to pinned carriers, to a saturated resource
	// (the bottleneck finding above names it), or to the CPU work. The
	// carriers are where the wait went only if virtual threads do wait
	// for one (starved).
	live := busy + runnable + nan0(float64(v.ParkedMean))
	switch {
	case starved && held >= 0.5*busy && busy > 0.9*par:
		e.add("Where the wait went", "to the carriers: %s of %d carriers are busy, %s of them pinned in blocking calls (not computing), and %s virtual threads wait for a carrier on average (a mount waited %s on average). The carriers, not a pool or a resource, are the bottleneck: the threads that hold them are waiting, so faster CPUs would not help — unpinning the blocking call (or a JDK where it unmounts) would.",
			f2(busy), v.Parallelism, f2(held), f1(runnable), dur(float64(v.CarrierWaitAvg)))
	case func() bool { _, _, ok := Saturated(s); return ok }():
		e.add("Where the wait went", "with a thread per task nothing in front of the downstream limits concurrency, so every request that cannot get what it waits for parks there (R145): %s of the %s live virtual threads are parked. Unlike a pool of platform threads, more threads cannot help or hurt here — only the resource's size, its hold times, or a limit in front of it (a Semaphore, concurrencyLimit, maxConnections) change the wait.",
			f1(nan0(float64(v.ParkedMean))), f1(live))
	case starved && busy-held > 0.9*par:
		e.add("Where the wait went", "the carriers are nearly always busy (%s of %d) computing: the CPU work of the requests, not a pool, bounds throughput; more parallelism helps only if the machine has the CPUs.",
			f2(busy-held), v.Parallelism)
	}
	if len(e.Result.Findings) > 0 {
		e.add("Also in this run", "%s", strings.Join(e.Result.Findings, "; "))
	}
	return true
}

// limitWords says what bounds the tasks a virtual-thread executor runs at
// once: nothing, or SimpleAsyncTaskExecutor's concurrencyLimit (R143).
func limitWords(c model.Config) string {
	switch {
	case !c.Throttle || c.ConcurrencyLimit < 0:
		return "no limit"
	case c.ConcurrencyLimit == 0:
		return "and concurrencyLimit 0: every task is refused"
	case c.RejectWhenLimited:
		return fmt.Sprintf("but at most %d tasks at once: concurrencyLimit refuses the others (rejectTasksWhenLimitReached)", c.ConcurrencyLimit)
	}
	return fmt.Sprintf("but at most %d tasks at once: concurrencyLimit makes the caller wait for the others", c.ConcurrencyLimit)
}

// holdKinds says whether the scenario's carrier-holding steps include
// ones with no compensation (pinned, or held uncompensated: R134–R136)
// and ones Blocker.begin compensates (R136).
func holdKinds(sc *scenarios.Scenario) (uncompensated, compensated bool) {
	for _, ph := range sc.Workload.Phases {
		for _, st := range ph.Steps {
			switch sc.JVM.Blocking(model.Site(st.In)) {
			case model.Pinned, model.HeldUncompensated:
				uncompensated = true
			case model.Compensated:
				compensated = true
			}
		}
	}
	return uncompensated, compensated
}

// unmountsOn25 names the sites of the scenario's steps that hold a carrier
// on its JDK but unmount on JDK 24+ (JEP 491, R135): "synchronized",
// "object-wait"; "" when none does.
func unmountsOn25(sc *scenarios.Scenario) string {
	on25 := model.JVM{Version: 25}
	seen := map[model.Site]bool{}
	var out []string
	for _, ph := range sc.Workload.Phases {
		for _, st := range ph.Steps {
			site := model.Site(st.In)
			if seen[site] || !sc.JVM.Blocking(site).HoldsCarrier() || on25.Blocking(site).HoldsCarrier() {
				continue
			}
			seen[site] = true
			name := site.String()
			if site == model.InObjectWait {
				name = "Object.wait"
			}
			out = append(out, name)
		}
	}
	return strings.Join(out, " and ")
}

// virtualExecutorName names the Java construction of a virtual preset.
func virtualExecutorName(sc *scenarios.Scenario) string {
	switch sc.Pool.Preset {
	case "tomcat-virtual":
		return "Tomcat's VirtualThreadExecutor (Connector useVirtualThreads=\"true\")"
	case "spring-boot-virtual":
		return "Spring Boot with spring.threads.virtual.enabled=true (Tomcat's VirtualThreadExecutor)"
	case "simple-async":
		return "Spring's SimpleAsyncTaskExecutor on virtual threads"
	}
	return "Executors.newVirtualThreadPerTaskExecutor()"
}

func virtualRules(sc *scenarios.Scenario) string {
	switch sc.Pool.Preset {
	case "tomcat-virtual":
		return ", R141"
	case "spring-boot-virtual":
		return ", R142"
	case "simple-async":
		return ", R143"
	}
	return ""
}

// pinningSites lists the scenario's steps that hold a carrier on its JDK.
func pinningSites(sc *scenarios.Scenario) string {
	seen := map[string]bool{}
	var out []string
	for _, ph := range sc.Workload.Phases {
		for _, st := range ph.Steps {
			site := model.Site(st.In)
			if site == model.Anywhere {
				continue
			}
			b := sc.JVM.Blocking(site)
			if !b.HoldsCarrier() {
				continue
			}
			what := "a blocking call"
			if st.Resource != "" {
				what = "waiting for and holding " + st.Resource
			}
			s := fmt.Sprintf("%s in %s (%s on JDK %d)", what, site, b, sc.JVM.Version)
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		return "blocking calls that hold the carrier"
	}
	return strings.Join(out, "; ")
}

// virtualWhatIfs proposes the changes that matter on virtual threads: a
// JDK that unmounts where this one holds the carrier (synchronized,
// Object.wait: R135), and more carriers when held ones starve the runnable
// threads (R131) — not when the runnable threads do not wait for one.
func (e *Explanation) virtualWhatIfs(add func(name, why string, sets ...string)) {
	sc := e.Scenario
	s := e.Result.Summary
	v := s.Virtual
	if e.Config.Flavor != model.Virtual || v == nil {
		return
	}
	pinned := nan0(float64(v.PinnedMean)) > 0.005 || float64(v.PinnedCarrierSeconds) > 0
	if !pinned {
		return
	}
	if un := unmountsOn25(sc); sc.JVM.Version < 24 && un != "" {
		add(fmt.Sprintf("JDK %d → 25", sc.JVM.Version), "JEP 491: a virtual thread blocked inside "+un+" unmounts, so the carriers are freed (R135)", "jvm.version=25")
	}
	starved := nan0(float64(v.RunnableMean)) >= 0.5 || nan0(float64(v.CarrierWaitAvg)) >= 0.1*nan0(float64(s.ResponseMean))
	if !starved {
		return
	}
	p := 2 * sc.JVM.Parallelism
	sets := []string{fmt.Sprintf("jvm.parallelism=%d", p)}
	why := "twice the carriers: more pinned calls at once before runnable threads wait (R131)"
	if sc.JVM.MaxPoolSize < p {
		sets = append(sets, fmt.Sprintf("jvm.maxPoolSize=%d", p))
	}
	if sc.Host.CPUs > 0 && sc.Host.CPUs < p {
		sets = append(sets, fmt.Sprintf("host.cpus=%d", p))
		why += "; on twice the CPUs too"
	}
	add(fmt.Sprintf("parallelism %d → %d", sc.JVM.Parallelism, p), why, sets...)
}

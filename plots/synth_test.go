package plots

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

// synthConfig describes a synthetic Tomcat-like pool used to make realistic
// test timelines without the simulator: FIFO handoff to the longest-idle
// worker (spec R47/R54), a new thread for a task that finds no idle worker
// (R67), keepAlive expiry only while the pool is above core (R15b/R16), and
// the periodic background traffic of the seed incident (R78), whose plateau
// is N = ⌈λ(K+S)⌉ − 1.
type synthConfig struct {
	durationS   float64
	core, max   int
	keepAliveS  float64
	queueCap    int     // tasks queued beyond this are rejected
	periodS     float64 // background arrivals, one every periodS
	serviceS    float64 // background service time
	burstAtS    float64 // burst start
	burstCount  int     // tasks in the burst
	burstSpanS  float64 // burst length
	burstSvcS   float64 // service time of burst tasks
	setAtS      float64 // reconfiguration time (0 = none)
	setCore     int
	setMax      int
	shutdownAtS float64 // graceful shutdown time (0 = none)
}

// seedIncident is the R80 reproduction, shortened: core 10, max 200,
// keepAlive 60 s, 2.02 tasks/s of 5 ms in the background (plateau
// ⌈2.02·60.005⌉ − 1 = 121), a burst of 1500 tasks of 20 s at 10 min that
// fills the pool and the queue and is partly rejected, a reconfiguration at
// 60 min and a graceful shutdown at 110 min.
var seedIncident = synthConfig{
	durationS: 7200, core: 10, max: 200, keepAliveS: 60, queueCap: 300,
	periodS: 1 / 2.02, serviceS: 0.005,
	burstAtS: 600, burstCount: 1500, burstSpanS: 10, burstSvcS: 20,
	setAtS: 3600, setCore: 20, setMax: 400, shutdownAtS: 6600,
}

type synthWorker struct {
	busyUntil float64 // when busy: end of the current task
	arrived   float64 // when busy: arrival time of the current task
	idleSince float64
	timed     bool
}

// synthTimeline runs cfg and returns timeline.csv text sampled every 1 s,
// plus the events it applied.
func synthTimeline(t testing.TB, cfg synthConfig) (string, []Event) {
	t.Helper()
	type task struct{ arr, svc float64 }
	var arrivals []task
	for a := 0.0; a < cfg.durationS; a += cfg.periodS {
		arrivals = append(arrivals, task{a, cfg.serviceS})
	}
	for i := range cfg.burstCount {
		arrivals = append(arrivals, task{cfg.burstAtS + cfg.burstSpanS*float64(i)/float64(cfg.burstCount), cfg.burstSvcS})
	}
	sort.SliceStable(arrivals, func(i, j int) bool { return arrivals[i].arr < arrivals[j].arr })

	core, maxT := cfg.core, cfg.max
	var idle []*synthWorker // FIFO: idle[0] has waited longest
	var busy []*synthWorker
	var queue []task
	state := "RUNNING"
	var submitted, completed, rejected, created, exited int
	var waits, resps []float64 // of tasks started / completed in the current interval

	startIdle := func(w *synthWorker, now float64) {
		w.idleSince = now
		w.timed = len(idle)+len(busy) > core // timed fixed when the wait starts (R16)
		idle = append(idle, w)
	}
	run := func(w *synthWorker, tk task, now float64) {
		w.busyUntil, w.arrived = now+tk.svc, tk.arr
		busy = append(busy, w)
		waits = append(waits, now-tk.arr)
	}
	var b strings.Builder
	b.WriteString("t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected,discarded,caller_ran,failed,threads_created,threads_exited,core,max,wait_mean_s,wait_p50_s,wait_p99_s,wait_max_s,response_p99_s,run_state\n")
	cell := func(xs []float64, q float64) string {
		if len(xs) == 0 {
			return ""
		}
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		if q < 0 {
			sum := 0.0
			for _, v := range s {
				sum += v
			}
			return fmt.Sprintf("%.6g", sum/float64(len(s)))
		}
		return fmt.Sprintf("%.6g", s[int(math.Ceil(q*float64(len(s))))-1])
	}
	ai := 0
	setDone, shutDone := cfg.setAtS == 0, cfg.shutdownAtS == 0
	for sample := 1.0; sample <= cfg.durationS; sample++ {
		for {
			// Next event at or before the sample: completion, expiry, arrival, config.
			next, kind := sample, "sample"
			for _, w := range busy {
				if w.busyUntil < next || (w.busyUntil == next && kind == "sample") {
					next, kind = w.busyUntil, "done"
				}
			}
			for _, w := range idle {
				if e := w.idleSince + cfg.keepAliveS; w.timed && (e < next || e == next && kind == "sample") {
					next, kind = w.idleSince+cfg.keepAliveS, "expire"
				}
			}
			if ai < len(arrivals) && (arrivals[ai].arr < next || arrivals[ai].arr == next && kind == "sample") {
				next, kind = arrivals[ai].arr, "arrive"
			}
			if !setDone && cfg.setAtS <= next {
				next, kind = cfg.setAtS, "set"
			}
			if !shutDone && cfg.shutdownAtS <= next {
				next, kind = cfg.shutdownAtS, "shutdown"
			}
			if kind == "sample" {
				break
			}
			switch kind {
			case "set":
				core, maxT, setDone = cfg.setCore, cfg.setMax, true
			case "shutdown":
				state, shutDone = "SHUTDOWN", true
				exited += len(idle) // interruptIdleWorkers
				idle = nil
			case "arrive":
				tk := arrivals[ai]
				ai++
				submitted++
				switch {
				case state != "RUNNING":
					rejected++
				case len(idle)+len(busy) < core: // R4: below core a new thread takes the task
					created++
					run(&synthWorker{}, tk, next)
				case len(idle) > 0:
					w := idle[0]
					idle = idle[1:]
					run(w, tk, next)
				case len(idle)+len(busy) < maxT:
					created++
					run(&synthWorker{}, tk, next)
				case len(queue) < cfg.queueCap:
					queue = append(queue, tk)
				default:
					rejected++
				}
			case "done":
				for i, w := range busy {
					if w.busyUntil == next {
						busy = append(busy[:i], busy[i+1:]...)
						completed++
						resps = append(resps, next-w.arrived)
						switch {
						case len(queue) > 0:
							tk := queue[0]
							queue = queue[1:]
							run(w, tk, next)
						case state != "RUNNING":
							exited++
						default:
							startIdle(w, next)
						}
						break
					}
				}
			case "expire":
				for i, w := range idle {
					if w.timed && w.idleSince+cfg.keepAliveS == next {
						idle = append(idle[:i], idle[i+1:]...)
						if len(idle)+len(busy)+1 > core {
							exited++
						} else {
							startIdle(w, next)
						}
						break
					}
				}
			}
		}
		if state == "SHUTDOWN" && len(busy) == 0 && len(queue) == 0 {
			state = "TERMINATED"
		}
		timed, untimed := 0, 0
		for _, w := range idle {
			if w.timed {
				timed++
			} else {
				untimed++
			}
		}
		fmt.Fprintf(&b, "%g,%d,%d,%d,%d,%d,%d,%d,%d,0,0,0,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s\n",
			sample, len(idle)+len(busy), len(busy), timed, untimed, len(queue), submitted, completed, rejected,
			created, exited, core, maxT, cell(waits, -1), cell(waits, 0.5), cell(waits, 0.99), cell(waits, 1), cell(resps, 0.99), state)
		waits, resps = waits[:0], resps[:0]
	}
	var ev []Event
	if cfg.setAtS > 0 {
		ev = append(ev, Event{cfg.setAtS, fmt.Sprintf("set core=%d max=%d", cfg.setCore, cfg.setMax)})
	}
	if cfg.shutdownAtS > 0 {
		ev = append(ev, Event{cfg.shutdownAtS, "shutdown"})
	}
	return b.String(), ev
}

// seedTimeline is the parsed seed-incident timeline, made once per test.
func seedTimeline(t testing.TB) (*Timeline, []Event) {
	t.Helper()
	csvText, ev := synthTimeline(t, seedIncident)
	tl, err := ReadTimeline(strings.NewReader(csvText))
	if err != nil {
		t.Fatalf("ReadTimeline(synthetic): %v", err)
	}
	return tl, ev
}

// TestSynthPlateau checks the generator itself against R78 before any chart
// relies on it: after the burst the pool decays to ⌈λ(K+S)⌉ − 1 = 121 and
// stays there, all idle workers TIMED_WAITING.
func TestSynthPlateau(t *testing.T) {
	tl, _ := seedTimeline(t)
	// t = 50 min: long after the burst (ends ≈ 10 min + backlog), before the
	// reconfiguration at 60 min.
	i := 3000 - 1
	if tl.T[i] != 3000 {
		t.Fatalf("sample %d is at %g s, want 3000", i, tl.T[i])
	}
	want := math.Ceil(2.02*(60+0.005)) - 1
	if got := tl.PoolSize[i]; got != want {
		t.Errorf("pool at 50 min = %g, want the R78 plateau %g", got, want)
	}
	if tl.IdleUntimed[i] != 0 || tl.IdleTimed[i] < want-1 {
		t.Errorf("at 50 min idle_timed=%g idle_untimed=%g; want all idle workers timed (R77)", tl.IdleTimed[i], tl.IdleUntimed[i])
	}
	if peak, _ := finiteMax(tl.PoolSize); peak != 200 {
		t.Errorf("peak pool = %g, want max = 200", peak)
	}
	if last := tl.Rejected[tl.Len()-1]; last == 0 {
		t.Errorf("no rejections; the burst should overflow the queue of 300")
	}
	var buf bytes.Buffer
	buf.WriteString(tl.RunState[tl.Len()-1])
	if buf.String() != "TERMINATED" {
		t.Errorf("final run state %q, want TERMINATED", buf.String())
	}
}

package sim

import (
	"time"

	"github.com/poolsim/poolsim/model"
)

// Event phases: the order of events at the same instant (see doc.go).
const (
	phaseCompletion uint8 = iota
	phaseCPU              // the end of a CPU piece on a host with a CPU limit (host.go)
	phaseKeepAlive
	phaseArrival
	phasePeriodic // schedule calls of workload.periodic, after the arrivals
	phaseCancel   // their future.cancel(false) calls (R97), after the schedule calls
	phaseRuntime
	phaseSnapshot
	phaseSample
)

// event is one event the loop processes.
type event struct {
	at    time.Duration
	phase uint8
	idx   int32 // runtime event index
	w     *model.Worker
}

// entry is an event in the heap: only completions and keepAlive timers live
// there. key packs the phase above the sequence number, so the tie-break on
// (phase, seq) is one comparison.
type entry struct {
	at  time.Duration
	key uint64 // phase<<56 | seq
	w   *model.Worker
}

func (a *entry) less(b *entry) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

func (e *entry) phase() uint8 { return uint8(e.key >> 56) }

// eventHeap is a binary min-heap of entries by value: pushing and popping
// allocate nothing once the slice has grown (container/heap would box every
// entry in an interface).
type eventHeap struct {
	es  []entry
	seq uint64
}

func (h *eventHeap) push(at time.Duration, phase uint8, w *model.Worker) {
	h.seq++
	h.es = append(h.es, entry{at: at, key: uint64(phase)<<56 | h.seq, w: w})
	es := h.es
	k := len(es) - 1
	for k > 0 {
		parent := (k - 1) / 2
		if !es[k].less(&es[parent]) {
			break
		}
		es[k], es[parent] = es[parent], es[k]
		k = parent
	}
}

func (h *eventHeap) pop() entry {
	es := h.es
	top := es[0]
	n := len(es) - 1
	es[0] = es[n]
	es[n] = entry{}
	es = es[:n]
	h.es = es
	k := 0
	for {
		l := 2*k + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && es[r].less(&es[l]) {
			c = r
		}
		if !es[c].less(&es[k]) {
			break
		}
		es[k], es[c] = es[c], es[k]
		k = c
	}
	return top
}

func (h *eventHeap) len() int { return len(h.es) }

func (h *eventHeap) peek() *entry { return &h.es[0] }

package sim

import (
	"time"

	"github.com/poolsim/poolsim/model"
)

// Event phases: the order of events at the same instant (see doc.go).
const (
	phaseCompletion uint8 = iota
	phaseKeepAlive
	phaseArrival
	phaseRuntime
	phaseSnapshot
	phaseSample
)

type event struct {
	at    time.Duration
	seq   uint64
	phase uint8
	idx   int32 // runtime event or snapshot index
	w     *model.Worker
}

func (a *event) less(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.phase != b.phase {
		return a.phase < b.phase
	}
	return a.seq < b.seq
}

// eventHeap is a binary min-heap of events by value: pushing and popping
// allocate nothing once the slice has grown (container/heap would box every
// event in an interface).
type eventHeap struct {
	es  []event
	seq uint64
}

func (h *eventHeap) push(e event) {
	h.seq++
	e.seq = h.seq
	h.es = append(h.es, e)
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

func (h *eventHeap) pop() event {
	es := h.es
	top := es[0]
	n := len(es) - 1
	es[0] = es[n]
	es[n] = event{}
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

func (h *eventHeap) peek() *event { return &h.es[0] }

package workloads

import "sync"

// DrawAhead returns a source that hands out src's arrivals, the same ones
// in the same order, drawn ahead on a goroutine of its own while the
// caller uses those drawn before — on a machine with a second processor,
// the draws of a run cost its event loop next to nothing — or src itself
// when its arrivals cannot be drawn ahead: a source other than New's phases
// (a trace reads a file, and reports lines as it reads them), or phases
// with split laws or steps, whose LastSplit and LastSteps belong to one
// arrival at a time.
//
// Drawing ahead changes no value: nothing but the source draws from its
// streams, and it draws them in the same order whenever it draws (see
// fill). The returned source's Close stops the goroutine (it is then
// blocked on nothing); a caller that stops asking for arrivals must close
// it.
func DrawAhead(src Source) Source {
	ps, ok := src.(*phaseSource)
	if !ok || ps.splits || ps.hasSteps {
		return src
	}
	for i := range ps.phases {
		if !ps.phases[i].batch {
			return src
		}
	}
	a := &aheadSource{
		full:   make(chan []Arrival, aheadChunks-1),
		free:   make(chan []Arrival, aheadChunks),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	for range aheadChunks {
		a.free <- nil // buffers are made on first use, at the size they need
	}
	go a.draw(ps)
	return a
}

// The goroutine draws chunks of arrivals, the first of one batch and each
// next twice as large, up to aheadChunkMax: a short run does not wait for
// thousands of arrivals it will not use, and a long one hands a chunk over
// (waking the goroutine) once every few thousand tasks. At most
// aheadChunks chunks exist: the one the caller reads, and those drawn
// ahead of it.
const (
	aheadChunkMax = 4096
	aheadChunks   = 3
)

type aheadSource struct {
	full   chan []Arrival // chunks drawn, in order; an empty one ends the workload
	free   chan []Arrival // chunks handed back for reuse
	done   chan struct{}  // closed by Close: the goroutine stops
	exited chan struct{}  // closed by the goroutine as it returns (for the tests)
	stop   sync.Once

	cur []Arrival // the chunk being read, cur[ci:] not yet handed out
	ci  int
	end bool // the workload has ended
}

// draw is the goroutine: it fills free chunks from ps until the workload
// ends (an empty chunk says so) or Close.
func (a *aheadSource) draw(ps *phaseSource) {
	defer close(a.exited)
	size := batchSize
	for {
		var buf []Arrival
		select {
		case buf = <-a.free:
		case <-a.done:
			return
		}
		buf = buf[:0]
		for len(buf) < size {
			b := ps.NextBatch()
			if len(b) == 0 {
				break
			}
			buf = append(buf, b...)
		}
		select {
		case a.full <- buf:
		case <-a.done:
			return
		}
		if len(buf) == 0 {
			return
		}
		size = min(2*size, aheadChunkMax)
	}
}

// next moves to the next chunk, handing the one read back; it reports
// false when the workload has ended.
func (a *aheadSource) next() bool {
	if a.end {
		return false
	}
	if a.cur != nil {
		a.free <- a.cur // never blocks: at most aheadChunks chunks exist
	}
	a.cur, a.ci = <-a.full, 0
	if len(a.cur) == 0 {
		a.cur, a.end = nil, true
		return false
	}
	return true
}

// Next returns the next arrival.
func (a *aheadSource) Next() (Arrival, bool) {
	if a.ci == len(a.cur) && !a.next() {
		return Arrival{}, false
	}
	a.ci++
	return a.cur[a.ci-1], true
}

// NextBatch returns the rest of the current chunk, or the next one (see
// BatchSource).
func (a *aheadSource) NextBatch() []Arrival {
	if a.ci == len(a.cur) && !a.next() {
		return nil
	}
	b := a.cur[a.ci:]
	a.ci = len(a.cur)
	return b
}

func (a *aheadSource) Err() error { return nil }

// Close stops the goroutine; the source hands out nothing more.
func (a *aheadSource) Close() error {
	a.stop.Do(func() { close(a.done) })
	a.cur, a.ci, a.end = nil, 0, true
	return nil
}

package accesslog

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Sorter yields a Parser's records in arrival order.
//
// Tomcat writes a line when a request ends, so the log is in (nearly)
// completion order. Let E be the latest end (arrival + service) read so far
// and W the window. A record is held in a heap until its arrival is at or
// before E − W, then released in (arrival, line) order. This is exact as
// long as every record arrives no earlier than W before the latest end
// logged above it, i.e. W ≥ max over lines j of (max end of the lines
// before j − arrival of j): RequiredWindow computes exactly that in a first
// pass, and OpenSorted does both passes. For W of the order of the longest
// service time plus the log's disorder, the heap holds at most the requests
// that arrive within W of the newest end: memory is bounded by the arrival
// rate times W, not by the length of the log.
//
// If a record turns out to arrive before one already released (the window
// was too small), Err reports it and the iteration stops: the order is
// never silently wrong.
type Sorter struct {
	p      *Parser
	window time.Duration
	h      recHeap
	maxEnd time.Duration
	seen   bool
	last   Record
	zero   time.Duration
	based  bool
	err    error
	done   bool
	held   int
	closer io.Closer
}

// Sorted re-orders p's records by arrival, holding records for window (see
// Sorter). Arrivals come out relative to the earliest request, so the first
// record has Arrival 0.
func Sorted(p *Parser, window time.Duration) *Sorter {
	s := &Sorter{p: p, window: window}
	if window < 0 {
		s.err = fmt.Errorf("accesslog: sort window %s: must not be negative", window)
		s.done = true
	}
	return s
}

// Next returns the record with the earliest arrival not yet returned.
func (s *Sorter) Next() (Record, bool) {
	for {
		if s.err != nil {
			return Record{}, false
		}
		if len(s.h) > 0 && (s.done || s.h[0].Arrival <= s.maxEnd-s.window) {
			r := heap.Pop(&s.h).(Record)
			s.last = r
			if !s.based {
				s.zero, s.based = r.Arrival, true
			}
			r.Arrival -= s.zero
			return r, true
		}
		if s.done {
			return Record{}, false
		}
		r, ok := s.p.Next()
		if !ok {
			if err := s.p.Err(); err != nil {
				s.err = err
				return Record{}, false
			}
			s.done = true
			continue
		}
		if s.based && (r.Arrival < s.last.Arrival) {
			s.err = &inputerr.Error{File: s.p.name, Line: r.Line, Key: "window",
				Msg: fmt.Sprintf("this request arrived %s before the one on line %d, which was already released: the sort window %s is too small",
					s.last.Arrival-r.Arrival, s.last.Line, s.window),
				Allowed: "a window from RequiredWindow, or OpenSorted"}
			return Record{}, false
		}
		heap.Push(&s.h, r)
		if len(s.h) > s.held {
			s.held = len(s.h)
		}
		if end := r.Arrival + r.Service; !s.seen || end > s.maxEnd {
			s.maxEnd, s.seen = end, true
		}
	}
}

// Err returns the error that stopped the iteration, or nil.
func (s *Sorter) Err() error { return s.err }

// Stats returns the underlying parser's line counts.
func (s *Sorter) Stats() Stats { return s.p.Stats() }

// MaxHeld is the largest number of records the sorter held at once: its
// memory use.
func (s *Sorter) MaxHeld() int { return s.held }

// Close closes the file OpenSorted opened; it is safe to call more than once.
func (s *Sorter) Close() error {
	if s.closer == nil {
		return nil
	}
	err := s.closer.Close()
	s.closer = nil
	return err
}

// RequiredWindow reads a whole log once and returns a window with which
// Sorted is guaranteed to order it exactly: the largest lag, over all lines,
// between the latest end logged before a line and that line's arrival (0
// for a log already in arrival order). A smaller window may happen to work
// on a given log; this one always does. It also returns the log's Stats.
func RequiredWindow(r io.Reader, name string, opt Options) (time.Duration, Stats, error) {
	p, err := Parse(r, name, opt)
	if err != nil {
		return 0, Stats{}, err
	}
	var w, maxEnd time.Duration
	seen := false
	for {
		rec, ok := p.Next()
		if !ok {
			break
		}
		if seen && maxEnd-rec.Arrival > w {
			w = maxEnd - rec.Arrival
		}
		if end := rec.Arrival + rec.Service; !seen || end > maxEnd {
			maxEnd, seen = end, true
		}
	}
	return w, p.Stats(), p.Err()
}

// OpenSorted reads the log file at path in arrival order: a first pass
// measures the exact window (RequiredWindow), a second pass sorts with it.
// Close the Sorter when done.
func OpenSorted(path string, opt Options) (*Sorter, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &inputerr.Error{File: path, Msg: fmt.Sprintf("cannot open access log: %v", err), Err: err}
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, &inputerr.Error{File: path, Msg: "cannot open access log: is a directory"}
	}
	w, _, err := RequiredWindow(f, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, &inputerr.Error{File: path, Msg: "cannot read the log twice (it is read once to measure its disorder, then replayed)",
			Allowed: "a regular file, not a pipe", Err: err}
	}
	p, err := Parse(f, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	s := Sorted(p, w)
	s.closer = f
	return s, nil
}

// recHeap orders records by arrival, then line.
type recHeap []Record

func (h recHeap) Len() int { return len(h) }
func (h recHeap) Less(i, j int) bool {
	if h[i].Arrival != h[j].Arrival {
		return h[i].Arrival < h[j].Arrival
	}
	return h[i].Line < h[j].Line
}
func (h recHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *recHeap) Push(x any)   { *h = append(*h, x.(Record)) }
func (h *recHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}

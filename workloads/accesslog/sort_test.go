package accesslog

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// msecLog writes requests as `%{begin:msec}t %{us}T` lines in the given
// order; sortKey is each request's begin in ms, for checking.
func msecLog(reqs []request) string {
	var b strings.Builder
	for _, r := range reqs {
		fmt.Fprintf(&b, "%d %d\n", r.start/1e6, r.elapsed/1e3)
	}
	return b.String()
}

var msecOpt = Options{Pattern: "%{begin:msec}t %{us}T"}

// drain returns all records of a Sorter.
func drain(t *testing.T, s *Sorter) []Record {
	t.Helper()
	var out []Record
	for {
		r, ok := s.Next()
		if !ok {
			break
		}
		out = append(out, r)
	}
	return out
}

// TestSortedMatchesFullSort: on completion-ordered logs, Sorted with the
// RequiredWindow gives exactly the order of sorting everything in memory
// by (arrival, line). Rows vary the load and the write-order noise.
func TestSortedMatchesFullSort(t *testing.T) {
	for _, tc := range []struct {
		name   string
		seed   uint64
		n      int
		rate   float64
		jitter time.Duration
	}{
		{"light", 1, 2000, 5, 0},                             // few overlaps
		{"busy", 2, 5000, 200, 0},                            // many concurrent requests
		{"noisy writes", 3, 5000, 200, 5 * time.Millisecond}, // log lines written slightly out of end order
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := msecLog(genRequests(tc.seed, tc.n, tc.rate, tc.jitter))
			w, st, err := RequiredWindow(strings.NewReader(log), "l", msecOpt)
			if err != nil || st.Parsed != tc.n {
				t.Fatalf("window %s stats %+v err %v", w, st, err)
			}
			// The reference: every record in memory, sorted.
			p, _ := Parse(strings.NewReader(log), "l", msecOpt)
			var all []Record
			for {
				r, ok := p.Next()
				if !ok {
					break
				}
				all = append(all, r)
			}
			sort.Slice(all, func(i, j int) bool {
				if all[i].Arrival != all[j].Arrival {
					return all[i].Arrival < all[j].Arrival
				}
				return all[i].Line < all[j].Line
			})
			p, _ = Parse(strings.NewReader(log), "l", msecOpt)
			s := Sorted(p, w)
			got := drain(t, s)
			if s.Err() != nil || len(got) != len(all) {
				t.Fatalf("%d records, err %v", len(got), s.Err())
			}
			for i := range got {
				if got[i].Line != all[i].Line || got[i].Arrival != all[i].Arrival-all[0].Arrival {
					t.Fatalf("position %d: line %d at %s, want line %d at %s", i, got[i].Line, got[i].Arrival, all[i].Line, all[i].Arrival-all[0].Arrival)
				}
			}
			// A window too small for this log (0 releases each record at
			// once, and the log has inversions) must fail loudly, not
			// mis-order.
			p, _ = Parse(strings.NewReader(log), "l", msecOpt)
			s = Sorted(p, 0)
			drain(t, s)
			if s.Err() == nil || !strings.Contains(s.Err().Error(), "too small") {
				t.Errorf("window 0: no error: %v", s.Err())
			}
		})
	}
}

// TestSortedMemoryBound: the sorter holds only the requests arriving
// within the window of the newest end, not the whole log. 40000 requests
// at 100/s over 400 s, service times up to 40 s: the window is about 40 s,
// so it should hold about 100/s × 40 s = 4000 records (Poisson: a few
// hundred more at most), a tenth of the log.
func TestSortedMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("40000 requests: skipped with -short")
	}
	reqs := genRequests(5, 40000, 100, time.Millisecond)
	log := msecLog(reqs)
	w, _, err := RequiredWindow(strings.NewReader(log), "l", msecOpt)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Parse(strings.NewReader(log), "l", msecOpt)
	s := Sorted(p, w)
	got := drain(t, s)
	if s.Err() != nil || len(got) != len(reqs) {
		t.Fatalf("%d records, err %v", len(got), s.Err())
	}
	// Bound: arrivals in a window of length w at rate 100/s, plus 5
	// standard deviations of a Poisson count (sqrt of its mean).
	mean := 100 * w.Seconds()
	bound := int(mean + 5*sqrt(mean))
	t.Logf("window %s, held at most %d records (bound %d of %d)", w, s.MaxHeld(), bound, len(reqs))
	if s.MaxHeld() > bound {
		t.Errorf("held %d records, more than %d", s.MaxHeld(), bound)
	}
}

func sqrt(x float64) float64 {
	r := x
	for i := 0; i < 50; i++ {
		r = (r + x/r) / 2
	}
	return r
}

func TestOpenSorted(t *testing.T) {
	reqs := genRequests(9, 1000, 50, 0)
	path := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(path, []byte(msecLog(reqs)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSorted(path, msecOpt)
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Err() != nil || len(got) != 1000 || got[0].Arrival != 0 {
		t.Fatalf("%d records, first %+v, err %v", len(got), got[0], s.Err())
	}
	for i := 1; i < len(got); i++ {
		if got[i].Arrival < got[i-1].Arrival {
			t.Fatalf("out of order at %d", i)
		}
	}
	if st := s.Stats(); st.Parsed != 1000 {
		t.Errorf("stats %+v", st)
	}
	if _, err := OpenSorted(filepath.Join(t.TempDir(), "missing.log"), msecOpt); err == nil {
		t.Error("no error for a missing file")
	}
	// The parser's errors pass through.
	if err := os.WriteFile(path, []byte("1 2\nnot a line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSorted(path, msecOpt); err == nil {
		t.Error("no error for a bad line with MaxBadFraction 0")
	}
}

func TestSortedNegativeWindow(t *testing.T) {
	p, _ := Parse(strings.NewReader(""), "l", msecOpt)
	s := Sorted(p, -time.Second)
	if _, ok := s.Next(); ok || s.Err() == nil {
		t.Error("negative window accepted")
	}
}

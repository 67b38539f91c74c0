package model

import (
	"testing"
	"time"
)

// The pinning table by JDK version (R133–R136), row by row.
func TestJVMBlocking(t *testing.T) {
	for _, c := range []struct {
		version int
		site    Site
		want    Blocking
	}{
		{21, Anywhere, Unmounts},          // R133: a j.u.c. park, sleep, socket I/O unmounts
		{21, InSynchronized, Pinned},      // R134: a park holding a monitor pins, no compensation
		{23, InSynchronized, Pinned},      // R134: JDK 21–23 alike
		{21, InObjectWait, Compensated},   // R134: Object.wait blocks the carrier, Blocker compensates (R136)
		{21, InFileIO, Compensated},       // R136: FileInputStream read under Blocker on 21
		{21, InNative, Pinned},            // R134: a native frame pins
		{21, InClinit, Pinned},            // R134 (VM frames)
		{24, InSynchronized, Unmounts},    // R135: JEP 491
		{25, InSynchronized, Unmounts},    // R135
		{25, InObjectWait, Unmounts},      // R135: Object.wait unmounts on 24+
		{25, InFileIO, HeldUncompensated}, // R136: 25's file reads hold the carrier uncompensated
		{25, InNative, Pinned},            // R135: still pins
		{25, InClinit, Pinned},            // R135: measured, 4 × 300 ms in <clinit> on P = 2 took 604 ms
		{25, Anywhere, Unmounts},          // R133
	} {
		if got := (JVM{Version: c.version}).Blocking(c.site); got != c.want {
			t.Errorf("JDK %d, %q: got %v, want %v", c.version, c.site, got, c.want)
		}
	}
}

// R131: the defaults of the scheduler.
func TestDefaultJVM(t *testing.T) {
	for _, c := range []struct{ p, max, minRunnable int }{
		{1, 256, 1}, // max(P, 256), max(P/2, 1)
		{2, 256, 1},
		{8, 256, 4},
		{300, 300, 150},
	} {
		j := DefaultJVM(25, c.p)
		if j.MaxPoolSize != c.max || j.MinRunnable != c.minRunnable {
			t.Errorf("P=%d: maxPoolSize %d minRunnable %d, want %d %d", c.p, j.MaxPoolSize, j.MinRunnable, c.max, c.minRunnable)
		}
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// R131, R132: carriers start on demand up to P; beyond, runnable VTs wait
// FIFO; a mounted VT keeps its carrier until it unmounts (no preemption),
// and the freed carrier takes the head of the queue.
func TestCarrierFIFO(t *testing.T) {
	s := NewCarrierScheduler(DefaultJVM(25, 2))
	if s.Carriers(0) != 0 {
		t.Fatalf("a new scheduler has %d carriers, want 0 (started on demand)", s.Carriers(0))
	}
	for vt, want := range map[VT]bool{1: true} {
		if got := s.Runnable(0, vt); got != want {
			t.Fatalf("VT %d mounted %v", vt, got)
		}
	}
	if !s.Runnable(0, 2) || s.Carriers(0) != 2 {
		t.Fatalf("the second VT must start the second carrier (P = 2): carriers %d", s.Carriers(0))
	}
	for _, vt := range []VT{3, 4, 5} {
		if s.Runnable(ms(1), vt) {
			t.Fatalf("VT %d mounted with both carriers busy", vt)
		}
		s.CheckInvariants()
	}
	if s.RunnableLen() != 3 || s.Carriers(ms(1)) != 2 {
		t.Fatalf("runnable %d carriers %d, want 3 and 2", s.RunnableLen(), s.Carriers(ms(1)))
	}
	for i, want := range []Mount{{3, ms(9)}, {4, ms(19)}, {5, ms(29)}} {
		m, ok := s.Unmount(ms(10 * (i + 1)))
		if !ok || m != want {
			t.Fatalf("unmount %d: got %+v %v, want %+v (FIFO)", i, m, ok, want)
		}
		s.CheckInvariants()
	}
	if _, ok := s.Unmount(ms(40)); ok {
		t.Fatal("an empty queue mounts nothing")
	}
	if s.Busy() != 1 || s.Carriers(ms(40)) != 2 {
		t.Fatalf("busy %d carriers %d, want 1 and 2", s.Busy(), s.Carriers(ms(40)))
	}
}

// R134: a pinned park holds its carrier with no compensation: with both
// carriers pinned, runnable VTs wait and no carrier is added.
func TestPinnedHoldsCarrier(t *testing.T) {
	s := NewCarrierScheduler(DefaultJVM(21, 2))
	s.Runnable(0, 1)
	s.Runnable(0, 2)
	for i := 0; i < 2; i++ {
		if c, _, ok := s.BeginBlocking(0, Pinned); c != NotCompensated || ok {
			t.Fatalf("a pinned park compensated: %v", c)
		}
	}
	if s.Runnable(ms(1), 3) || s.Carriers(ms(1)) != 2 || s.Held() != 2 {
		t.Fatalf("carriers %d held %d, want 2 and 2 with VT 3 runnable", s.Carriers(ms(1)), s.Held())
	}
	s.EndBlocking(ms(5), NotCompensated)
	if m, ok := s.Unmount(ms(5)); !ok || m.VT != 3 || m.Waited != ms(4) {
		t.Fatalf("got %+v %v", m, ok)
	}
	s.CheckInvariants()
}

// R136: tryCompensate's order (JDK 25): wake an idle carrier; else, if
// active > minRunnable and total >= P, count one active fewer (no
// thread); else start a carrier while total < maxPoolSize; else none.
func TestTryCompensate(t *testing.T) {
	// P = 2, minRunnable 1, maxPoolSize 3.
	j := JVM{Version: 21, Parallelism: 2, MaxPoolSize: 3, MinRunnable: 1}
	s := NewCarrierScheduler(j)
	s.Runnable(0, 1)
	s.Runnable(0, 2)
	s.Unmount(0) // one carrier idle
	if c, _, _ := s.BeginBlocking(0, Compensated); c != WokeIdle {
		t.Fatalf("with an idle carrier: %v, want WokeIdle", c)
	}
	s.Runnable(0, 3) // the idle carrier takes it
	s.Runnable(0, 4) // queued
	// active 2 (busy) > minRunnable 1, total 2 >= P: count one fewer.
	c, _, ok := s.BeginBlocking(ms(1), Compensated)
	if c != CountedFewer || ok || s.Carriers(ms(1)) != 2 {
		t.Fatalf("got %v %v, carriers %d; want CountedFewer and no new carrier", c, ok, s.Carriers(ms(1)))
	}
	s.CheckInvariants()
	s.EndBlocking(ms(2), CountedFewer) // VT 3's call ends: the count is back
	// VT 1 (held, WokeIdle) and VT 3 (mounted) busy; active = 2 > 1 again: CountedFewer.
	if c, _, _ := s.BeginBlocking(ms(3), Compensated); c != CountedFewer {
		t.Fatalf("got %v, want CountedFewer", c)
	}
	// Now active = busy 2 − released 1 = 1, not > minRunnable: start a
	// carrier (total 2 < maxPoolSize 3) — but both carriers are held
	// already; BeginBlocking needs a mounted, unheld VT. End VT 1's call
	// and block it again.
	s.EndBlocking(ms(4), WokeIdle)
	c, m, ok := s.BeginBlocking(ms(5), Compensated)
	if c != StartedCarrier || !ok || m.VT != 4 || m.Waited != ms(5) || s.Carriers(ms(5)) != 3 {
		t.Fatalf("got %v %+v %v carriers %d; want StartedCarrier mounting VT 4 after 5ms on carrier 3", c, m, ok, s.Carriers(ms(5)))
	}
	s.CheckInvariants()
	// Total = maxPoolSize: the next call goes uncompensated.
	s.Runnable(ms(6), 5)
	s.EndBlocking(ms(6), CountedFewer)
	s.EndBlocking(ms(6), StartedCarrier)
	if c, _, _ := s.BeginBlocking(ms(7), Compensated); c == StartedCarrier {
		t.Fatal("a carrier beyond maxPoolSize")
	}
	if s.Compensations() != 5 || s.CarriersStarted() != 1 {
		t.Fatalf("compensations %d started %d, want 5 and 1", s.Compensations(), s.CarriersStarted())
	}
}

// R131, R136: a carrier started by compensation beyond P ends after 30 s
// idle (lazily: it is gone at any time >= idle + 30 s); the first P stay.
func TestSurplusCarrierKeepAlive(t *testing.T) {
	s := NewCarrierScheduler(JVM{Version: 21, Parallelism: 1, MaxPoolSize: 4, MinRunnable: 1})
	s.Runnable(0, 1)
	s.Runnable(0, 2) // queued
	c, m, ok := s.BeginBlocking(0, Compensated)
	if c != StartedCarrier || !ok || m.VT != 2 {
		t.Fatalf("got %v %+v %v", c, m, ok)
	}
	s.Unmount(ms(10)) // VT 2 parks: carrier 2 idle since 10ms
	s.EndBlocking(ms(20), c)
	s.Unmount(ms(20)) // VT 1 ends: both idle
	if n := s.Carriers(ms(10) + CarrierKeepAlive - 1); n != 2 {
		t.Fatalf("carriers %d just before the keep-alive, want 2", n)
	}
	if n := s.Carriers(ms(10) + CarrierKeepAlive); n != 1 {
		t.Fatalf("carriers %d at the keep-alive, want 1 (P)", n)
	}
	if n := s.Carriers(time.Hour); n != 1 {
		t.Fatalf("carriers %d after an hour, want P = 1", n)
	}
	s.CheckInvariants()
}

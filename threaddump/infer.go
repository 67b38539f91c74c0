package threaddump

import (
	"fmt"
	"strings"
)

// finishDump completes a parsed dump: virtual threads recognised by their
// frames (JDK 21–24 JSON has no "virtual" flag), missing states inferred
// from the frames, and a note saying so.
func finishDump(d *Dump) {
	inferred, unknown := 0, 0
	for i := range d.Threads {
		t := &d.Threads[i]
		if n := len(t.Frames); n > 0 && t.Frames[n-1].Class == "java.lang.VirtualThread" && t.Frames[n-1].Method == "run" {
			t.Virtual = true
		}
		if t.JVMInternal || t.State != "" {
			continue
		}
		if s := inferState(t.Frames); s != "" {
			t.State, t.StateInferred = s, true
			d.StatesInferred = true
			inferred++
		} else {
			unknown++
		}
	}
	if inferred+unknown > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf(
			"%d threads carry no java.lang.Thread.State in this dump (jcmd Thread.dump_to_file before JDK 25, or JDK 21+ carrier threads): "+
				"%d inferred from their top frames (sleep, park with or without a timeout, native code), %d left %s",
			inferred+unknown, inferred, unknown, StateUnknown))
	}
}

// inferState guesses java.lang.Thread.State from the top frames, only where
// they leave no doubt: sleeping and timed parking are TIMED_WAITING, untimed
// parking is WAITING, native code other than those is RUNNABLE. Object.wait
// (timed or not: the frames do not tell) and plain Java code (RUNNABLE or
// BLOCKED on a monitor) give "".
func inferState(frames []Frame) string {
	if len(frames) == 0 {
		return ""
	}
	top := frames[0]
	switch {
	case top.Class == "java.lang.Thread" && strings.HasPrefix(top.Method, "sleep"):
		return StateTimedWaiting
	case top.Class == "java.lang.VirtualThread":
		switch top.Method {
		case "parkNanos", "sleepNanos":
			return StateTimedWaiting
		case "park":
			return StateWaiting
		}
		return ""
	case (top.Class == "jdk.internal.misc.Unsafe" || top.Class == "sun.misc.Unsafe") && top.Method == "park":
		if len(frames) > 2 && frames[1].Class == "java.lang.VirtualThread" && frames[1].Method == "parkOnCarrierThread" {
			// A pinned virtual thread parks its carrier (R134, R135).
			switch frames[2].Method {
			case "parkNanos":
				return StateTimedWaiting
			case "park":
				return StateWaiting
			}
		}
		if len(frames) > 1 && frames[1].Class == "java.util.concurrent.locks.LockSupport" {
			switch frames[1].Method {
			case "parkNanos", "parkUntil":
				return StateTimedWaiting
			case "park":
				return StateWaiting
			}
		}
		return ""
	case top.Class == "java.lang.Object" && strings.HasPrefix(top.Method, "wait"):
		return ""
	case top.Native:
		return StateRunnable
	}
	return ""
}

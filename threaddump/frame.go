package threaddump

import (
	"strconv"
	"strings"
)

// parseFrame reads one StackTraceElement as jstack ("java.util.X.m(java.base@17/X.java:12)")
// or StackTraceElement.toString ("java.base/java.util.X.m(X.java:12)",
// "app//com.Foo.m(Foo.java:3)") print it. Hidden classes keep their
// "/0x…" suffix in Class ("Foo$$Lambda/0x0000000801001200").
func parseFrame(s string) (Frame, bool) {
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") || open >= len(s)-2 {
		return Frame{}, false
	}
	qualified, loc := s[:open], s[open+1:len(s)-1]
	if strings.ContainsAny(qualified, " \t") {
		return Frame{}, false
	}
	var f Frame
	// Module or loader prefixes are separated by '/'; a hidden class's
	// "/0x…" suffix is part of the class name.
	segs := strings.Split(qualified, "/")
	merged := segs[:0:0]
	for i, seg := range segs {
		if i > 0 && strings.HasPrefix(seg, "0x") {
			merged[len(merged)-1] += "/" + seg
			continue
		}
		merged = append(merged, seg)
	}
	if len(merged) > 1 {
		f.Module = strings.TrimSuffix(strings.Join(merged[:len(merged)-1], "/"), "/")
		if f.Module == "" {
			f.Module = strings.Join(merged[:len(merged)-1], "/")
		}
	}
	cm := merged[len(merged)-1]
	dot := strings.LastIndexByte(cm, '.')
	if dot <= 0 || dot == len(cm)-1 {
		return Frame{}, false
	}
	f.Class, f.Method = cm[:dot], cm[dot+1:]
	// jstack (JDK 9+) prints the module inside the parentheses.
	if slash := strings.LastIndexByte(loc, '/'); slash >= 0 {
		if f.Module == "" {
			f.Module = loc[:slash]
		}
		loc = loc[slash+1:]
	}
	switch loc {
	case "Native Method":
		f.Native = true
	case "Unknown Source", "":
	default:
		if colon := strings.LastIndexByte(loc, ':'); colon >= 0 {
			if n, err := strconv.Atoi(loc[colon+1:]); err == nil && n >= 0 {
				f.Line = n
				loc = loc[:colon]
			}
		}
		f.File = loc
	}
	return f, true
}

// parseLock reads the part after "- " (or "// ") of a lock line:
//
//	locked <0x000000069ec05890> (a java.io.BufferedInputStream)
//	parking to wait for  <0x…> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)
//	parking to wait for <java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@1de3e99c>
//	<0x000000069ec400a8> (a java.util.concurrent.ThreadPoolExecutor$Worker)
//	parked on java.util.concurrent.SynchronousQueue$Transferer@4a26b34a
func parseLock(s string) Lock {
	s = strings.TrimSpace(s)
	var l Lock
	lt := strings.IndexByte(s, '<')
	if lt < 0 {
		// "// parked on Class@hash", "lock is eliminated"
		verb, obj := s, ""
		for _, v := range []string{"parked on ", "blocked on ", "waiting on ", "locked "} {
			if strings.HasPrefix(s, v) {
				verb, obj = strings.TrimSpace(v), strings.TrimSpace(s[len(v):])
				break
			}
		}
		l.Verb = verb
		if obj != "" {
			l.Class, l.Address = splitIdentity(obj)
		}
		return l
	}
	l.Verb = strings.TrimSpace(s[:lt])
	gt := strings.IndexByte(s[lt:], '>')
	if gt < 0 {
		l.Class, l.Address = splitIdentity(s[lt+1:])
		return l
	}
	inner := s[lt+1 : lt+gt]
	after := strings.TrimSpace(s[lt+gt+1:])
	if strings.HasPrefix(inner, "0x") {
		l.Address = inner
	} else {
		l.Class, l.Address = splitIdentity(inner)
	}
	if strings.HasPrefix(after, "(a ") {
		l.Class = strings.TrimSuffix(strings.TrimSpace(after[3:]), ")")
		l.Class = strings.TrimSuffix(l.Class, ",")
	}
	return l
}

// splitIdentity splits Objects.toIdentityString output "Class@hash".
func splitIdentity(s string) (class, hash string) {
	s = strings.TrimSpace(s)
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		return s[:at], s[at+1:]
	}
	return s, ""
}

// simpleName is the class name without package and enclosing classes:
// "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue" →
// "DelayedWorkQueue".
func simpleName(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		class = class[i+1:]
	}
	if i := strings.LastIndexByte(class, '$'); i >= 0 && i < len(class)-1 {
		class = class[i+1:]
	}
	return class
}

// topName is the class name without its package: "ThreadPoolExecutor$Worker".
func topName(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		return class[i+1:]
	}
	return class
}

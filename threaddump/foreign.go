package threaddump

import (
	"strconv"
	"strings"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// remedy is what every refusal of a foreign dump suggests.
const remedy = "take a HotSpot thread dump with jstack PID or jcmd PID Thread.print"

// foreignKind names a thread dump (or a look-alike) that Parse does not
// read, by what a line of it shows, so that the refusal says what the file
// is rather than "no thread dump found".
type foreignKind struct {
	what string            // "OpenJ9 javacore …", as the error names it
	is   func(string) bool // the trimmed line gives the format away
}

// foreignUpFront are formats whose threads the HotSpot parser could
// half-read (JRockit prints "prio=" and "tid=" in its headers) or whose
// files are always foreign (javacore): they are refused before parsing
// unless a HotSpot "Full thread dump" header is in the file too.
var foreignUpFront = []foreignKind{
	{what: "JRockit thread dump (\"===== FULL THREAD DUMP =====\"): not a HotSpot thread dump", is: func(s string) bool {
		return strings.HasPrefix(s, "===== FULL THREAD DUMP")
	}},
	{what: "OpenJ9 javacore (IBM J9 \"0SECTION\"/\"3XMTHREADINFO\" records): not a HotSpot thread dump", is: func(s string) bool {
		return strings.HasPrefix(s, "0SECTION ") || strings.HasPrefix(s, "3XMTHREADINFO ") || strings.HasPrefix(s, "1TISIGINFO ")
	}},
}

// foreignAfter are formats recognised only when the HotSpot parser found
// no thread at all.
var foreignAfter = []foreignKind{
	{what: "a ThreadMXBean-style dump (\"name\" Id=N STATE lines, as ThreadInfo.toString, jconsole or JMX tools print): not a HotSpot thread dump", is: isThreadInfoHeader},
	{what: "an Android ART/Dalvik trace (\"DALVIK THREADS\"): not a HotSpot thread dump", is: func(s string) bool {
		return strings.HasPrefix(s, "DALVIK THREADS") || (strings.HasPrefix(s, "----- pid ") && strings.Contains(s, " at "))
	}},
	{what: "a Go goroutine dump (\"goroutine N [state]:\"): not a Java thread dump", is: func(s string) bool {
		f := strings.Fields(s)
		return len(f) >= 3 && f[0] == "goroutine" && allDigits(f[1]) && strings.HasPrefix(f[2], "[") && strings.HasSuffix(s, ":")
	}},
}

// isThreadInfoHeader matches `"name" Id=12 WAITING on …` (ThreadInfo.toString)
// and `"name" id=12 in RUNNABLE` (jconsole-style prints).
func isThreadInfoHeader(s string) bool {
	if len(s) < 3 || s[0] != '"' {
		return false
	}
	q := strings.LastIndexByte(s, '"')
	f := strings.Fields(s[q+1:])
	if len(f) < 2 || !(strings.HasPrefix(f[0], "Id=") || strings.HasPrefix(f[0], "id=")) || !allDigits(f[0][3:]) {
		return false
	}
	st := f[1]
	if st == "in" && len(f) > 2 {
		st = f[2]
	}
	return isState(st)
}

// findForeign returns the refusal for the first line of text that one of
// kinds recognises, or nil.
func findForeign(name, text string, kinds []foreignKind) error {
	for i, line := range strings.Split(text, "\n") {
		s := strings.TrimSpace(line)
		for _, k := range kinds {
			if k.is(s) {
				return inputerr.New(name, i+1, 1, "", k.what, remedy)
			}
		}
	}
	return nil
}

// refuseForeign refuses a file that is another JVM's thread dump, naming
// it. A HotSpot "Full thread dump" header anywhere in the file wins over a
// stray foreign line (a log may quote one).
func refuseForeign(name, text string) error {
	if strings.Contains(text, "Full thread dump") {
		return nil
	}
	return findForeign(name, text, foreignUpFront)
}

// parseVisualVMHeader reads the thread header VisualVM (and the NetBeans
// profiler) write in their thread dumps:
//
//	"Timer-180" - Thread t@332
//	"RMI TCP Connection(idle)" daemon - Thread t@41
func parseVisualVMHeader(s string) (*Thread, bool) {
	if len(s) < 3 || s[0] != '"' {
		return nil, false
	}
	q := strings.LastIndexByte(s, '"')
	rest := strings.TrimSpace(s[q+1:])
	daemon := false
	if r, ok := strings.CutPrefix(rest, "daemon "); ok {
		rest, daemon = r, true
	}
	num, ok := strings.CutPrefix(rest, "- Thread t@")
	if q <= 0 || !ok || !allDigits(num) {
		return nil, false
	}
	t := &Thread{Name: s[1:q], Daemon: daemon}
	t.Number, _ = strconv.ParseInt(num, 10, 64)
	return t, true
}

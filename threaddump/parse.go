package threaddump

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// allowedInput is the "what is allowed" part of Parse's input errors.
const allowedInput = "the output of jstack, jcmd Thread.print, kill -3, or jcmd Thread.dump_to_file (plain or -format=json)"

// maxInput bounds what Parse reads: far above any real dump (a JVM with
// 100 000 threads prints about 200 MB), low enough not to exhaust memory.
const maxInput = 1 << 30

// ParseFile reads the thread dump in the file at path (see Parse).
func ParseFile(path string) (*Dump, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputerr.Error{File: path, Msg: "cannot read the thread dump: " + errText(err), Err: err}
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads a thread dump in any of the forms of JDK 6 to 25: jstack
// (with or without -l, -e), jcmd Thread.print (with or without -l, with its
// "<pid>:" first line), kill -3 output mixed into a log, and jcmd
// Thread.dump_to_file in plain text or JSON. name is used in errors and
// notes. It tolerates CRLF line ends, UTF-16 with a byte order mark, junk
// lines and a truncated end (Dump.Truncated).
//
// When the file holds several dumps (a log with repeated kill -3), Parse
// returns the last one and says so in Dump.Notes; ParseAll returns each.
//
// Errors are *inputerr.Error: an empty file, binary data, or text without
// any thread dump in it. Parse never panics.
func Parse(r io.Reader, name string) (*Dump, error) {
	dumps, err := ParseAll(r, name)
	if err != nil {
		return nil, err
	}
	d := dumps[len(dumps)-1]
	if len(dumps) > 1 {
		lines := make([]string, len(dumps))
		for i, x := range dumps {
			lines[i] = strconv.Itoa(x.Line)
		}
		d.Notes = append(d.Notes, fmt.Sprintf("the file holds %d thread dumps (at lines %s); this is the last one",
			len(dumps), strings.Join(lines, ", ")))
	}
	return d, nil
}

// ParseAll reads every thread dump in r, in file order (see Parse). It
// returns at least one dump, or an error.
func ParseAll(r io.Reader, name string) ([]*Dump, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, &inputerr.Error{File: name, Msg: "cannot read the thread dump: " + errText(err), Err: err}
	}
	if len(data) > maxInput {
		return nil, inputerr.New(name, 0, 0, "", fmt.Sprintf("file larger than %d bytes", maxInput), allowedInput)
	}
	text, nuls, err := decodeText(data, name)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, inputerr.New(name, 0, 0, "", "empty file, no thread dump in it", allowedInput)
	}
	var dumps []*Dump
	if first := strings.TrimLeft(text, " \t\r\n"); strings.HasPrefix(first, "{") {
		d, err := parseJSON(text, name)
		if err != nil {
			return nil, err
		}
		dumps = []*Dump{d}
	} else {
		if err := refuseForeign(name, text); err != nil {
			return nil, err
		}
		text, prefixed := stripLinePrefix(text)
		p := &textParser{name: name}
		if dumps, err = p.run(text); err != nil {
			if ferr := findForeign(name, text, foreignAfter); ferr != nil {
				return nil, ferr
			}
			return nil, err
		}
		if prefixed > 0 {
			for _, d := range dumps {
				d.Notes = append(d.Notes, fmt.Sprintf("%d lines carried a log prefix before the dump text (journald, syslog); it was removed", prefixed))
			}
		}
	}
	if nuls > 0 {
		for _, d := range dumps {
			d.Notes = append(d.Notes, fmt.Sprintf("%d NUL bytes ignored (a log truncated while being written, e.g. by logrotate copytruncate)", nuls))
		}
	}
	return dumps, nil
}

// decodeText turns the file into UTF-8 text: UTF-16 with a byte order mark
// (PowerShell's "jstack > file") is converted, a UTF-8 BOM dropped. NUL
// bytes are dropped when the rest is text (logrotate's copytruncate leaves
// runs of them in a log); otherwise they, or mostly non-text bytes, make a
// binary-data error. nuls counts the dropped NUL bytes.
func decodeText(data []byte, name string) (text string, nuls int, err error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		le := data[0] == 0xFF
		data = data[2:]
		u := make([]uint16, len(data)/2)
		for i := range u {
			if le {
				u[i] = uint16(data[2*i]) | uint16(data[2*i+1])<<8
			} else {
				u[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
			}
		}
		data = []byte(string(utf16.Decode(u)))
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		clean := bytes.ReplaceAll(data, []byte{0}, nil)
		if len(bytes.TrimSpace(clean)) == 0 || nonText(clean) > 0 {
			line, col := position(data, i)
			return "", 0, inputerr.New(name, line, col, "", "binary data (a NUL byte), not a text thread dump", allowedInput)
		}
		nuls, data = len(data)-len(clean), clean
	}
	if firstBad := nonText(data); firstBad > 0 {
		line, col := position(data, firstBad-1)
		head := min(len(data), 64<<10)
		return "", 0, inputerr.New(name, line, col, "", fmt.Sprintf("binary data (%d of the first %d bytes are not text), not a text thread dump", countNonText(data[:head], head < len(data)), head), allowedInput)
	}
	return string(data), nuls, nil
}

// nonText reports binary junk: more than 1 in 20 bytes of the first 64 KiB
// invalid UTF-8 or control characters. It returns 1 + the offset of the
// first such byte, or 0 for text.
func nonText(data []byte) int {
	head := data[:min(len(data), 64<<10)]
	if countNonText(head, len(head) < len(data))*20 <= len(head) {
		return 0
	}
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if isNonText(r, size) {
			return i + 1
		}
		i += size
	}
	return 1
}

func isNonText(r rune, size int) bool {
	return (r == utf8.RuneError && size == 1) ||
		(r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v' && r != 0x1b)
}

// countNonText counts the bytes of head that are not text; with cut, a
// character straddling the end of head is not counted.
func countNonText(head []byte, cut bool) int {
	bad := 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if isNonText(r, size) && (!cut || r != utf8.RuneError || len(head)-i >= utf8.UTFMax) {
			bad++
		}
		i += size
	}
	return bad
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// stripLinePrefix removes a log prefix that journald, syslog or a quoting
// mail/issue client put before every line of a dump
// ("Dec 01 20:00:08 web1 java[4242]: ", "> "). The prefix is learnt from the
// first "Full thread dump" line: any line that starts with text of the same
// shape (digits may differ: timestamps) loses it, and a line that is the
// prefix alone (without its trailing blanks) becomes blank. It returns the
// text and how many lines changed.
func stripLinePrefix(text string) (string, int) {
	at := strings.Index(text, "Full thread dump ")
	if at < 0 {
		return text, 0
	}
	prefix := text[strings.LastIndexByte(text[:at], '\n')+1 : at]
	if strings.TrimSpace(prefix) == "" {
		return text, 0
	}
	shape := digitShape(prefix)
	bare := strings.TrimRight(shape, " \t")
	lines := strings.Split(text, "\n")
	changed := 0
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case len(l) >= len(shape) && digitShape(l[:len(shape)]) == shape:
			lines[i] = l[len(shape):]
			changed++
		case len(l) == len(bare) && digitShape(l) == bare:
			lines[i] = ""
			changed++
		}
	}
	return strings.Join(lines, "\n"), changed
}

// digitShape replaces every ASCII digit with '0'.
func digitShape(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= '0' && c <= '9' {
			b[i] = '0'
		}
	}
	return string(b)
}

// section is where the text parser is.
type section int

const (
	secOutside  section = iota // between dumps, or in log lines
	secDump                    // inside a dump, between threads
	secThread                  // inside a thread: state, frames, lock lines
	secTail                    // after a thread's blank line: maybe its "Locked ownable synchronizers"
	secSync                    // inside "Locked ownable synchronizers"
	secSMR                     // inside "Threads class SMR info"
	secDeadlock                // inside "Found one Java-level deadlock" … "Found N deadlocks."
)

// textParser reads HotSpot dumps and Thread.dump_to_file plain text, line by
// line, as a small state machine.
type textParser struct {
	name  string
	dumps []*Dump
	cur   *Dump   // the dump being read (nil between dumps)
	last  *Dump   // the most recent dump, even when closed (for deadlock reports after the trailer)
	th    *Thread // the thread being read
	ended bool    // th saw its terminating blank line
	sec   section
	n     int // the line being read

	// what was printed just before a dump header (jcmd's "<pid>:", the
	// timestamp, Thread.dump_to_file's version), from line pendFirst to pendLine
	pendTime, pendVM    string
	pendPID             int64
	pendFirst, pendLine int

	// per current dump
	sawHeader, sawTrailer bool
	visualVM              bool // "name" - Thread t@N headers: no trailer is printed
	skipped, firstSkipped int
	cutLine               int // the line of the thread the file ends in (truncation note)
	cutName               string

	// lines outside every dump
	outside, firstOutside int
}

func (p *textParser) run(text string) ([]*Dump, error) {
	n := 0
	for len(text) > 0 {
		n++
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
			// The last line has no newline: maybe cut. A cut blank line is
			// no thread's closing blank line.
			if strings.TrimSpace(line) == "" {
				break
			}
		}
		p.line(n, strings.TrimSuffix(line, "\r"))
	}
	p.eof()
	if len(p.dumps) == 0 {
		return nil, inputerr.New(p.name, 1, 1, "", "not a thread dump: no thread header (\"name\" #N … tid=… nid=…, or #N \"name\") found", allowedInput)
	}
	// A "Full thread dump" header with no thread after it is no dump.
	kept := p.dumps[:0]
	for _, d := range p.dumps {
		if len(d.Threads) > 0 {
			kept = append(kept, d)
		}
	}
	if len(kept) == 0 {
		d := p.dumps[len(p.dumps)-1]
		return nil, inputerr.New(p.name, d.Line, 1, "", "thread dump ends before its first thread (truncated)", allowedInput)
	}
	if p.outside > 0 {
		d := kept[len(kept)-1]
		d.SkippedLines += p.outside
		d.Notes = append(d.Notes, fmt.Sprintf("%d lines outside the thread dump(s) skipped (log lines or junk; first at line %d)", p.outside, p.firstOutside))
	}
	return kept, nil
}

func (p *textParser) line(n int, raw string) {
	p.n = n
	s := strings.TrimSpace(raw)
	switch p.sec {
	case secSMR:
		if s == "" {
			p.sec = secDump
		}
		return
	case secDeadlock:
		// The report ends with "Found 1 deadlock." / "Found 2 deadlocks."
		if f := strings.Fields(s); len(f) >= 3 && f[0] == "Found" && allDigits(f[1]) && strings.HasPrefix(f[2], "deadlock") {
			p.deadlocks(f[1])
			p.sec = secOutside
			if p.cur != nil {
				p.sec = secDump
			}
		}
		return
	}
	if s == "" {
		switch p.sec {
		case secThread:
			p.ended = true
			p.sec = secTail
		case secSync:
			p.sec = secTail
		}
		return
	}
	switch {
	case strings.HasPrefix(s, "Full thread dump"):
		p.openDump(n, FormHotSpot)
		p.sawHeader = true
		p.cur.VM = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(s, "Full thread dump")), ":")
		return
	case strings.HasPrefix(s, "JNI global refs") || strings.HasPrefix(s, "JNI global references"):
		if p.cur != nil {
			p.closeThread()
			p.sawTrailer = true
			p.closeDump()
			return
		}
	case strings.HasPrefix(s, "Found one Java-level deadlock"):
		p.closeThread()
		if p.cur != nil || p.last != nil {
			p.sec = secDeadlock
			return
		}
	case s == "Threads class SMR info:" && p.cur != nil:
		p.sec = secSMR
		return
	}
	if t, ok := parseHotSpotHeader(s); ok {
		if p.cur == nil || p.cur.Form != FormHotSpot {
			p.openDump(n, FormHotSpot)
		}
		p.openThread(n, t)
		return
	}
	if t, ok := parseVisualVMHeader(s); ok {
		if p.cur == nil || p.cur.Form != FormHotSpot {
			p.openDump(n, FormHotSpot)
		}
		p.visualVM = true
		p.openThread(n, t)
		return
	}
	if t, ok := parseTextHeader(s); ok {
		if p.cur == nil || p.cur.Form != FormText {
			p.openDump(n, FormText)
		}
		p.openThread(n, t)
		return
	}
	if p.cur == nil || p.sec == secOutside {
		p.pending(n, s)
		return
	}
	if p.th != nil && p.body(s, raw) {
		return
	}
	p.pending(n, s)
	if p.cur != nil {
		p.skipped++
		if p.firstSkipped == 0 {
			p.firstSkipped = n
		}
	}
}

// body handles a line inside or just after a thread; it reports whether the
// line belonged to the thread.
func (p *textParser) body(s, raw string) bool {
	t := p.th
	switch p.sec {
	case secThread:
		switch {
		case strings.HasPrefix(s, "java.lang.Thread.State:"):
			t.State, t.StateDetail = parseStateLine(s)
			return true
		case t.State != "" && len(t.Frames) == 0 && (strings.HasPrefix(s, "on ") || (strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")"))):
			// IntelliJ IDEA prints the state's object, or "(in native)", on
			// the line after the state.
			t.StateDetail = strings.TrimSpace(strings.TrimSpace(t.StateDetail + " " + s))
			return true
		case strings.HasPrefix(s, "Carrying virtual thread #"):
			t.CarryingVirtual, _ = strconv.ParseInt(strings.TrimPrefix(s, "Carrying virtual thread #"), 10, 64)
			return true
		case strings.HasPrefix(s, "Mounted virtual thread #") && t.CarryingVirtual != 0:
			// JDK 25's jstack prints the carrier's own frames, then the
			// mounted virtual thread's (R138): a thread of its own, mounted
			// on this carrier, whose state is the carrier's (R137).
			id, err := strconv.ParseInt(strings.TrimPrefix(s, "Mounted virtual thread #"), 10, 64)
			if err != nil {
				return false
			}
			p.openThread(p.n, &Thread{Number: id, Virtual: true, Carrier: t.Number, State: t.State, StateDetail: t.StateDetail})
			return true
		case s == "No compile task" || strings.HasPrefix(s, "Compiling:"):
			return true
		case strings.HasPrefix(s, "at "):
			if f, ok := parseFrame(strings.TrimSpace(s[3:])); ok {
				t.Frames = append(t.Frames, f)
				return true
			}
			return false
		case strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "// "):
			l := parseLock(strings.TrimPrefix(strings.TrimPrefix(s, "- "), "// "))
			if l.Verb == "parking to wait for" || l.Verb == "parked on" {
				t.ParkBlocker = l.Class
			}
			if len(t.Frames) > 0 {
				f := &t.Frames[len(t.Frames)-1]
				f.Locks = append(f.Locks, l)
			}
			return true
		case s == "Locked ownable synchronizers:":
			p.sec = secSync
			return true
		case p.cur.Form == FormText && raw != s:
			// JDK 21–24 Thread.dump_to_file: indented frames without "at ".
			if f, ok := parseFrame(s); ok {
				t.Frames = append(t.Frames, f)
				return true
			}
		}
	case secTail:
		if s == "Locked ownable synchronizers:" {
			p.sec = secSync
			return true
		}
		// A frame after a blank line still belongs to the thread: IntelliJ
		// IDEA's dumps put blank lines inside a thread's text, and no other
		// owner of an "at" line exists.
		if strings.HasPrefix(s, "at ") && p.cur.Form == FormHotSpot {
			if f, ok := parseFrame(strings.TrimSpace(s[3:])); ok {
				t.Frames = append(t.Frames, f)
				p.sec, p.ended = secThread, false
				return true
			}
		}
	case secSync:
		if strings.HasPrefix(s, "- ") {
			if s != "- None" {
				l := parseLock(s[2:])
				t.OwnableSynchronizers = append(t.OwnableSynchronizers, l.Class)
			}
			return true
		}
	}
	return false
}

// pending remembers what a dump's preamble prints (jcmd's "<pid>:", the
// timestamp, Thread.dump_to_file's pid / time / version lines); anything
// else outside a dump is a skipped line.
func (p *textParser) pending(n int, s string) {
	switch {
	case isTimestamp(s):
		p.setPending(n)
		p.pendTime = s
		return
	case isPIDLine(s):
		p.setPending(n)
		p.pendPID, _ = strconv.ParseInt(strings.TrimSuffix(s, ":"), 10, 64)
		return
	case p.pendLine == n-1 && p.pendTime != "" && isVersion(s):
		p.setPending(n)
		p.pendVM = s
		return
	}
	if p.cur == nil || p.sec == secOutside {
		p.outside++
		if p.firstOutside == 0 {
			p.firstOutside = n
		}
	}
}

// setPending records a preamble line; a gap of more than one line starts a
// new preamble.
func (p *textParser) setPending(n int) {
	if p.pendLine == 0 || n-p.pendLine > 2 {
		p.pendTime, p.pendVM, p.pendPID, p.pendFirst = "", "", 0, n
	}
	p.pendLine = n
}

func (p *textParser) openDump(n int, f Form) {
	p.closeThread()
	p.closeDump()
	d := &Dump{Name: p.name, Form: f, Line: n}
	if p.pendLine > 0 && n-p.pendLine <= 2 {
		d.Time, d.PID, d.VM, d.Line = p.pendTime, p.pendPID, p.pendVM, p.pendFirst
	}
	p.pendTime, p.pendVM, p.pendPID, p.pendFirst, p.pendLine = "", "", 0, 0, 0
	p.cur, p.last = d, d
	p.dumps = append(p.dumps, d)
	p.sec = secDump
	p.sawHeader, p.sawTrailer, p.visualVM = false, false, false
	p.skipped, p.firstSkipped, p.cutLine, p.cutName = 0, 0, 0, ""
}

func (p *textParser) openThread(n int, t *Thread) {
	p.closeThread()
	t.Line = n
	p.th, p.ended = t, false
	p.sec = secThread
}

// closeThread files the current thread into the current dump.
func (p *textParser) closeThread() {
	t := p.th
	if t == nil {
		return
	}
	p.th = nil
	if t.State == "" && t.Number == 0 && len(t.Frames) == 0 && t.CarryingVirtual == 0 && p.cur.Form == FormHotSpot {
		t.JVMInternal = true
	}
	p.cur.Threads = append(p.cur.Threads, *t)
	if p.sec != secOutside {
		p.sec = secDump
	}
}

// closeDump finishes the current dump: states, truncation and notes.
func (p *textParser) closeDump() {
	d := p.cur
	if d == nil {
		return
	}
	p.cur = nil
	p.sec = secOutside
	if d.Form == FormHotSpot && p.sawHeader && !p.sawTrailer && !p.visualVM {
		d.Truncated = true
	}
	finishDump(d)
	var notes []string
	if p.cutLine > 0 {
		notes = append(notes, fmt.Sprintf("the file ends inside thread %q (line %d): its frames may be cut, so it is left out of the pool summary", p.cutName, p.cutLine))
	}
	if d.Truncated && p.cutLine == 0 {
		notes = append(notes, "the dump ends before its closing \"JNI global refs\" line: it was cut, threads after the last one read are missing")
	}
	if d.Form == FormHotSpot && !p.sawHeader {
		notes = append(notes, "no \"Full thread dump\" line: the text looks like part of a dump")
	}
	if p.visualVM {
		notes = append(notes, "VisualVM's thread dump form (\"name\" - Thread t@N): complete without a \"JNI global refs\" line")
	}
	d.Notes = append(notes, d.Notes...)
	if p.skipped > 0 {
		d.SkippedLines += p.skipped
		d.Notes = append(d.Notes, fmt.Sprintf("%d lines inside the dump not understood and skipped (first at line %d)", p.skipped, p.firstSkipped))
	}
}

// eof closes what is open. A thread is complete only when its closing blank
// line was read: a dump cut right after a frame line cannot tell whether more
// frames followed (Thread.run is not always the bottom frame:
// InnocuousThread.run follows it in JDK-internal pools).
func (p *textParser) eof() {
	if t := p.th; t != nil && !p.ended {
		t.Incomplete = true
		p.cur.Truncated = true
		p.cutLine, p.cutName = t.Line, t.Name
	}
	p.closeThread()
	p.closeDump()
}

func (p *textParser) deadlocks(count string) {
	d := p.last
	n, err := strconv.Atoi(count)
	if d == nil || err != nil || n <= 0 {
		return
	}
	d.Deadlocks += n
	d.Notes = append(d.Notes, fmt.Sprintf("the JVM reported %d Java-level deadlock(s)", n))
}

// parseHotSpotHeader reads a HotSpot thread header:
//
//	"pool-1-thread-1" #12 prio=5 os_prio=0 cpu=3.83ms elapsed=10.27s tid=0x00007fbb241374c0 nid=0x2243 waiting on condition  [0x00007fbaf55a6000]
//	"main" #3 [9635] prio=5 os_prio=0 cpu=323.98ms elapsed=10.42s tid=0x… nid=9635 runnable  [0x…]
//	"VM Thread" os_prio=0 cpu=13.58ms elapsed=10.30s tid=0x00007fbb240f4e90 nid=0x2237 runnable
//
// The name runs to the last '"': thread names may hold quotes, the
// attributes never do. At least one of #N, prio=, os_prio=, tid=, nid= must
// follow, so a quoted log line is not taken for a thread.
func parseHotSpotHeader(s string) (*Thread, bool) {
	if len(s) < 3 || s[0] != '"' {
		return nil, false
	}
	q := strings.LastIndexByte(s, '"')
	if q <= 0 || (q+1 < len(s) && s[q+1] != ' ') {
		return nil, false
	}
	t := &Thread{Name: s[1:q]}
	seen, sawTID := false, false
	var status []string
	for _, f := range strings.Fields(s[q+1:]) {
		switch {
		case len(f) > 1 && f[0] == '#' && allDigits(f[1:]):
			t.Number, _ = strconv.ParseInt(f[1:], 10, 64)
			seen = true
		case f == "daemon":
			t.Daemon = true
		case strings.HasPrefix(f, "prio="):
			t.Priority, _ = strconv.Atoi(f[5:])
			seen = true
		case strings.HasPrefix(f, "os_prio="):
			t.OSPriority, _ = strconv.Atoi(f[8:])
			seen = true
		case strings.HasPrefix(f, "cpu="):
			t.CPU = parseDuration(f[4:])
		case strings.HasPrefix(f, "elapsed="):
			t.Elapsed = parseDuration(f[8:])
		case strings.HasPrefix(f, "tid="):
			t.TID, sawTID, seen = f[4:], true, true
		case strings.HasPrefix(f, "nid="):
			if v, ok := parseID(f[4:]); ok {
				t.NID = v
			}
			seen = true
		case len(f) > 2 && f[0] == '[' && f[len(f)-1] == ']':
			// "[9635]" before tid= is the OS thread id (JDK 19+); "[0x…]" the stack address.
			if inner := f[1 : len(f)-1]; !sawTID && allDigits(inner) && t.NID == 0 {
				t.NID, _ = strconv.ParseInt(inner, 10, 64)
			}
		case strings.Contains(f, "="):
			// allocated=, defined_classes= (jstack -e) and future attributes
		default:
			if sawTID {
				status = append(status, f)
			}
		}
	}
	if !seen {
		return nil, false
	}
	t.Status = strings.Join(status, " ")
	return t, true
}

// parseTextHeader reads a Thread.dump_to_file header:
//
//	#25 "pool-1-thread-1"                                  (JDK 21–24)
//	#64 "" virtual                                         (JDK 21–24)
//	#42 "http-nio-8080-exec-1" TIMED_WAITING 2026-…Z       (JDK 25)
//	#64 "" virtual TIMED_WAITING 2026-…Z                   (JDK 25)
func parseTextHeader(s string) (*Thread, bool) {
	if len(s) < 4 || s[0] != '#' {
		return nil, false
	}
	sp := strings.Index(s, " \"")
	if sp < 2 || !allDigits(s[1:sp]) {
		return nil, false
	}
	q := strings.LastIndexByte(s, '"')
	if q <= sp+1 {
		return nil, false
	}
	t := &Thread{Name: s[sp+2 : q]}
	t.Number, _ = strconv.ParseInt(s[1:sp], 10, 64)
	for _, f := range strings.Fields(s[q+1:]) {
		switch {
		case f == "virtual":
			t.Virtual = true
		case isState(f):
			t.State = f
		}
	}
	return t, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseID reads "0x2231" (hex) or "9635" (decimal).
func parseID(s string) (int64, bool) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		v, err := strconv.ParseInt(s[2:], 16, 64)
		return v, err == nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// parseDuration reads "232.76ms" or "10.35s"; 0 when malformed.
func parseDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0
	}
	return d
}

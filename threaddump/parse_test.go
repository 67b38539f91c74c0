package threaddump

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/poolsim/poolsim/internal/inputerr"
)

func TestParseFrame(t *testing.T) {
	tests := []struct {
		in   string
		want Frame
		ok   bool
	}{
		// JDK 8 jstack: no module.
		{"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1074)",
			Frame{Class: "java.util.concurrent.ThreadPoolExecutor", Method: "getTask", File: "ThreadPoolExecutor.java", Line: 1074}, true},
		// JDK 9+ jstack: module inside the parentheses.
		{"java.lang.Thread.run(java.base@17.0.19/Thread.java:840)",
			Frame{Module: "java.base@17.0.19", Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 840}, true},
		// jstack native frame with module.
		{"jdk.internal.misc.Unsafe.park(java.base@25.0.3/Native Method)",
			Frame{Module: "java.base@25.0.3", Class: "jdk.internal.misc.Unsafe", Method: "park", Native: true}, true},
		// StackTraceElement.toString (Thread.dump_to_file, JSON): module before the class.
		{"java.base/java.util.concurrent.LinkedBlockingQueue.poll(LinkedBlockingQueue.java:460)",
			Frame{Module: "java.base", Class: "java.util.concurrent.LinkedBlockingQueue", Method: "poll", File: "LinkedBlockingQueue.java", Line: 460}, true},
		// Class loader without module: "app//".
		{"app//com.example.Foo.bar(Foo.java:3)",
			Frame{Module: "app", Class: "com.example.Foo", Method: "bar", File: "Foo.java", Line: 3}, true},
		// Loader and versioned module.
		{"com.foo.loader/foo@9.0/com.foo.Main.run(Main.java:101)",
			Frame{Module: "com.foo.loader/foo@9.0", Class: "com.foo.Main", Method: "run", File: "Main.java", Line: 101}, true},
		// JDK 17 lambda: hidden class with "/0x" suffix, Unknown Source.
		{"PoolStates$$Lambda$53/0x00007fbaa4012260.run(Unknown Source)",
			Frame{Class: "PoolStates$$Lambda$53/0x00007fbaa4012260", Method: "run"}, true},
		// JDK 21+ lambda after a module prefix.
		{"java.base/java.util.concurrent.Foo$$Lambda/0x0000000058041800.run(Unknown Source)",
			Frame{Module: "java.base", Class: "java.util.concurrent.Foo$$Lambda/0x0000000058041800", Method: "run"}, true},
		// Constructors and static initialisers.
		{"com.example.Foo.<init>(Foo.java:7)", Frame{Class: "com.example.Foo", Method: "<init>", File: "Foo.java", Line: 7}, true},
		// A source file without a line number.
		{"com.example.Foo.bar(Foo.java)", Frame{Class: "com.example.Foo", Method: "bar", File: "Foo.java"}, true},
		// A line cut by truncation: no closing parenthesis.
		{"java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExe", Frame{}, false},
		// No method.
		{"Foo(Foo.java:1)", Frame{}, false},
		// Prose with parentheses.
		{"something went wrong (see above)", Frame{}, false},
		// Empty parentheses are not a location.
		{"a.b()", Frame{}, false},
	}
	for _, tt := range tests {
		got, ok := parseFrame(tt.in)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseFrame(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseHotSpotHeader(t *testing.T) {
	tests := []struct {
		in   string
		want *Thread // nil: not a header
	}{
		// JDK 8.
		{`"http-nio-8080-exec-6" #107 daemon prio=5 os_prio=0 tid=0x00007fec3802d000 nid=0x62e0 waiting on condition [0x00007febcd503000]`,
			&Thread{Name: "http-nio-8080-exec-6", Number: 107, Daemon: true, Priority: 5, TID: "0x00007fec3802d000", NID: 0x62e0, Status: "waiting on condition"}},
		// JDK 6/7: no #N, no os_prio, addresses without 0x.
		{`"pool-1-thread-2" prio=5 tid=7ffb30143000 nid=0x117fde000 waiting on condition [117fdd000]`,
			&Thread{Name: "pool-1-thread-2", Priority: 5, TID: "7ffb30143000", NID: 0x117fde000, Status: "waiting on condition"}},
		// JDK 11–18: cpu= and elapsed=; jstack -e adds allocated= and defined_classes=.
		{`"Reference Handler" #2 daemon prio=10 os_prio=2 cpu=11921.88ms elapsed=335.19s allocated=0B defined_classes=0 tid=0x0000024d222ae4f0 nid=0x11ec70 waiting on condition  [0x0000006fee0ff000]`,
			&Thread{Name: "Reference Handler", Number: 2, Daemon: true, Priority: 10, OSPriority: 2, CPU: 11921880 * time.Microsecond,
				Elapsed: 335190 * time.Millisecond, TID: "0x0000024d222ae4f0", NID: 0x11ec70, Status: "waiting on condition"}},
		// JDK 19+: "[osid]" after #N, decimal nid.
		{`"main" #3 [9635] prio=5 os_prio=0 cpu=323.98ms elapsed=10.42s tid=0x00007f532c02a860 nid=9635 runnable  [0x00007f533091e000]`,
			&Thread{Name: "main", Number: 3, Priority: 5, CPU: 323980 * time.Microsecond, Elapsed: 10420 * time.Millisecond,
				TID: "0x00007f532c02a860", NID: 9635, Status: "runnable"}},
		// A JVM-internal thread: no #N, no Java priority.
		{`"GC Thread#0" os_prio=0 cpu=0.77ms elapsed=10.35s tid=0x00007fbb24041aa0 nid=0x2232 runnable  `,
			&Thread{Name: "GC Thread#0", CPU: 770 * time.Microsecond, Elapsed: 10350 * time.Millisecond, TID: "0x00007fbb24041aa0", NID: 0x2232, Status: "runnable"}},
		// A thread name holding quotes and an attribute-like word.
		{`"say "prio=1" to me" #5 prio=5 os_prio=0 tid=0x1 nid=0x2 runnable`,
			&Thread{Name: `say "prio=1" to me`, Number: 5, Priority: 5, TID: "0x1", NID: 2, Status: "runnable"}},
		// An empty name.
		{`"" #9 prio=5 tid=0x1 nid=0x2 sleeping`, &Thread{Name: "", Number: 9, Priority: 5, TID: "0x1", NID: 2, Status: "sleeping"}},
		// A quoted log line: no attribute follows.
		{`"GET /index.html HTTP/1.1" 200 5120`, nil},
		// The deadlock report's thread lines.
		{`"Thread-1":`, nil},
		// An unterminated quote.
		{`"pool-1-thread-1 #12 prio=5`, nil},
	}
	for _, tt := range tests {
		got, ok := parseHotSpotHeader(tt.in)
		if (tt.want == nil) != !ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("parseHotSpotHeader(%q) =\n %+v, %v\nwant %+v", tt.in, got, ok, tt.want)
		}
	}
}

func TestParseTextHeader(t *testing.T) {
	tests := []struct {
		in   string
		want *Thread
	}{
		// JDK 21–24.
		{`#25 "pool-1-thread-1"`, &Thread{Name: "pool-1-thread-1", Number: 25}},
		{`#64 "" virtual`, &Thread{Name: "", Number: 64, Virtual: true}},
		// JDK 25: state and time.
		{`#42 "http-nio-8080-exec-1" TIMED_WAITING 2026-12-01T20:00:31.345105002Z`,
			&Thread{Name: "http-nio-8080-exec-1", Number: 42, State: StateTimedWaiting}},
		{`#64 "" virtual TIMED_WAITING 2026-12-01T20:00:31.372746535Z`, &Thread{Name: "", Number: 64, Virtual: true, State: StateTimedWaiting}},
		// Not headers: a markdown heading, a number without a name.
		{`# heading "quoted"`, nil},
		{`#12`, nil},
	}
	for _, tt := range tests {
		got, ok := parseTextHeader(tt.in)
		if (tt.want == nil) != !ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("parseTextHeader(%q) = %+v, %v; want %+v", tt.in, got, ok, tt.want)
		}
	}
}

func TestParseLock(t *testing.T) {
	tests := []struct {
		in   string
		want Lock
	}{
		// jstack: two spaces before the address.
		{"parking to wait for  <0x000000069ec20630> (a java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject)",
			Lock{Verb: "parking to wait for", Address: "0x000000069ec20630", Class: "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"}},
		{"locked <0x000000069ec05890> (a java.io.BufferedInputStream)", Lock{Verb: "locked", Address: "0x000000069ec05890", Class: "java.io.BufferedInputStream"}},
		// jstack -l synchronizer line: no verb.
		{"<0x000000069ec400a8> (a java.util.concurrent.ThreadPoolExecutor$Worker)",
			Lock{Address: "0x000000069ec400a8", Class: "java.util.concurrent.ThreadPoolExecutor$Worker"}},
		// JDK 8 scalar replacement.
		{"eliminated <owner is scalar replaced> (a java.lang.Object)", Lock{Verb: "eliminated", Class: "java.lang.Object"}},
		// JDK 25 Thread.dump_to_file: identity string.
		{"parking to wait for <java.util.concurrent.SynchronousQueue$Transferer@4a26b34a>",
			Lock{Verb: "parking to wait for", Address: "4a26b34a", Class: "java.util.concurrent.SynchronousQueue$Transferer"}},
		// Later JDKs' comment lines.
		{"parked on java.util.concurrent.locks.ReentrantLock$NonfairSync@1b2c3d4e, owned by #12",
			Lock{Verb: "parked on", Address: "1b2c3d4e, owned by #12", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync"}},
		{"lock is eliminated", Lock{Verb: "lock is eliminated"}},
		// Cut in the middle.
		{"waiting on <0x0000", Lock{Verb: "waiting on", Class: "0x0000"}},
	}
	for _, tt := range tests {
		if got := parseLock(tt.in); got != tt.want {
			t.Errorf("parseLock(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestParseErrors: bad input gives an *inputerr.Error naming the file and,
// where it helps, the line.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string // the whole error text
	}{
		// Nothing at all.
		{"empty", nil, "d.txt: empty file, no thread dump in it (" + allowedInput + ")"},
		// White space only.
		{"blank", []byte("\n \r\n\t\n"), "d.txt: empty file, no thread dump in it (" + allowedInput + ")"},
		// gzip data: NUL bytes in non-text, the first at line 1, column 4.
		{"gzip", []byte{0x1f, 0x8b, 0x08, 0x00, 0x9c, 0xe1, 0x4d, 0x67, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00},
			"d.txt:1:4: binary data (a NUL byte), not a text thread dump (" + allowedInput + ")"},
		// Text whose NUL bytes are dropped, and then no dump in it.
		{"nul in text", []byte("hello\nab\x00cd"), "d.txt:1:1: not a thread dump: no thread header (\"name\" #N … tid=… nid=…, or #N \"name\") found (" + allowedInput + ")"},
		// Random high bytes (not UTF-8, no NUL).
		{"latin junk", bytes.Repeat([]byte{0xC3, 0x28, 0xA0, 0xFF}, 50), "d.txt:1:1: binary data (150 of the first 200 bytes are not text), not a text thread dump (" + allowedInput + ")"},
		// A log without a dump.
		{"log", []byte("2026-12-01 10:00:00 INFO started\nall good\n"), "d.txt:1:1: not a thread dump: no thread header (\"name\" #N … tid=… nid=…, or #N \"name\") found (" + allowedInput + ")"},
		// A dump header with nothing after it.
		{"header only", []byte("2026-12-01 10:00:00\nFull thread dump OpenJDK 64-Bit Server VM (17.0.19 mixed mode):\n\n"),
			"d.txt:1:1: thread dump ends before its first thread (truncated) (" + allowedInput + ")"},
		// JSON that is not a thread dump.
		{"json other", []byte(`{"name": "x"}`), "d.txt:1:14: not a thread dump: JSON without a \"threadDump\" object (" + allowedInput + ")"},
		// Broken JSON.
		{"json syntax", []byte("{\n  \"threadDump\": {\n    \"processId\": ]\n"), "d.txt:3:18: not a thread dump: invalid character ']' looking for beginning of value (" + allowedInput + ")"},
		// JSON cut before its first thread.
		{"json cut", []byte("{\n  \"threadDump\": {\n    \"processId\": \"1\",\n    \"threadContainers\": [\n      {\n        \"threads\": [\n"),
			"d.txt:7:1: JSON thread dump ends before its first thread (truncated) (" + allowedInput + ")"},
		// JSON with no thread in it.
		{"json empty", []byte(`{"threadDump": {"threadContainers": [{"container": "<root>", "threads": []}]}}`),
			"d.txt:1:1: JSON thread dump holds no thread (" + allowedInput + ")"},
	}
	for _, tt := range tests {
		_, err := Parse(bytes.NewReader(tt.in), "d.txt")
		var ie *inputerr.Error
		if !errors.As(err, &ie) {
			t.Errorf("%s: error %v is not an *inputerr.Error", tt.name, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.name, err, tt.want)
		}
	}
	// A file that does not exist.
	_, err := ParseFile(filepath.Join(t.TempDir(), "missing.txt"))
	if !inputerr.Is(err) || !strings.Contains(err.Error(), "missing.txt: cannot read the thread dump: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
}

// fixtureNames lists the committed dumps.
func fixtureNames(t testing.TB) []string {
	names, err := filepath.Glob(filepath.Join("testdata", "*.*"))
	if err != nil || len(names) < 8 {
		t.Fatalf("fixtures: %v %v", names, err)
	}
	var dumps []string
	for _, n := range names {
		if strings.HasSuffix(n, ".txt") || strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".json") {
			dumps = append(dumps, n)
		}
	}
	return dumps
}

func mustParse(t *testing.T, data []byte, name string) *Dump {
	t.Helper()
	d, err := Parse(bytes.NewReader(data), name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// TestLineEnds: CRLF line ends and UTF-16 with a byte order mark (Windows
// PowerShell's "jstack > file") read exactly like the original.
func TestLineEnds(t *testing.T) {
	for _, file := range fixtureNames(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want := mustParse(t, data, "x")
		crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
		if got := mustParse(t, crlf, "x"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: CRLF reads differently", file)
		}
		u := utf16.Encode([]rune(string(data)))
		le := []byte{0xFF, 0xFE}
		for _, c := range u {
			le = append(le, byte(c), byte(c>>8))
		}
		if got := mustParse(t, le, "x"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: UTF-16LE reads differently", file)
		}
	}
}

// projection is what a complete thread must keep when the dump is cut
// later: everything but the "Locked ownable synchronizers" that follow it.
func projection(th Thread) Thread {
	th.OwnableSynchronizers = nil
	th.Incomplete = false
	return th
}

// TestTruncation cuts every fixture at line ends and inside lines: the
// cut dump reports the truncation, keeps every thread before the cut as it
// was, and marks only the last thread incomplete.
func TestTruncation(t *testing.T) {
	rng := rand.New(rand.NewSource(1)) // fixed seed: the same cuts every run
	for _, file := range fixtureNames(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		full := mustParse(t, data, "x")
		// About 400 cuts after a whole line, 100 just before a newline (the
		// last line then has none) and 100 anywhere (mid-token).
		var ends []int
		for i, c := range data {
			if c == '\n' {
				ends = append(ends, i+1)
			}
		}
		var cuts []int
		step := max(1, len(ends)/400)
		for i := 0; i < len(ends); i += step {
			cuts = append(cuts, ends[i])
		}
		for range 100 {
			cuts = append(cuts, ends[rng.Intn(len(ends))]-1)
			cuts = append(cuts, rng.Intn(len(data)))
		}
		for _, cut := range cuts {
			part := data[:cut]
			d, err := Parse(bytes.NewReader(part), "x")
			if err != nil {
				if !inputerr.Is(err) {
					t.Fatalf("%s cut at %d: %v is not an input error", file, cut, err)
				}
				continue // nothing complete before the cut
			}
			rest := strings.TrimSpace(string(data[cut:]))
			if full.Form == FormHotSpot && !d.Truncated && strings.Contains(rest, "\nJNI global ref") {
				t.Errorf("%s cut at %d: not reported as truncated", file, cut)
			}
			if full.Form == FormJSON && !d.Truncated && strings.Contains(rest, "\"name\"") {
				t.Errorf("%s cut at %d: not reported as truncated", file, cut)
			}
			if len(d.Threads) > len(full.Threads) {
				t.Fatalf("%s cut at %d: %d threads, more than the %d of the whole", file, cut, len(d.Threads), len(full.Threads))
			}
			for i, th := range d.Threads {
				if th.Incomplete {
					if i != len(d.Threads)-1 || !d.Truncated {
						t.Errorf("%s cut at %d: thread %d of %d incomplete", file, cut, i, len(d.Threads))
					}
					continue
				}
				if !reflect.DeepEqual(projection(th), projection(full.Threads[i])) {
					t.Errorf("%s cut at %d: thread %q differs from the whole dump's:\n%+v\n%+v", file, cut, th.Name, th, full.Threads[i])
					break
				}
			}
			wholePools := Summarise(full)
			for _, p := range Summarise(d) {
				w, _ := findPool(wholePools, p.Prefix)
				if p.Threads > w.Threads {
					t.Errorf("%s cut at %d: pool %s has %d threads, the whole dump %d", file, cut, p.Prefix, p.Threads, w.Threads)
				}
			}
		}
	}
}

// TestJunkLines: log lines interleaved with a dump, even between a
// thread's frames (a JVM and a logger writing to one stream), change no
// thread and are counted as skipped.
func TestJunkLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "jdk17-jstack-l.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := mustParse(t, data, "x")
	lines := strings.Split(string(data), "\n")
	first := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "\"main\"") {
			first = i
			break
		}
	}
	junk := []string{
		"2026-12-01 20:00:08.512 INFO  [http-nio-8080-exec-3] c.e.shop.Checkout - order 812 placed",
		"WARNING: An illegal reflective access operation has occurred",
		"    at the end of the day (this is prose)",
		"\tcom.example.Foo - not a frame",
		"{\"level\":\"info\",\"msg\":\"json log line\"}",
	}
	rng := rand.New(rand.NewSource(2)) // fixed seed
	var out []string
	inserted := 0
	for i, l := range lines {
		out = append(out, l)
		// After the first header, a junk line after about one line in ten, never
		// right before a blank line (a junk line there would merge two blocks).
		if i >= first && i+1 < len(lines) && lines[i+1] != "" && l != "" && rng.Intn(10) == 0 {
			out = append(out, junk[rng.Intn(len(junk))])
			inserted++
		}
	}
	got := mustParse(t, []byte(strings.Join(out, "\n")), "x")
	if got.SkippedLines != inserted {
		t.Errorf("%d lines skipped, %d inserted", got.SkippedLines, inserted)
	}
	if len(got.Threads) != len(want.Threads) {
		t.Fatalf("%d threads, want %d", len(got.Threads), len(want.Threads))
	}
	for i := range want.Threads {
		g, w := got.Threads[i], want.Threads[i]
		g.Line, w.Line = 0, 0
		if !reflect.DeepEqual(g, w) {
			t.Errorf("thread %q changed by junk lines:\n%+v\n%+v", w.Name, g, w)
		}
	}
	if !reflect.DeepEqual(Summarise(got), Summarise(want)) {
		t.Error("junk lines changed the summary")
	}
}

// TestLogShapes: a log that logrotate's copytruncate left with a run of NUL
// bytes, and a dump read from journald with a prefix on every line, read
// like the plain dump, with a note.
func TestLogShapes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "jdk17-kill3.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := mustParse(t, data, "x")

	nul := append(bytes.Repeat([]byte{0}, 4096), data...)
	got := mustParse(t, nul, "x")
	if !reflect.DeepEqual(got.Threads, want.Threads) || got.Notes[len(got.Notes)-1] != "4096 NUL bytes ignored (a log truncated while being written, e.g. by logrotate copytruncate)" {
		t.Errorf("NUL run: %d threads, notes %q", len(got.Threads), got.Notes)
	}

	// journalctl -u app: every line prefixed; empty messages lose the trailing blank.
	var j []string
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		p := fmt.Sprintf("Dec 01 20:11:%02d web1 java[4242]:", 10+i%50)
		if l != "" {
			p += " " + l
		}
		j = append(j, p)
	}
	got = mustParse(t, []byte(strings.Join(j, "\n")+"\n"), "x")
	checkPools(t, got, poolStatesWant(), nil, false, true)
	if len(got.Threads) != len(want.Threads) || got.Truncated {
		t.Errorf("journald: %d threads (want %d), truncated %v", len(got.Threads), len(want.Threads), got.Truncated)
	}
	for i := range want.Threads {
		if !reflect.DeepEqual(got.Threads[i], want.Threads[i]) {
			t.Errorf("journald: thread %q differs", want.Threads[i].Name)
			break
		}
	}
	if n := got.Notes[len(got.Notes)-1]; n != fmt.Sprintf("%d lines carried a log prefix before the dump text (journald, syslog); it was removed", len(j)) {
		t.Errorf("journald note %q", n)
	}
}

// TestSeveralDumps: a log with two dumps (repeated kill -3) gives both to
// ParseAll and the last to Parse, with a note.
func TestSeveralDumps(t *testing.T) {
	a, err := os.ReadFile(filepath.Join("testdata", "jdk17-kill3.log"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "jdk8-tomcat-kill3.log"))
	if err != nil {
		t.Fatal(err)
	}
	both := append(append([]byte{}, a...), b...)
	all, err := ParseAll(bytes.NewReader(both), "x")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || !strings.Contains(all[0].VM, "17.0.19") || !strings.Contains(all[1].VM, "25.281") {
		t.Fatalf("ParseAll: %d dumps", len(all))
	}
	aLines := bytes.Count(a, []byte("\n"))
	if all[0].Line != 13 || all[1].Line != aLines+3 {
		t.Errorf("dumps start at lines %d and %d, want 13 and %d", all[0].Line, all[1].Line, aLines+3)
	}
	last, err := Parse(bytes.NewReader(both), "x")
	if err != nil {
		t.Fatal(err)
	}
	if last.VM != all[1].VM || len(last.Threads) != len(all[1].Threads) {
		t.Errorf("Parse did not return the last dump")
	}
	if note := last.Notes[len(last.Notes)-1]; note != "the file holds 2 thread dumps (at lines 13, "+strconv.Itoa(aLines+3)+"); this is the last one" {
		t.Errorf("note %q", note)
	}
	checkPools(t, all[0], poolStatesWant(), nil, false, true)
	checkPools(t, all[1], jdk8Want(), nil, false, true)
}

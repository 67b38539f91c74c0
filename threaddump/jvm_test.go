package threaddump

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// captureDir, when set (go test -run TestJVM -args -capture=DIR), receives
// every dump the JVM tests take: the source of testdata's fixtures.
var captureDir = flag.String("capture", "", "write the thread dumps taken by the JVM tests into this directory")

// Debian's libtomcat10-java and libjetty9-java jars (CI installs them with apt-get).
var pkgJars = []string{
	"/usr/share/java/tomcat10-util.jar",
	"/usr/share/java/tomcat10-juli.jar",
	"/usr/share/java/jetty9-util.jar",
}

// jdk25Home is Temurin 25; THREADDUMP_JDK25 overrides it.
func jdk25Home() string {
	if h := os.Getenv("THREADDUMP_JDK25"); h != "" {
		return h
	}
	return "/usr/lib/jvm/temurin-25-jdk-amd64"
}

// need skips the test on a developer's machine when something it needs is
// missing, and fails it when CI=true.
func need(t *testing.T, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %s is missing", what)
	}
	t.Skipf("skipped: %s is missing (install it, or run in CI where CI=true makes this a failure)", what)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// pathJavaHome is the JDK of the `java` on the PATH (Java 17 on the project machines).
func pathJavaHome() string {
	java, err := exec.LookPath("java")
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		return ""
	}
	return filepath.Dir(filepath.Dir(real))
}

// javaMajor is the feature release of the JDK at home ("17.0.19" → 17,
// "1.8.0_281" → 8), or 0 when java does not run.
func javaMajor(home string) int {
	out, err := exec.Command(filepath.Join(home, "bin", "java"), "-version").CombinedOutput()
	if err != nil {
		return 0
	}
	s := string(out)
	i := strings.Index(s, "version \"")
	if i < 0 {
		return 0
	}
	v := strings.TrimPrefix(s[i+len("version \""):], "1.")
	end := strings.IndexAny(v, ".\"-+_")
	if end < 0 {
		return 0
	}
	n, _ := strconv.Atoi(v[:end])
	return n
}

// TestJVMPoolStates runs testdata/java/PoolStates.java on Java 17 (the PATH's
// java) and Temurin 25, takes dumps with jstack, jstack -l, jcmd
// Thread.print (with and without -l), kill -3 and, on 25, jcmd
// Thread.dump_to_file in plain text and JSON, and checks that Summarise
// reports exactly the pools the program created.
func TestJVMPoolStates(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: starts two JVMs")
	}
	home17 := pathJavaHome()
	need(t, home17 != "" && exists(filepath.Join(home17, "bin", "javac")), "a JDK (java and javac on the PATH)")
	need(t, javaMajor(home17) >= 17, "Java 17 or later on the PATH")
	for _, j := range pkgJars {
		need(t, exists(j), j+" (Debian libtomcat10-java / libjetty9-java)")
	}
	classes := t.TempDir()
	cp := strings.Join(append([]string{classes}, pkgJars...), string(os.PathListSeparator))
	javac := exec.Command(filepath.Join(home17, "bin", "javac"), "--release", "17", "-d", classes, "-cp", cp,
		filepath.Join("testdata", "java", "PoolStates.java"))
	if out, err := javac.CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	jvms := []struct {
		name string
		home string
	}{
		{"java17", home17},         // the PATH's JDK: Java 17 on the project machines
		{"temurin25", jdk25Home()}, // Temurin 25 (THREADDUMP_JDK25 may name another JDK)
	}
	for _, jvm := range jvms {
		t.Run(jvm.name, func(t *testing.T) {
			if jvm.name == "temurin25" && !exists(filepath.Join(jvm.home, "bin", "jcmd")) {
				// Temurin is not a Debian package: test.sh cannot install it,
				// so its absence skips even under CI=true (as in conformance).
				// JDK 21/25 formats stay covered by the committed fixtures.
				t.Skipf("no JDK 25 at %s (set THREADDUMP_JDK25): the JDK 25 dump formats are checked on the committed fixtures only", jvm.home)
			}
			need(t, exists(filepath.Join(jvm.home, "bin", "jcmd")), jvm.home+" (a JDK with jstack and jcmd)")
			major := javaMajor(jvm.home)
			need(t, major >= 17, jvm.home+" (Java 17 or later)")
			t.Logf("%s: Java %d", jvm.home, major)
			runPoolStates(t, jvm.name, jvm.home, cp, major)
		})
	}
}

// lineLog collects a process's output lines.
type lineLog struct {
	mu    sync.Mutex
	lines []string
	done  bool
}

// startReady starts cmd — a test program that prints READY when its
// threads are in place and exits when its standard input closes — with
// stderr joined to stdout, waits for READY, and stops it when the test
// ends (closing stdin, then killing it if it lingers). It returns the
// program's output lines.
func startReady(t *testing.T, cmd *exec.Cmd, timeout time.Duration) *lineLog {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		stdin.Close()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	log := readLines(stdout)
	if !log.waitFor(0, timeout, func(s string) bool { return s == "READY" }) {
		lines, _ := log.snapshot()
		t.Fatalf("%s never printed READY:\n%s", strings.Join(cmd.Args, " "), strings.Join(lines, "\n"))
	}
	return log
}

// readLines collects r's lines in the background until it ends.
func readLines(r io.Reader) *lineLog {
	l := &lineLog{}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	}()
	return l
}

func (l *lineLog) snapshot() ([]string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...), l.done
}

// waitFor polls until a line from index from on satisfies ok.
func (l *lineLog) waitFor(from int, timeout time.Duration, ok func(string) bool) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		lines, done := l.snapshot()
		for _, s := range lines[min(from, len(lines)):] {
			if ok(s) {
				return true
			}
		}
		if done {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// runPoolStates starts PoolStates on the JDK at home (feature release
// major) and checks a dump from every tool that JDK has.
func runPoolStates(t *testing.T, name, home, cp string, major int) {
	bin := func(tool string) string { return filepath.Join(home, "bin", tool) }
	cmd := exec.Command(bin("java"), "-cp", cp, "PoolStates")
	// startReady joins stderr (Jetty's log line) into stdout, the "log" kill -3 writes into
	log := startReady(t, cmd, 3*time.Minute)
	lines, _ := log.snapshot()
	prefixes := map[string]string{}
	for _, s := range lines {
		if f := strings.Fields(s); len(f) == 3 && f[0] == "POOL" {
			prefixes[f[1]] = f[2]
		}
	}
	pid := strconv.Itoa(cmd.Process.Pid)

	type dumpRun struct {
		kind string
		args []string // tool and arguments; "FILE" is replaced by an output file
		form Form
	}
	runs := []dumpRun{
		{"jstack", []string{"jstack", pid}, FormHotSpot},
		{"jstack-l", []string{"jstack", "-l", pid}, FormHotSpot},
		{"jcmd", []string{"jcmd", pid, "Thread.print"}, FormHotSpot},
		{"jcmd-l", []string{"jcmd", pid, "Thread.print", "-l"}, FormHotSpot},
	}
	if major >= 21 { // jcmd Thread.dump_to_file
		runs = append(runs,
			dumpRun{"dump-text", []string{"jcmd", pid, "Thread.dump_to_file", "FILE"}, FormText},
			dumpRun{"dump-json", []string{"jcmd", pid, "Thread.dump_to_file", "-format=json", "FILE"}, FormJSON})
	}
	for _, r := range runs {
		t.Run(r.kind, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "dump")
			args := append([]string(nil), r.args[1:]...)
			for i, a := range args {
				if a == "FILE" {
					args[i] = file
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, bin(r.args[0]), args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", r.args[0], args, err, out)
			}
			if exists(file) {
				if out, err = os.ReadFile(file); err != nil {
					t.Fatal(err)
				}
			}
			checkJVMDump(t, name+"-"+r.kind, out, r.form, prefixes, false, r.form != FormHotSpot && major < 25)
		})
	}

	t.Run("kill-3", func(t *testing.T) {
		before, _ := log.snapshot()
		if err := cmd.Process.Signal(syscall.SIGQUIT); err != nil {
			t.Fatalf("SIGQUIT: %v", err)
		}
		if !log.waitFor(len(before), time.Minute, func(s string) bool { return strings.HasPrefix(s, "JNI global refs") }) {
			t.Fatal("no thread dump on stdout after SIGQUIT")
		}
		time.Sleep(500 * time.Millisecond) // the heap summary follows the dump
		all, _ := log.snapshot()
		checkJVMDump(t, name+"-kill3", []byte(strings.Join(all, "\n")+"\n"), FormHotSpot, prefixes, true, false)
	})
}

// checkJVMDump parses one dump of PoolStates and compares it with
// poolStatesWant. noStates: Thread.dump_to_file before JDK 25 prints no
// states.
func checkJVMDump(t *testing.T, name string, data []byte, form Form, prefixes map[string]string, isLog, noStates bool) {
	t.Helper()
	if *captureDir != "" {
		if err := os.WriteFile(filepath.Join(*captureDir, name+".txt"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Parse(bytes.NewReader(data), name)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if d.Form != form {
		t.Errorf("%s: form %s, want %s", name, d.Form, form)
	}
	checkClean(t, d, isLog)
	if isLog && d.SkippedLines == 0 {
		t.Errorf("%s: the log lines around the dump were not counted as skipped", name)
	}
	checkPools(t, d, poolStatesWant(), prefixes, noStates, false)
	if form != FormHotSpot {
		// Thread.dump_to_file also lists the two sleeping virtual threads
		// (a sleeping virtual thread's state is inferred when not printed).
		virtual := 0
		for _, th := range d.Threads {
			if th.Virtual && th.State == StateTimedWaiting {
				virtual++
			}
		}
		if virtual != 2 {
			t.Errorf("%s: %d TIMED_WAITING virtual threads, want 2", name, virtual)
		}
	}
}

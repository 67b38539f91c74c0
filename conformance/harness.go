package conformance

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

//go:embed java/*.java
var javaSources embed.FS

// DefaultJars are the jars the harness compiles and runs against: Debian's libtomcat10-java
// (Tomcat's util and its juli logging), libjetty9-java (Jetty util), libhikaricp-java
// (HikariCP 2.7.9) and libslf4j-java (the SLF4J API HikariCP logs through, and its no-op
// binding, which keeps the pool's log lines out of the run).
var DefaultJars = []string{
	"/usr/share/java/tomcat10-util.jar",
	"/usr/share/java/tomcat10-juli.jar",
	"/usr/share/java/jetty9-util.jar",
	"/usr/share/java/HikariCP.jar",
	"/usr/share/java/slf4j-api.jar",
	"/usr/share/java/slf4j-nop.jar",
}

// jarPackages names the Debian package that installs each of DefaultJars.
var jarPackages = map[string]string{
	"tomcat10-util.jar": "libtomcat10-java",
	"tomcat10-juli.jar": "libtomcat10-java",
	"jetty9-util.jar":   "libjetty9-java",
	"HikariCP.jar":      "libhikaricp-java",
	"slf4j-api.jar":     "libslf4j-java",
	"slf4j-nop.jar":     "libslf4j-java",
}

// DefaultJVMFlags keep the JVM quiet while the pool runs: a single-threaded collector that
// will not run concurrently with the pool, C1 only (fast to compile, and the warm-up is short),
// class-data sharing for a fast start, no perf-data file, a small fixed heap.
var DefaultJVMFlags = []string{
	"-XX:+UseSerialGC",
	"-XX:TieredStopAtLevel=1",
	"-Xshare:auto",
	"-XX:-UsePerfData",
	"-Xms64m",
	"-Xmx256m",
}

// harnessMain is the Java class the harness starts.
const harnessMain = "poolsim.conformance.Harness"

// scriptName is the file name the harness gives the script in its error messages.
const scriptName = "script"

// Runner runs scripts on one JVM installation. The zero Runner uses $POOLSIM_JAVA_HOME if set,
// else java and javac from PATH, DefaultJars and DefaultJVMFlags.
type Runner struct {
	// JavaHome is a JDK directory (with bin/java and bin/javac), e.g.
	// /usr/lib/jvm/temurin-25-jdk-amd64.
	JavaHome string
	// Jars replaces DefaultJars when non-nil.
	Jars []string
	// JVMFlags replaces DefaultJVMFlags when non-nil.
	JVMFlags []string
	// CacheDir holds compiled classes; "" means os.UserCacheDir()/poolsim-conformance, or
	// os.TempDir()/poolsim-conformance when the user cache directory is missing or read-only.
	CacheDir string
}

func (r Runner) tools() (java, javac string, err error) {
	home := r.JavaHome
	if home == "" {
		home = os.Getenv("POOLSIM_JAVA_HOME")
	}
	if home != "" {
		java, javac = filepath.Join(home, "bin", "java"), filepath.Join(home, "bin", "javac")
		for _, p := range []string{java, javac} {
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				return "", "", fmt.Errorf("conformance: no %s in JDK %s", filepath.Base(p), home)
			}
		}
		return java, javac, nil
	}
	if java, err = exec.LookPath("java"); err != nil {
		return "", "", fmt.Errorf("conformance: java not found on PATH: %w", err)
	}
	if javac, err = exec.LookPath("javac"); err != nil {
		return "", "", fmt.Errorf("conformance: javac not found on PATH (a JDK is needed, not a JRE): %w", err)
	}
	return java, javac, nil
}

func (r Runner) jars() []string {
	if r.Jars != nil {
		return r.Jars
	}
	return DefaultJars
}

// Available returns nil if the runner's java, javac and jars exist, else why not.
func (r Runner) Available() error {
	if _, _, err := r.tools(); err != nil {
		return err
	}
	for _, j := range r.jars() {
		if _, err := os.Stat(j); err != nil {
			pkg := jarPackages[filepath.Base(j)]
			if pkg == "" {
				pkg = "libtomcat10-java, libjetty9-java, libhikaricp-java and libslf4j-java"
			}
			return fmt.Errorf("conformance: missing jar %s (Debian: %s): %w", j, pkg, err)
		}
	}
	return nil
}

// Available returns nil if java, javac and the Tomcat, Jetty, HikariCP and SLF4J jars are
// installed, else why not.
func Available() error { return Runner{}.Available() }

// Require skips the test with the reason when the harness cannot run — and fails it instead
// when the environment variable CI is "true", where the JVM and the jars must be installed.
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but the Java harness cannot run: %v", err)
		}
		t.Skipf("Java harness unavailable: %v", err)
	}
}

// compiled caches, per process, the class directory built for each (javac, sources, jars)
// key; the task asks for one compilation per process, which needs this shared state.
var compiled struct {
	sync.Mutex
	dirs map[string]string
}

// release25Sources are the Java sources that need JDK 25 (virtual threads, the FFM API):
// they are compiled apart from the harness, with --release 25 (see RunVirtual).
var release25Sources = map[string]bool{"java/VirtualRun.java": true}

// classes returns a directory holding the compiled harness (java/*.java but
// release25Sources, built with --release 17), compiling it at most once per process and key,
// and reusing an earlier process's build from the cache directory.
func (r Runner) classes(javac string) (string, error) {
	names, err := fs.Glob(javaSources, "java/*.java")
	if err != nil {
		return "", fmt.Errorf("conformance: list java sources: %w", err)
	}
	var harness []string
	for _, n := range names {
		if !release25Sources[n] {
			harness = append(harness, n)
		}
	}
	return r.compile(javac, "17", r.jars(), harness)
}

// compile returns a directory holding the named sources compiled with javac --release
// release against jars, compiling them at most once per process and key, and reusing an
// earlier process's build from the cache directory.
func (r Runner) compile(javac, release string, jars, names []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "javac=%s\njars=%s\nrelease=%s\n", javac, strings.Join(jars, ":"), release)
	names = append([]string(nil), names...)
	sort.Strings(names)
	for _, n := range names {
		b, err := javaSources.ReadFile(n)
		if err != nil {
			return "", fmt.Errorf("conformance: read %s: %w", n, err)
		}
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	key := hex.EncodeToString(h.Sum(nil))[:20]

	compiled.Lock()
	defer compiled.Unlock()
	if d, ok := compiled.dirs[key]; ok {
		return d, nil
	}
	base := r.CacheDir
	if base == "" {
		base = filepath.Join(os.TempDir(), "poolsim-conformance")
		if c, err := os.UserCacheDir(); err == nil {
			if err := os.MkdirAll(filepath.Join(c, "poolsim-conformance"), 0o755); err == nil {
				base = filepath.Join(c, "poolsim-conformance")
			}
		}
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("conformance: cache directory: %w", err)
	}
	dir := filepath.Join(base, key)
	marker := filepath.Join(dir, "ok")
	if _, err := os.Stat(marker); err != nil {
		if err := build(javac, release, jars, names, base, dir); err != nil {
			return "", err
		}
	}
	if compiled.dirs == nil {
		compiled.dirs = map[string]string{}
	}
	classes := filepath.Join(dir, "classes")
	compiled.dirs[key] = classes
	return classes, nil
}

// build compiles the sources into a fresh directory under base and renames it to dir, so
// that a concurrent process never sees a half-built cache entry.
func build(javac, release string, jars, names []string, base, dir string) error {
	tmp, err := os.MkdirTemp(base, "build-")
	if err != nil {
		return fmt.Errorf("conformance: compile: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	src := filepath.Join(tmp, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		return fmt.Errorf("conformance: compile: %w", err)
	}
	args := []string{"--release", release, "-nowarn", "-encoding", "UTF-8", "-d", filepath.Join(tmp, "classes"),
		"-cp", strings.Join(jars, string(os.PathListSeparator))}
	for _, n := range names {
		b, err := javaSources.ReadFile(n)
		if err != nil {
			return fmt.Errorf("conformance: compile: %w", err)
		}
		p := filepath.Join(src, filepath.Base(n))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return fmt.Errorf("conformance: compile: %w", err)
		}
		args = append(args, p)
	}
	out, err := exec.Command(javac, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("conformance: compile: javac: %w\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, "ok"), nil, 0o644); err != nil {
		return fmt.Errorf("conformance: compile: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "ok")); statErr == nil {
			return nil // another process built it first
		}
		return fmt.Errorf("conformance: compile: %w", err)
	}
	return nil
}

// errLine matches the harness's one-line input error, printed like inputerr:
// FILE:LINE[:COL]: KEY: msg (allowed).
var errLine = regexp.MustCompile(`^([^:]+?)(?::(\d+))?(?::(\d+))?: (?:([A-Za-z][A-Za-z0-9_.-]*): )?(.*?)(?: \(([^()]*)\))?$`)

// parseInputError turns the harness's stderr line back into an *inputerr.Error.
func parseInputError(stderr string) *inputerr.Error {
	line := strings.TrimSpace(strings.SplitN(stderr, "\n", 2)[0])
	m := errLine.FindStringSubmatch(line)
	if m == nil {
		return inputerr.New(scriptName, 0, 0, "", line, "")
	}
	ln, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return inputerr.New(m[1], ln, col, m[4], m[5], m[6])
}

// Run runs the script once on the real pool and returns what the harness printed. A script
// the harness refuses comes back as an error wrapping *inputerr.Error, whose line numbers
// refer to s.String(). Without a deadline in ctx, Run allows the script's end plus a minute.
func Run(ctx context.Context, s Script) (*Result, error) { return Runner{}.Run(ctx, s) }

// RunN runs the script n times, one after another, so tests can measure the real pool's
// run-to-run noise (see MeasureNoise).
func RunN(ctx context.Context, s Script, n int) ([]*Result, error) { return Runner{}.RunN(ctx, s, n) }

// Run is the package-level Run on this runner's JVM.
func (r Runner) Run(ctx context.Context, s Script) (*Result, error) {
	return r.runText(ctx, s.String(), time.Duration(s.EndMs)*time.Millisecond)
}

// Check asks the harness whether it accepts the script, without running it: nil, or an
// error wrapping *inputerr.Error whose line numbers refer to s.String().
func Check(ctx context.Context, s Script) error { return Runner{}.Check(ctx, s) }

// Check is the package-level Check on this runner's JVM.
func (r Runner) Check(ctx context.Context, s Script) error {
	_, err := r.invoke(ctx, s.String(), 0, true)
	return err
}

// CheckAll asks the harness about many scripts at once, in one JVM: errs[i] is nil or an
// error wrapping *inputerr.Error for scripts[i]. err reports a failure to run the harness.
func CheckAll(ctx context.Context, scripts []Script) (errs []error, err error) {
	return Runner{}.CheckAll(ctx, scripts)
}

// CheckAll is the package-level CheckAll on this runner's JVM.
func (r Runner) CheckAll(ctx context.Context, scripts []Script) ([]error, error) {
	texts := make([]string, len(scripts))
	for i, s := range scripts {
		texts[i] = s.String()
	}
	return r.checkTexts(ctx, texts)
}

// checkTexts validates scripts given as text in one harness run (--check-many).
func (r Runner) checkTexts(ctx context.Context, texts []string) ([]error, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	for i, t := range texts {
		for _, l := range strings.Split(t, "\n") {
			if l == checkSeparator {
				return nil, fmt.Errorf("conformance: check: script %d has a line %q, the separator", i+1, checkSeparator)
			}
		}
	}
	out, err := r.harness(ctx, strings.Join(texts, "\n"+checkSeparator+"\n"), time.Minute, "--check-many")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(texts) {
		return nil, fmt.Errorf("conformance: check: %d answers for %d scripts", len(lines), len(texts))
	}
	errs := make([]error, len(texts))
	for i, l := range lines {
		switch {
		case l == "ok":
		case strings.HasPrefix(l, "error "):
			errs[i] = badScript(texts[i], parseInputError(strings.TrimPrefix(l, "error ")))
		default:
			return nil, fmt.Errorf("conformance: check: unexpected answer %q", l)
		}
	}
	return errs, nil
}

// checkSeparator separates the scripts given to --check-many.
const checkSeparator = "%%"

// badScript wraps the harness's input error, quoting the script line it names.
func badScript(text string, ie *inputerr.Error) error {
	where := ""
	if lines := strings.Split(text, "\n"); ie.Line > 0 && ie.Line <= len(lines) {
		where = fmt.Sprintf(" (line %d: %q)", ie.Line, lines[ie.Line-1])
	}
	return fmt.Errorf("conformance: run: bad script%s: %w", where, ie)
}

// runText runs a script given as text; end bounds the run when ctx has no deadline.
func (r Runner) runText(ctx context.Context, text string, end time.Duration) (*Result, error) {
	return r.invoke(ctx, text, end, false)
}

// invoke starts the harness on the script text, only validating it when check is set.
func (r Runner) invoke(ctx context.Context, text string, end time.Duration, check bool) (*Result, error) {
	var mode []string
	if check {
		mode = []string{"--check"}
	}
	stdout, err := r.harness(ctx, text, end, mode...)
	if err != nil {
		var ie *inputerr.Error
		if errors.As(err, &ie) {
			return nil, badScript(text, ie)
		}
		return nil, err
	}
	if check {
		return nil, nil
	}
	return ParseOutput(stdout)
}

// harness runs the Java harness with the given mode flags on input and returns its stdout.
// Exit status 2 comes back as an *inputerr.Error read from its stderr.
func (r Runner) harness(ctx context.Context, input string, end time.Duration, mode ...string) (*bytes.Buffer, error) {
	if err := r.Available(); err != nil {
		return nil, err
	}
	java, javac, err := r.tools()
	if err != nil {
		return nil, err
	}
	classes, err := r.classes(javac)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, end+time.Minute)
		defer cancel()
	}
	flags := r.JVMFlags
	if flags == nil {
		flags = DefaultJVMFlags
	}
	cp := strings.Join(append([]string{classes}, r.jars()...), string(os.PathListSeparator))
	args := append(append([]string{}, flags...), "-cp", cp, harnessMain, "--name", scriptName)
	args = append(append(args, mode...), "-")
	cmd := exec.CommandContext(ctx, java, args...)
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("conformance: run: %w", ctx.Err())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 2 {
		return nil, parseInputError(stderr.String())
	}
	if err != nil {
		return nil, fmt.Errorf("conformance: run: harness failed: %w\n%s", err, tail(stderr.String(), 2000))
	}
	return &stdout, nil
}

// RunN is the package-level RunN on this runner's JVM.
func (r Runner) RunN(ctx context.Context, s Script, n int) ([]*Result, error) {
	if n < 1 {
		return nil, fmt.Errorf("conformance: run %d times: need at least 1", n)
	}
	out := make([]*Result, 0, n)
	for i := 0; i < n; i++ {
		res, err := r.Run(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("conformance: run %d of %d: %w", i+1, n, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

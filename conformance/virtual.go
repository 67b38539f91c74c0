package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A VirtualScript is a trace for Executors.newVirtualThreadPerTaskExecutor() (spec §13,
// R130–R136): tasks submitted at given offsets, each a list of compute and block steps, run
// on the default scheduler with a fixed parallelism. RunVirtual runs it on a real JDK 25
// (java/VirtualRun.java); SimulateVirtual runs it on poolsim's virtual family.
type VirtualScript struct {
	// Parallelism is jdk.virtualThreadScheduler.parallelism (P, at least 1).
	Parallelism int
	// MaxPoolSize is jdk.virtualThreadScheduler.maxPoolSize; 0: the JDK's default max(P, 256).
	MaxPoolSize int
	// Tasks are the submissions in time order.
	Tasks []VirtualTask
	// End bounds the run: tasks not finished by then are reported unfinished.
	End time.Duration
}

// VirtualTask is one task: submitted at At, it runs Steps in order.
type VirtualTask struct {
	At    time.Duration
	Steps []VirtualStep
}

// VirtualStep is a step: Compute (a busy spin on the carrier, never a park) or a block
// (Thread.sleep) made In one of the places that decide pinning: "" (plain), synchronized,
// object-wait, native (an FFM upcall from libc qsort), clinit (a static initializer) or
// file-io (FileInputStream.read of a named FIFO).
type VirtualStep struct {
	Compute bool
	In      string
	D       time.Duration
}

// VirtualIns are the places a block step may be made in (the scenario key block.in).
var VirtualIns = []string{"synchronized", "object-wait", "native", "clinit", "file-io"}

// String renders the script in VirtualRun's input format.
func (s VirtualScript) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "virtual endMs=%d\n", s.End.Milliseconds())
	for i, t := range s.Tasks {
		fmt.Fprintf(&b, "task id=%d atMs=%d steps=", i+1, t.At.Milliseconds())
		for j, st := range t.Steps {
			if j > 0 {
				b.WriteByte(',')
			}
			if st.Compute {
				b.WriteString("compute")
			} else {
				b.WriteString("block")
				if st.In != "" {
					b.WriteString("@" + st.In)
				}
			}
			fmt.Fprintf(&b, ":%d", st.D.Milliseconds())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// VirtualResult is what one run of a VirtualScript did, real or simulated. Times are from
// t=0, the submitter's start.
type VirtualResult struct {
	// Tasks are the tasks in script order; an unfinished one has Done false.
	Tasks []VirtualOutcome
	// Carriers is how many carrier threads (ForkJoinPool-1-worker-N) existed at the end of a
	// real run — they live 30 s after their last work (R136), so this is the run's peak — or
	// the simulator's carriers peak; MaxCarrier the highest N seen (real runs).
	Carriers, MaxCarrier int
	// SubmitLateMax is how late the real submitter was at worst; CanaryStallMax the worst
	// oversleep of a platform thread waking every 5 ms: how much the machine stalled the run.
	SubmitLateMax, CanaryStallMax time.Duration
	// Unfinished counts the tasks that had not ended by the script's end.
	Unfinished int
}

// VirtualOutcome is one task: submitted, started (its virtual thread first mounted) and
// ended, with its steps; Carrier is the carrier it started on (real runs: the N of
// ForkJoinPool-1-worker-N; 0 when unknown).
type VirtualOutcome struct {
	Done               bool
	Submit, Start, End time.Duration
	Carrier            int
	Steps              []VirtualStepOutcome
}

// VirtualStepOutcome is one step: its begin and end, and the carriers it began and ended
// on (real runs; 0 when unknown).
type VirtualStepOutcome struct {
	Begin, End               time.Duration
	CarrierBegin, CarrierEnd int
}

// virtualMain is the Java class that runs a VirtualScript.
const virtualMain = "poolsim.conformance.VirtualRun"

// DefaultJDK25Home is where the machine image installs Temurin 25; POOLSIM_JAVA25_HOME
// overrides it.
const DefaultJDK25Home = "/usr/lib/jvm/temurin-25-jdk-amd64"

// JDK25 returns a runner on JDK 25 — $POOLSIM_JAVA25_HOME, else DefaultJDK25Home — or why
// there is none: no java and javac there, or a java older than 25.
func JDK25() (Runner, error) {
	home := os.Getenv("POOLSIM_JAVA25_HOME")
	if home == "" {
		home = DefaultJDK25Home
	}
	r := Runner{JavaHome: home}
	java, _, err := r.tools()
	if err != nil {
		return Runner{}, fmt.Errorf("%w (set POOLSIM_JAVA25_HOME to a JDK 25)", err)
	}
	v, err := javaFeature(java)
	if err != nil {
		return Runner{}, err
	}
	if v < 25 {
		return Runner{}, fmt.Errorf("conformance: %s is Java %d, need 25 (set POOLSIM_JAVA25_HOME to a JDK 25)", java, v)
	}
	return r, nil
}

// javaVersion matches the version in `java -version`'s first line.
var javaVersion = regexp.MustCompile(`version "(\d+)`)

// javaFeature returns the feature release (17, 25, …) of java.
func javaFeature(java string) (int, error) {
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("conformance: %s -version: %w", java, err)
	}
	m := javaVersion.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("conformance: %s -version: no version in %q", java, firstLine(string(out)))
	}
	v, _ := strconv.Atoi(string(m[1]))
	if v == 1 { // 1.8
		v = 8
	}
	return v, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// RequireJDK25 returns the JDK 25 runner, or skips the test with the reason when there is
// none — and fails it instead when the environment variable CI is "true", where Temurin 25
// must be installed (the virtual-thread ground truth, issue 15).
func RequireJDK25(t testing.TB) Runner {
	t.Helper()
	r, err := JDK25()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but JDK 25 is missing: %v", err)
		}
		t.Skipf("JDK 25 unavailable: %v", err)
	}
	return r
}

// RunVirtual runs the script on the runner's JVM, which must be JDK 25 (JDK25): VirtualRun
// is compiled once per process with --release 25 and started with the scheduler's
// parallelism and maxPoolSize as system properties, native access enabled, and the runner's
// JVM flags (DefaultJVMFlags). A script VirtualRun refuses comes back as an error wrapping
// *inputerr.Error.
func (r Runner) RunVirtual(ctx context.Context, s VirtualScript) (*VirtualResult, error) {
	return r.runVirtualText(ctx, s.String(), s)
}

// runVirtualText runs text, the script s as VirtualRun reads it (tests give bad text).
func (r Runner) runVirtualText(ctx context.Context, text string, s VirtualScript) (*VirtualResult, error) {
	if s.Parallelism < 1 {
		return nil, fmt.Errorf("conformance: virtual: parallelism %d, need at least 1", s.Parallelism)
	}
	java, javac, err := r.tools()
	if err != nil {
		return nil, err
	}
	classes, err := r.compile(javac, "25", nil, []string{"java/VirtualRun.java"})
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.End+time.Minute)
		defer cancel()
	}
	flags := r.JVMFlags
	if flags == nil {
		flags = DefaultJVMFlags
	}
	args := append([]string{}, flags...)
	args = append(args, "-Djdk.virtualThreadScheduler.parallelism="+strconv.Itoa(s.Parallelism))
	if s.MaxPoolSize > 0 {
		args = append(args, "-Djdk.virtualThreadScheduler.maxPoolSize="+strconv.Itoa(s.MaxPoolSize))
	}
	args = append(args, "--enable-native-access=ALL-UNNAMED", "-cp", classes, virtualMain, "-")
	cmd := exec.CommandContext(ctx, java, args...)
	cmd.Stdin = strings.NewReader(text)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("conformance: virtual: %w", ctx.Err())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 2 {
		return nil, badScript(text, parseInputError(stderr.String()))
	}
	if err != nil {
		return nil, fmt.Errorf("conformance: virtual: VirtualRun failed: %w\n%s", err, tail(stderr.String(), 2000))
	}
	return parseVirtual(&stdout, s)
}

// RunVirtualN runs the script n times, one after another, to measure the real run-to-run
// spread.
func (r Runner) RunVirtualN(ctx context.Context, s VirtualScript, n int) ([]*VirtualResult, error) {
	out := make([]*VirtualResult, 0, n)
	for i := 0; i < n; i++ {
		res, err := r.RunVirtual(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("conformance: virtual run %d of %d: %w", i+1, n, err)
		}
		out = append(out, res)
	}
	return out, nil
}

// virtualLine is one JSON line of VirtualRun's output.
type virtualLine struct {
	Kind                          string
	ID, Index, Carrier            int
	Submit, Start, End, Begin     int64
	CarrierBegin, CarrierEnd      int
	Step, In                      string
	Count, MaxIndex               int
	SubmitLateMax, CanaryStallMax int64
	Unfinished                    int
}

func parseVirtual(out *bytes.Buffer, s VirtualScript) (*VirtualResult, error) {
	res := &VirtualResult{Tasks: make([]VirtualOutcome, len(s.Tasks))}
	for i, t := range s.Tasks {
		res.Tasks[i].Steps = make([]VirtualStepOutcome, len(t.Steps))
	}
	us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	timing := false
	for sc.Scan() {
		var l virtualLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("conformance: virtual: bad output line %q: %w", sc.Text(), err)
		}
		if (l.Kind == "task" || l.Kind == "step") && (l.ID < 1 || l.ID > len(s.Tasks)) {
			return nil, fmt.Errorf("conformance: virtual: task %d of %d", l.ID, len(s.Tasks))
		}
		switch l.Kind {
		case "task":
			t := &res.Tasks[l.ID-1]
			t.Done, t.Submit, t.Start, t.End, t.Carrier = true, us(l.Submit), us(l.Start), us(l.End), l.Carrier
		case "step":
			steps := res.Tasks[l.ID-1].Steps
			if l.Index < 0 || l.Index >= len(steps) {
				return nil, fmt.Errorf("conformance: virtual: task %d step %d of %d", l.ID, l.Index, len(steps))
			}
			steps[l.Index] = VirtualStepOutcome{Begin: us(l.Begin), End: us(l.End), CarrierBegin: l.CarrierBegin, CarrierEnd: l.CarrierEnd}
		case "carriers":
			res.Carriers, res.MaxCarrier = l.Count, l.MaxIndex
		case "timing":
			timing = true
			res.SubmitLateMax, res.CanaryStallMax, res.Unfinished = us(l.SubmitLateMax), us(l.CanaryStallMax), l.Unfinished
		default:
			return nil, fmt.Errorf("conformance: virtual: unknown output line %q", sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !timing {
		return nil, fmt.Errorf("conformance: virtual: VirtualRun printed no timing line")
	}
	return res, nil
}

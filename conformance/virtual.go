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

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/workloads"
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
	// Version is the JDK feature release SimulateVirtual assumes (jvm.version; 0: 25, the
	// JDK RunVirtual needs); the real run is whatever its JDK is.
	Version int
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
	// ComputeOverrunMax is how much longer than asked the longest-overrunning compute step
	// took (real runs): a busy spin ends on the clock, and nothing in the JVM preempts it
	// (R132), so an overrun is the OS leaving the carrier's thread unscheduled — a stall of
	// the machine that the canary may not see.
	ComputeOverrunMax time.Duration
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
	for i, t := range res.Tasks {
		for j, st := range t.Steps {
			if in := s.Tasks[i].Steps[j]; t.Done && in.Compute {
				res.ComputeOverrunMax = max(res.ComputeOverrunMax, st.End-st.Begin-in.D)
			}
		}
	}
	return res, nil
}

// scenario is the poolsim scenario of the script: pool preset virtual (R130) on JDK 25 (or
// the script's Version) with the script's parallelism and maxPoolSize (R131), read through the scenario schema. Its
// workload is a placeholder: SimulateVirtual gives the script's tasks as the workload.
func (s VirtualScript) scenario() (*scenarios.Scenario, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "name: virtual-conformance\nseed: 1\nduration: %dms\npool: {preset: virtual}\n", s.End.Milliseconds())
	version := s.Version
	if version == 0 {
		version = 25
	}
	fmt.Fprintf(&b, "jvm:\n  version: %d\n  parallelism: %d\n", version, s.Parallelism)
	if s.MaxPoolSize > 0 {
		fmt.Fprintf(&b, "  maxPoolSize: %d\n", s.MaxPoolSize)
	}
	b.WriteString("workload:\n  arrivals: {process: burst, count: 1}\n  service: {dist: constant, value: 1ms}\n")
	return scenarios.Parse([]byte(b.String()), "virtual-conformance.yaml", nil)
}

// SimulateVirtual runs the script on poolsim's virtual-thread family (model.Virtual, the
// carrier scheduler of sim/virtual.go): each task submitted at its time — or at submits[i],
// a real run's own submission times, if not nil — with its steps as workload steps (compute;
// block with its in:, model.ParseSite). The result has each task's start (its first step's
// begin: the VT's first mount), end and steps' times; Carriers is the simulated carriers
// peak.
func SimulateVirtual(ctx context.Context, s VirtualScript, submits []time.Duration) (*VirtualResult, error) {
	sc, err := s.scenario()
	if err != nil {
		return nil, fmt.Errorf("conformance: virtual: scenario: %w", err)
	}
	src := &stepTrace{}
	for i, t := range s.Tasks {
		at := t.At
		if submits != nil {
			at = submits[i]
		}
		if i > 0 { // the real submitter's clock reads are in order; keep them so
			at = max(at, src.arr[i-1].At)
		}
		steps := make([]workloads.DrawnStep, len(t.Steps))
		for j, st := range t.Steps {
			d := workloads.DrawnStep{Kind: workloads.Compute, Time: st.D, Timeout: workloads.OwnTimeout}
			if !st.Compute {
				d.Kind = workloads.Block
				if st.In != "" {
					site, ok := model.ParseSite(st.In)
					if !ok {
						return nil, fmt.Errorf("conformance: virtual: task %d step %d: unknown in %q (%s)", i+1, j+1, st.In, strings.Join(model.SiteNames(), ", "))
					}
					d.In = uint8(site)
				}
			}
			steps[j] = d
		}
		src.arr = append(src.arr, workloads.Arrival{At: at})
		src.steps = append(src.steps, steps)
	}
	res := &VirtualResult{Tasks: make([]VirtualOutcome, len(s.Tasks))}
	for i, t := range s.Tasks {
		res.Tasks[i].Steps = make([]VirtualStepOutcome, len(t.Steps))
	}
	task := func(id uint64) (*VirtualOutcome, error) {
		if id < 1 || id > uint64(len(res.Tasks)) {
			return nil, fmt.Errorf("conformance: virtual: simulated task %d of %d", id, len(res.Tasks))
		}
		return &res.Tasks[id-1], nil
	}
	var hookErr error
	opts := sim.Options{
		Workload: src, CheckInvariants: true,
		Observer: model.ObserverFunc(func(ev *model.Event) {
			if ev.Kind == model.Submitted {
				if t, err := task(ev.Task.ID); err == nil {
					t.Submit = ev.At
				} else {
					hookErr = err
				}
			}
		}),
		OnTask: func(e sim.TaskEvent) {
			t, err := task(e.TaskID)
			if err != nil {
				hookErr = err
				return
			}
			if e.End {
				t.Done, t.End = true, e.T
			}
		},
		OnStep: func(e sim.StepEvent) {
			t, err := task(e.TaskID)
			if err != nil || e.Step < 0 || e.Step >= len(t.Steps) {
				hookErr = fmt.Errorf("conformance: virtual: simulated task %d step %d", e.TaskID, e.Step)
				return
			}
			if e.End {
				t.Steps[e.Step].End = e.T
				return
			}
			t.Steps[e.Step].Begin = e.T
			if e.Step == 0 {
				t.Start = e.T
			}
		},
	}
	out, err := sim.Run(ctx, sc, opts)
	if err != nil {
		return nil, err
	}
	if hookErr != nil {
		return nil, hookErr
	}
	if v := out.Summary.Virtual; v != nil {
		res.Carriers, res.MaxCarrier = v.CarriersPeak, v.CarriersPeak
	}
	for _, t := range res.Tasks {
		if !t.Done {
			res.Unfinished++
		}
	}
	return res, nil
}

// stepTrace is a workload of given arrivals, each with its steps.
type stepTrace struct {
	arr   []workloads.Arrival
	steps [][]workloads.DrawnStep
	i     int
}

func (s *stepTrace) Next() (workloads.Arrival, bool) {
	if s.i >= len(s.arr) {
		return workloads.Arrival{}, false
	}
	s.i++
	return s.arr[s.i-1], true
}
func (s *stepTrace) Err() error                       { return nil }
func (s *stepTrace) Close() error                     { return nil }
func (s *stepTrace) HasSteps() bool                   { return true }
func (s *stepTrace) LastSteps() []workloads.DrawnStep { return s.steps[s.i-1] }

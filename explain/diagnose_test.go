package explain

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/conformance"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/threaddump"
)

func tomcatPool(core, max int, keepAlive time.Duration) scenarios.Pool {
	pre, _ := scenarios.LookupPreset("tomcat")
	p := scenarios.Pool{Preset: "tomcat", ThreadNamePrefix: pre.Prefix, Config: pre.Config}
	p.Core, p.Max, p.KeepAlive = core, max, keepAlive
	return p
}

// TestDiagnoseRecoversSimulatedRate: simulate a Tomcat pool at a known
// Poisson rate, observe its final size, and diagnose it: the true rate must
// fall inside the stated range (simulated ground truth, a different seed
// from the diagnosis's own).
func TestDiagnoseRecoversSimulatedRate(t *testing.T) {
	pool := tomcatPool(2, 60, 5*time.Second)
	const trueRate = 3.0
	d0 := &Diagnosis{Pool: pool, Opt: DiagnoseOptions{Since: 5 * time.Minute, Peak: 60, Service: 5 * time.Millisecond}}
	sc := d0.scenario("poisson", trueRate, 4242)
	res, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs := Observation{Source: "simulation", Total: res.Summary.FinalPoolSize, IdleTimed: res.Summary.FinalIdleTimed, Busy: res.Summary.FinalBusy}
	d, err := Diagnose(context.Background(), pool, obs, DiagnoseOptions{Since: 5 * time.Minute, Peak: 60, Service: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("observed %d workers; Poisson range %.3f–%.3f (best %.3f); periodic %.3f–%.3f",
		obs.Total, d.Poisson.Low, d.Poisson.High, d.Poisson.Best, d.Periodic.Low, d.Periodic.High)
	if !d.Poisson.Found || trueRate < d.Poisson.Low || trueRate > d.Poisson.High {
		t.Errorf("true rate %v outside the Poisson range %.3f–%.3f", trueRate, d.Poisson.Low, d.Poisson.High)
	}
	if d.Poisson.High/d.Poisson.Low > 1.6 {
		t.Errorf("range %.3f–%.3f is too wide to be useful", d.Poisson.Low, d.Poisson.High)
	}
	if len(d.Issues) > 0 {
		t.Errorf("a pool the model produced was flagged: %v", d.Issues)
	}
	text := d.Text()
	for _, want := range []string{"behaving as designed", "Poisson", "periodic"} {
		if !strings.Contains(text, want) {
			t.Errorf("diagnosis lacks %q:\n%s", want, text)
		}
	}
}

// TestDiagnoseFlagsImpossible: more workers than max cannot come from this
// configuration.
func TestDiagnoseFlagsImpossible(t *testing.T) {
	d, err := Diagnose(context.Background(), tomcatPool(10, 50, time.Minute), Observation{Total: 80, IdleTimed: 80},
		DiagnoseOptions{Since: 10 * time.Minute, Replications: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Issues) == 0 || !strings.Contains(d.Text(), "does NOT fit") {
		t.Errorf("80 workers with max 50 not flagged:\n%s", d.Text())
	}
}

// TestDiagnoseRealTomcat runs Tomcat 10.1's real pool at a known periodic
// rate (a burst to 50 threads, then 2 requests/s of 5 ms, keepAlive
// 6.25 s), takes a thread dump with jstack, and hands the dump to diagnose:
// the true rate must lie in the periodic range it states. The expected pool
// is ⌈2 × 6.255⌉ − 1 = 12; each worker's idle gap (6.0 s) stays 250 ms below
// keepAlive, far more than the JVM's scheduling jitter on a busy machine.
func TestDiagnoseRealTomcat(t *testing.T) {
	const keepAliveMs, rate, settle = 6250, 2.0, 20000
	target := startTarget(t, "2", "60", "6250", "50", "300", "2", "5", "20000")
	obs := target.observe(t)
	pool := tomcatPool(2, 60, keepAliveMs*time.Millisecond)
	pool.ThreadNamePrefix = "diag-exec-"
	d, err := Diagnose(target.ctx, pool, obs, DiagnoseOptions{Since: settle * time.Millisecond, Peak: 50, Service: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("real pool: %d workers (%d TIMED_WAITING, %d busy); periodic range %.3f–%.3f/s, Poisson %.3f–%.3f/s",
		obs.Total, obs.IdleTimed, obs.Busy, d.Periodic.Low, d.Periodic.High, d.Poisson.Low, d.Poisson.High)
	if !d.Periodic.Found || rate < d.Periodic.Low || rate > d.Periodic.High {
		t.Errorf("true rate %v/s outside the stated periodic range %.3f–%.3f/s\n%s", rate, d.Periodic.Low, d.Periodic.High, d.Text())
	}
}

// diagTarget is testdata/java/DiagnoseTarget running a real Tomcat pool,
// ready (its traffic settled) and waiting to be dumped.
type diagTarget struct {
	ctx    context.Context
	cmd    *exec.Cmd
	jstack string
	dir    string
	dumps  int
}

// startTarget compiles and starts DiagnoseTarget with args and waits until
// it is ready; the test kills it at its end. Without the JVM or jstack it
// skips, or fails when CI=true.
func startTarget(t *testing.T, args ...string) *diagTarget {
	t.Helper()
	conformance.Require(t)
	jstack, err := exec.LookPath("jstack")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("jstack is not on PATH; CI must install a JDK")
		}
		t.Skip("jstack is not on PATH")
	}
	dir := t.TempDir()
	cp := strings.Join(conformance.DefaultJars, ":")
	src, _ := filepath.Abs("testdata/java/DiagnoseTarget.java")
	if out, err := exec.Command("javac", "-d", dir, "-cp", cp, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "java", append([]string{"-cp", dir + ":" + cp, "DiagnoseTarget"}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "READY") {
		t.Fatalf("target did not get ready: %q %v", line, err)
	}
	t.Logf("target: %s", strings.TrimSpace(line))
	return &diagTarget{ctx: ctx, cmd: cmd, jstack: jstack, dir: dir}
}

// observe dumps the target with jstack -l and reads its diag-exec- pool.
func (d *diagTarget) observe(t *testing.T) Observation {
	t.Helper()
	out, err := exec.Command(d.jstack, "-l", itoa(d.cmd.Process.Pid)).Output()
	if err != nil {
		t.Fatalf("jstack: %v", err)
	}
	d.dumps++
	dumpPath := filepath.Join(d.dir, fmt.Sprintf("dump%d.txt", d.dumps))
	os.WriteFile(dumpPath, out, 0o644)
	dump, err := threaddump.ParseFile(dumpPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range threaddump.Summarise(dump) {
		if p.Prefix == "diag-exec-" {
			return Observation{Source: "jstack of the real pool", Total: p.Threads, IdleTimed: p.IdleTimed, IdleUntimed: p.IdleUntimed, Busy: p.Busy, MaxNumber: p.MaxNumber}
		}
	}
	t.Fatalf("no diag-exec- pool in the dump:\n%s", out)
	return Observation{}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestDiagnoseRealTomcatPoisson (issue 12): Tomcat 10.1's real pool after a
// burst to 300 threads, under Poisson traffic of 60 requests/s of 2 ms
// (keepAlive 2 s), dumped with jstack 20, 23 and 26 s later. Each dump,
// diagnosed with the calibrated hand-off timing, must give a Poisson band
// that holds the true rate. The bands' centres are logged with the
// zero-latency model's: here the two differ by 2–3 % of the rate, less
// than a dump's own noise (the real pool's size differs by a few workers
// from run to run, 3 % of the rate), so the centre is reported, not gated:
// in four runs it averaged +3.8, −1.4, +3.5 and +4.5 % from the true rate
// with the calibrated timing.
func TestDiagnoseRealTomcatPoisson(t *testing.T) {
	if testing.Short() {
		t.Skip("a real pool for half a minute")
	}
	const rate = 60.0
	target := startTarget(t, "10", "300", "2000", "300", "500", "60", "2", "20000", "diag-exec-", "poisson")
	ctx := target.ctx
	ready := time.Now()
	var obs []Observation
	for _, at := range []time.Duration{0, 3 * time.Second, 6 * time.Second} {
		time.Sleep(time.Until(ready.Add(at)))
		obs = append(obs, target.observe(t))
	}
	target.cmd.Process.Kill()
	pool := tomcatPool(10, 300, 2*time.Second)
	pool.ThreadNamePrefix = "diag-exec-"
	cal := scenarios.CalibratedWakeup()
	centre := 0.0
	for i, o := range obs {
		since := 20*time.Second + 500*time.Millisecond + time.Duration(i)*3*time.Second
		timed, err := Diagnose(ctx, pool, o, DiagnoseOptions{Since: since, Peak: 300, Service: 2 * time.Millisecond, Wakeup: &cal})
		if err != nil {
			t.Fatal(err)
		}
		ideal, err := Diagnose(ctx, pool, o, DiagnoseOptions{Since: since, Peak: 300, Service: 2 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		c := (timed.Poisson.Low + timed.Poisson.High) / 2
		centre += c / float64(len(obs))
		t.Logf("dump %d, %v after the burst: %d workers; Poisson band with the calibrated timing %.1f–%.1f/s (centre %.1f, %+.1f%%), with a zero-latency hand-off %.1f–%.1f/s (centre %.1f, %+.1f%%)",
			i+1, since, o.Total, timed.Poisson.Low, timed.Poisson.High, c, 100*(c-rate)/rate,
			ideal.Poisson.Low, ideal.Poisson.High, (ideal.Poisson.Low+ideal.Poisson.High)/2, 100*((ideal.Poisson.Low+ideal.Poisson.High)/2-rate)/rate)
		if !timed.Poisson.Found || rate < timed.Poisson.Low || rate > timed.Poisson.High {
			t.Errorf("dump %d: true rate %v/s outside the Poisson band %.1f–%.1f/s\n%s", i+1, rate, timed.Poisson.Low, timed.Poisson.High, timed.Text())
		}
	}
	t.Logf("the bands' centres average %.1f/s (%+.1f%%)", centre, 100*(centre-rate)/rate)
}

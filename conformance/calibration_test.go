package conformance

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// TestCalibrationBlockLoads: the host.wakeup block that scenarios/examples/calibration/HandOff.java
// prints (README, "Hand-off timing") is a valid scenario block with its three laws — latency,
// race window (R113) and overrun — and a scenario with it runs. A short calibration (60 samples
// on 20 parked workers) on the installed JDK: what it measures is the machine's, only its form
// is checked.
func TestCalibrationBlockLoads(t *testing.T) {
	Require(t)
	java, _, err := Runner{}.tools()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, java, "../scenarios/examples/calibration/HandOff.java", "60", "1", "20")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("HandOff.java: %v\n%s", err, stderr.String())
	}
	i := strings.Index(out.String(), "host:\n")
	if i < 0 {
		t.Fatalf("no host block in HandOff.java's output:\n%s", out.String())
	}
	block := out.String()[i:]
	y := `name: calibrated-here
duration: 10s
sample: 1s
pool: {preset: tomcat, core: 10, max: 200, keepAlive: 1s}
workload:
  arrivals: {process: poisson, rate: 400/s}
  service: {dist: constant, value: 2ms}
` + block
	sc, err := scenarios.Parse([]byte(y), "calibrated.yaml", nil)
	if err != nil {
		t.Fatalf("the printed block does not load: %v\n%s", err, block)
	}
	w := sc.Host.Wakeup
	if w == nil || w.Latency.Dist != "quantiles" || w.Race == nil || w.Race.Dist != "quantiles" || w.Overrun == nil {
		t.Fatalf("host.wakeup %+v: want latency, race and overrun as quantiles laws\n%s", w, block)
	}
	res, err := sim.Run(context.Background(), sc, sim.Options{CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	if k := res.Summary.Wakeup; k == nil || k.Race == "" || k.Signals == 0 {
		t.Errorf("the run's wake-up summary %+v: want the race law named and signals counted", k)
	}
	t.Logf("%s", block)
}

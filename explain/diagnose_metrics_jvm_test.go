package explain

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/poolsim/poolsim/conformance"
	scraped "github.com/poolsim/poolsim/metrics"
)

// The real run: MetricsTarget.java drives Tomcat 10.1's pool (core 2, max
// 60, keepAlive 3 s) with metricsPhases (Poisson arrivals from a seeded
// java.util.Random, 250 ms sleeps: events tens of ms apart, so the busy
// 2-core machine's scheduling jitter of a few ms does not matter) and
// scrapes it every second into the three formats.
func metricsTargetArgs(seed int, out string) []string {
	args := []string{"2", "60", "3000", "1000", strconv.Itoa(seed), out}
	for _, p := range metricsPhases {
		args = append(args, fmt.Sprintf("%d:%s:%d", p.dur.Milliseconds(), fmtRate(p.rate), metricsService.Milliseconds()))
	}
	return args
}

// Tolerances of the real-pool test, from the real pool's own run-to-run
// spread: POOLSIM_MEASURE_METRICS=6 go test ./explain -run
// TestMeasureRealMetricsSpread -v runs the target with seeds 1–6 and prints
// the figures. Measured on the shared 2-core box (issue 16, load about 3):
//
//   - the pool size's SD across the 6 runs, per scrape, has an RMS of 1.48
//     workers over the 46 scrapes (the busy phase's peak ranged 15–19; one
//     second after keepAlive, the falling pool held 8 to 14);
//   - one real run's RMS deviation from the mean of the other five was
//     1.10–2.30 workers (realStray, the largest): that is how far a real
//     run strays from what the real pool does on average;
//   - one run's RMS deviation from the re-simulation's mean was 1.00–3.35
//     (seed 1: 1.02; seed 5, whose peak of 19 is the outlier of both, 3.35);
//   - the share of scrapes within 2 SD + 0.5 of the re-simulation was
//     0.63–1 (seed 1: 1);
//   - 17 of the 18 phase rates lay in their 95 % bands (seed 4's last phase
//     drew 69 arrivals where 50 were due, 2.7 SD: its band, 2.15–3.49/s,
//     is right for what happened).
//
// The test runs seed 1 and allows a deviation of 1.5 × realStray, which
// also covers every measured run, and an agreement of 0.6.
const (
	realStray    = 2.30
	devTolerance = 1.5 * realStray
	minAgree     = 0.6
)

// compileTarget compiles MetricsTarget.java into dir.
func compileTarget(t testing.TB, dir string) string {
	t.Helper()
	cp := strings.Join(conformance.DefaultJars, ":")
	src, _ := filepath.Abs("testdata/java/MetricsTarget.java")
	if out, err := exec.Command("javac", "-d", dir, "-cp", cp, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return dir + ":" + cp
}

// runTarget runs the target once with seed, writing out.{prom,json,csv}, and
// returns its DONE line.
func runTarget(t testing.TB, cp string, seed int, out string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := append(append([]string{}, conformance.DefaultJVMFlags...), "-cp", cp, "MetricsTarget")
	cmd := exec.CommandContext(ctx, "java", append(args, metricsTargetArgs(seed, out)...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("MetricsTarget seed %d: %v", seed, err)
	}
	line, _ := bufio.NewReader(strings.NewReader(string(stdout))).ReadString('\n')
	if !strings.HasPrefix(line, "DONE") {
		t.Fatalf("MetricsTarget seed %d printed %q", seed, stdout)
	}
	return strings.TrimSpace(line)
}

// diagnoseFile diagnoses one exported file of the real pool.
func diagnoseFile(t *testing.T, path, pool string, opt MetricsOptions) *MetricsDiagnosis {
	t.Helper()
	set, err := scraped.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := scraped.Select(set, pool)
	if err != nil {
		t.Fatal(err)
	}
	md, err := DiagnoseMetrics(context.Background(), metricsPool(), set, mp, opt)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// TestDiagnoseMetricsRealTomcat: metrics of Tomcat's real pool at a known
// rate, in each format. diagnose --metrics must recover every phase's rate
// within its stated 95 % band, and its re-simulation and the fitted scenario
// must follow the real pool size within the real pool's own spread
// (devTolerance, minAgree).
// The tasks sleep 250 ms, so the re-simulation uses constant service
// (--service-dist constant), as a user who knows their service would.
func TestDiagnoseMetricsRealTomcat(t *testing.T) {
	conformance.Require(t)
	if testing.Short() {
		t.Skip("runs a JVM for 45 s of real time")
	}
	dir := t.TempDir()
	cp := compileTarget(t, dir)
	out := filepath.Join(dir, "tomcat")
	t.Logf("target: %s", runTarget(t, cp, 1, out))
	for _, ext := range []string{"prom", "json", "csv"} {
		md := diagnoseFile(t, out+"."+ext, "tomcat-exec", MetricsOptions{ServiceDist: "constant"})
		checkRates(t, md)
		dev := deviation(md)
		t.Logf("%s: %d of %d scrapes agree, RMS deviation %.2f workers (tolerance %.2f); verdict: %s", ext, md.Agree, md.Compared, dev, devTolerance, md.Verdict)
		if dev > devTolerance || float64(md.Agree) < minAgree*float64(md.Compared) {
			t.Errorf("%s: the re-simulation leaves the real pool's spread: RMS deviation %.2f > %.2f or %d of %d scrapes agree\n%s",
				ext, dev, devTolerance, md.Agree, md.Compared, md.Text())
		}
		if !md.AsDesigned {
			t.Errorf("%s: the real pool was not found as designed: %s", ext, md.Verdict)
		}
		if rms := fittedDeviation(t, md); rms > devTolerance {
			t.Errorf("%s: the fitted scenario's mean pool size is %.2f workers (RMS) from the real one, above %.2f\n%s", ext, rms, devTolerance, md.ScenarioYAML())
		}
	}
	// Tomcat's own series have no counter (R173): the rate comes from the
	// busy gauge and the service time given.
	md := diagnoseFile(t, out+".prom", "http-nio-8080", MetricsOptions{Service: metricsService, ServiceDist: "constant"})
	checkRates(t, md)
}

// TestMeasureRealMetricsSpread measures the real pool's run-to-run spread
// and the re-simulation's deviation from each run: the origin of the
// tolerances above. It runs only when asked (POOLSIM_MEASURE_METRICS=N
// runs; POOLSIM_METRICS_RUNS=DIR keeps the runs there and reuses them).
func TestMeasureRealMetricsSpread(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("POOLSIM_MEASURE_METRICS"))
	if n < 2 {
		t.Skip("set POOLSIM_MEASURE_METRICS=6 to measure the real pool's spread (6 JVM runs of 45 s)")
	}
	conformance.Require(t)
	dir := os.Getenv("POOLSIM_METRICS_RUNS")
	if dir == "" {
		dir = t.TempDir()
	}
	var cp string
	var misses []string
	var sizes [][]float64
	var mds []*MetricsDiagnosis
	for seed := 1; seed <= n; seed++ {
		out := filepath.Join(dir, fmt.Sprintf("run%d", seed))
		if _, err := os.Stat(out + ".prom"); err != nil {
			if cp == "" {
				cp = compileTarget(t, t.TempDir())
			}
			t.Logf("seed %d: %s", seed, runTarget(t, cp, seed, out))
		}
		md := diagnoseFile(t, out+".prom", "tomcat-exec", MetricsOptions{ServiceDist: "constant"})
		for _, m := range rateMisses(t, md) {
			misses = append(misses, fmt.Sprintf("seed %d: %s", seed, m))
		}
		mds = append(mds, md)
		sizes = append(sizes, md.Obs.Size)
	}
	scrapes := len(sizes[0])
	for _, s := range sizes {
		scrapes = min(scrapes, len(s))
	}
	var ss float64
	for k := 0; k < scrapes; k++ {
		col := make([]float64, len(sizes))
		for j := range sizes {
			col[j] = sizes[j][k]
		}
		sd := stat.StdDev(col, nil)
		ss += sd * sd
	}
	spread := math.Sqrt(ss / float64(scrapes))
	// A real run against the mean of the others: how far real runs stray.
	realDev := func(j int) float64 {
		var ss float64
		for k := 0; k < scrapes; k++ {
			m := 0.0
			for i := range sizes {
				if i != j {
					m += sizes[i][k] / float64(len(sizes)-1)
				}
			}
			ss += (sizes[j][k] - m) * (sizes[j][k] - m)
		}
		return math.Sqrt(ss / float64(scrapes))
	}
	worstReal, worstSim, worstAgree := 0.0, 0.0, 1.0
	for j, md := range mds {
		dev, rd := deviation(md), realDev(j)
		agree := float64(md.Agree) / float64(md.Compared)
		worstReal, worstSim, worstAgree = math.Max(worstReal, rd), math.Max(worstSim, dev), math.Min(worstAgree, agree)
		t.Logf("seed %d: RMS deviation from the re-simulation %.2f, from the other real runs %.2f; %d of %d agree; end %s vs %s observed",
			j+1, dev, rd, md.Agree, md.Compared, num(md.End.Mean), num(md.EndObserved))
	}
	t.Logf("rates outside their 95 %% bands: %d of %d: %v", len(misses), 3*n, misses)
	t.Logf("worst RMS deviation of a real run: from the re-simulation %.2f, from the other real runs %.2f; worst agreement %.2f", worstSim, worstReal, worstAgree)
	t.Logf("real spread (RMS over %d scrapes of the SD across %d runs): %.2f workers", scrapes, n, spread)
}

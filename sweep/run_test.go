package sweep

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// testScenario is a small Tomcat pool under Poisson traffic: a run takes a
// few milliseconds.
const testScenario = `name: sweep-test
seed: 7
duration: 2m
warmup: 10s
sample: 10s
pool:
  preset: tomcat
  core: 2
  max: 8
  keepAlive: 10s
  queue: {type: tomcat, capacity: 20}
workload:
  arrivals: {process: poisson, rate: 40/s}
  service: {dist: exponential, mean: 100ms}
`

func writeScenario(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(testScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func newSweep(t testing.TB, path string, reps int, flags ...string) *Sweep {
	t.Helper()
	s, err := New(Config{Path: path, Params: mustParams(t, flags...), Replications: reps, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dirFiles reads every file of a sweep directory but the lock, by
// relative path.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || info.Name() == ".lock" {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameDirs(t *testing.T, what string, a, b map[string][]byte) {
	t.Helper()
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if !bytes.Equal(a[n], b[n]) {
			t.Errorf("%s: %s differs (%d and %d bytes)", what, n, len(a[n]), len(b[n]))
		}
	}
	if len(a) == 0 || len(a["sweep.csv"]) == 0 {
		t.Errorf("%s: nothing to compare", what)
	}
}

var sweepFlags = []string{"pool.max=2:8:4", "workload.arrivals.rate=10/s:40/s:3:log"}

// The merge of shard directories is byte-identical to the unsharded
// sweep's directory, and results do not depend on --jobs.
func TestShardsMergeByteIdentical(t *testing.T) {
	path := writeScenario(t)
	ctx := context.Background()
	whole := t.TempDir()
	if _, err := newSweep(t, path, 3, sweepFlags...).Run(ctx, RunOptions{Dir: whole, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	// The same sweep with 4 jobs.
	fast := t.TempDir()
	if _, err := newSweep(t, path, 3, sweepFlags...).Run(ctx, RunOptions{Dir: fast, Jobs: 4}); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, "jobs 1 vs 4", dirFiles(t, whole), dirFiles(t, fast))

	var shardDirs []string
	for i := 1; i <= 3; i++ {
		d := t.TempDir()
		o, err := newSweep(t, path, 3, sweepFlags...).Run(ctx, RunOptions{Dir: d, Jobs: i, Shard: Shard{i, 3}})
		if err != nil {
			t.Fatal(err)
		}
		if o.Points != 4 || len(o.Results.Rows) != 4 {
			t.Errorf("shard %d/3: %d points, %d rows; want 4 of 12", i, o.Points, len(o.Results.Rows))
		}
		shardDirs = append(shardDirs, d)
	}
	merged := t.TempDir()
	// Any order of the directories.
	if _, err := Merge([]string{shardDirs[2], shardDirs[0], shardDirs[1]}, merged); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, "merge vs unsharded", dirFiles(t, whole), dirFiles(t, merged))

	// Merging again into the merged directory, or adding the unsharded
	// directory (duplicates agree), changes nothing.
	if _, err := Merge(append(shardDirs, whole), merged); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, "second merge", dirFiles(t, whole), dirFiles(t, merged))

	// A missing shard is named.
	_, err := Merge(shardDirs[:2], t.TempDir())
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "4 of 12 points are missing") || !strings.Contains(err.Error(), "3/3 (absent)") {
		t.Errorf("merge without shard 3: %v", err)
	}
	// A shard of another sweep is refused.
	other := t.TempDir()
	if _, err := newSweep(t, path, 2, sweepFlags...).Run(ctx, RunOptions{Dir: other, Shard: Shard{3, 3}}); err != nil {
		t.Fatal(err)
	}
	_, err = Merge([]string{shardDirs[0], shardDirs[1], other}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "--replications: 3 here, 2 there") {
		t.Errorf("merge with another sweep's shard: %v", err)
	}
	// A point file that differs between directories is refused.
	p := pointPath(shardDirs[0], newSweep(t, path, 3, sweepFlags...).Grid().ShardPoints(Shard{1, 3})[0])
	dup := t.TempDir()
	copyDir(t, shardDirs[1], dup)
	data, _ := os.ReadFile(p)
	altered := bytes.Replace(data, []byte(`"complete":true`), []byte(`"complete":false`), 1)
	if err := os.WriteFile(filepath.Join(dup, pointsDir, filepath.Base(p)), altered, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Merge([]string{shardDirs[0], dup, shardDirs[2]}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "differs from point") {
		t.Errorf("merge with a differing duplicate: %v", err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	for rel, b := range dirFiles(t, from) {
		p := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A point's numbers do not depend on the grid around it: the same point in
// another sweep has the same seeds and means; and each replication is
// reproduced by a plain run with its seed.
func TestPointIndependentOfGrid(t *testing.T) {
	path := writeScenario(t)
	ctx := context.Background()
	a, err := newSweep(t, path, 2, "pool.max=4,8", "workload.arrivals.rate=20/s").Run(ctx, RunOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := newSweep(t, path, 2, "workload.arrivals.rate=20,30", "pool.max=16,8").Run(ctx, RunOptions{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := a.Results.Rows[1], b.Results.Rows[1] // pool.max=8 at 20/s in both
	if a.Results.grid.Label(1) != "pool.max=8 workload.arrivals.rate=20/s" || b.Results.grid.Label(1) != "workload.arrivals.rate=20 pool.max=8" {
		t.Fatalf("wrong points: %q, %q", a.Results.grid.Label(1), b.Results.grid.Label(1))
	}
	if seedList(ra.Seeds, " ") != seedList(rb.Seeds, " ") {
		t.Errorf("seeds %v and %v for one point", ra.Seeds, rb.Seeds)
	}
	for j, m := range a.Results.Definition.Metrics {
		if jsonNumber(ra.Mean[j]) != jsonNumber(rb.Mean[j]) || jsonNumber(ra.HalfWidth[j]) != jsonNumber(rb.HalfWidth[j]) {
			t.Errorf("%s: %v ± %v and %v ± %v for one point", m, ra.Mean[j], ra.HalfWidth[j], rb.Mean[j], rb.HalfWidth[j])
		}
	}
	// Replication 2 of the point, rerun as poolsim run --set ... --seed S.
	sc, err := scenarios.Load(path, []string{"pool.max=8", "workload.arrivals.rate=20/s"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Seed = ra.Seeds[1]
	if want := ReplicationSeed(PointSeed(7, a.Results.grid.Key(1)), 1); sc.Seed != want {
		t.Errorf("replication 2's seed %d; the derivation gives %d", sc.Seed, want)
	}
	res, err := sim.Run(ctx, sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Seed = ra.Seeds[0]
	res0, err := sim.Run(ctx, sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := a.Results.MetricIndex("submitted")
	if want := float64(res.Summary.Submitted+res0.Summary.Submitted) / 2; ra.Mean[j] != want {
		t.Errorf("submitted mean %v; the two runs give %v", ra.Mean[j], want)
	}
}

// cancelAfter cancels a context when n points have finished.
type cancelAfter struct {
	n, done int
	cancel  context.CancelFunc
	mu      sync.Mutex
}

func (c *cancelAfter) Start(total, resumed int) {}
func (c *cancelAfter) Done(Row) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	if c.done == c.n {
		c.cancel()
	}
}

// An interrupted sweep keeps its finished points; --resume runs only the
// rest and ends byte-identical to an uninterrupted sweep.
func TestInterruptAndResume(t *testing.T) {
	path := writeScenario(t)
	flags := []string{"pool.max=2:8:7", "workload.arrivals.rate=10/s:40/s:4"}
	want := t.TempDir()
	if _, err := newSweep(t, path, 2, flags...).Run(context.Background(), RunOptions{Dir: want, Jobs: 2}); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	o, err := newSweep(t, path, 2, flags...).Run(ctx, RunOptions{Dir: dir, Jobs: 2, Progress: &cancelAfter{n: 5, cancel: cancel}})
	cancel()
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted sweep: %v", err)
	}
	finished := len(dirFiles(t, filepath.Join(dir, pointsDir)))
	if o.Ran != finished || finished < 5 || finished >= 28 {
		t.Fatalf("interrupted after %d points; %d point files", o.Ran, finished)
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep.csv")); !os.IsNotExist(err) {
		t.Errorf("an interrupted sweep wrote sweep.csv (%v)", err)
	}

	// Without --resume the directory is refused.
	_, err = newSweep(t, path, 2, flags...).Run(context.Background(), RunOptions{Dir: dir})
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("rerun without --resume: %v", err)
	}
	// --resume with other flags is refused, naming the difference.
	_, err = newSweep(t, path, 3, flags...).Run(context.Background(), RunOptions{Dir: dir, Resume: true})
	if err == nil || !strings.Contains(err.Error(), "--replications: 2 here, 3 there") {
		t.Errorf("resume with other flags: %v", err)
	}
	_, err = newSweep(t, path, 2, flags...).Run(context.Background(), RunOptions{Dir: dir, Resume: true, Shard: Shard{1, 2}})
	if err == nil || !strings.Contains(err.Error(), "shard") {
		t.Errorf("resume with another shard: %v", err)
	}

	// A torn temporary file (a write killed mid-way) and a corrupt point
	// file (a machine that died before the disk had it) are cleaned up
	// and redone.
	if err := os.WriteFile(filepath.Join(dir, pointsDir, ".0000027.json.tmp-123"), []byte(`{"swe`), 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := pointPath(dir, 0)
	if err := os.WriteFile(corrupt, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err = newSweep(t, path, 2, flags...).Run(context.Background(), RunOptions{Dir: dir, Resume: true, Jobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if o.Resumed != finished-1 || o.Ran != 28-(finished-1) || o.Simulations != 2*o.Ran {
		t.Errorf("resume: %d resumed, %d ran, %d simulations; want %d, %d, %d", o.Resumed, o.Ran, o.Simulations, finished-1, 28-(finished-1), 2*(28-(finished-1)))
	}
	sameDirs(t, "resumed vs uninterrupted", dirFiles(t, want), dirFiles(t, dir))

	// Resuming a finished sweep runs nothing and rewrites the same bytes.
	o, err = newSweep(t, path, 2, flags...).Run(context.Background(), RunOptions{Dir: dir, Resume: true})
	if err != nil || o.Ran != 0 || o.Simulations != 0 {
		t.Errorf("resume of a finished sweep: %v, %d ran", err, o.Ran)
	}
	sameDirs(t, "resumed twice", dirFiles(t, want), dirFiles(t, dir))
}

// Two sweeps never write one directory at once.
func TestDirectoryLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	path := writeScenario(t)
	_, err = newSweep(t, path, 1, "pool.max=4").Run(context.Background(), RunOptions{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "in use by another sweep") {
		t.Errorf("a locked directory: %v", err)
	}
}

// The precision loop: every point stops at the first replication count,
// from the first batch on, where the metric's relative half-width is below
// the target, or at the cap; and that does not depend on --jobs.
func TestPrecisionLoop(t *testing.T) {
	path := writeScenario(t)
	cfg := func(prec float64, max int) Config {
		return Config{Path: path, Params: mustParams(t, "pool.max=3,4,8"), Replications: 3, Precision: prec, Metric: "wait_mean_s", MaxReplications: max, Version: "test"}
	}
	var first *Results
	// Count the sim.Run calls: Outcome.Simulations must be the work done,
	// replications run ahead in parallel and not used included.
	var runs atomic.Int64
	saved := runSim
	runSim = func(ctx context.Context, sc *scenarios.Scenario, opt sim.Options) (*sim.Result, error) {
		runs.Add(1)
		return saved(ctx, sc, opt)
	}
	defer func() { runSim = saved }()
	for _, jobs := range []int{1, 4} {
		s, err := New(cfg(0.15, 40))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		runs.Store(0)
		o, err := s.Run(context.Background(), RunOptions{Dir: dir, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		used := 0
		for _, row := range o.Results.Rows {
			used += row.Replications
		}
		if got := int(runs.Load()); got != o.Simulations+o.Cancelled || o.Simulations < used || (jobs == 1 && (o.Simulations != used || o.Cancelled != 0)) {
			t.Errorf("jobs %d: %d sim.Run calls, Outcome.Simulations %d + Cancelled %d, %d replications used", jobs, got, o.Simulations, o.Cancelled, used)
		}
		d := s.Definition()
		j, _ := o.Results.MetricIndex("wait_mean_s")
		for _, row := range o.Results.Rows {
			rec, ok, err := readPoint(dir, &d, d.ID(), s.Grid(), row.Point)
			if err != nil || !ok {
				t.Fatal(err)
			}
			xs := make([]float64, len(rec.Reps))
			for r := range rec.Reps {
				xs[r] = rec.Reps[r].Values[j]
			}
			rel := func(n int) float64 { return relativeHalfWidth(MeanHalfWidth(xs[:n])) }
			n := row.Replications
			if row.Reached != (rel(n) < 0.15) || (!row.Reached && n != 40) {
				t.Errorf("point %d: %d replications, reached %v, relative half-width %.4f", row.Point, n, row.Reached, rel(n))
			}
			for k := 3; k < n; k++ {
				if rel(k) < 0.15 {
					t.Errorf("point %d ran %d replications; the target held at %d", row.Point, n, k)
				}
			}
			if n < 3 {
				t.Errorf("point %d: %d replications, fewer than the first batch", row.Point, n)
			}
		}
		if first == nil {
			first = o.Results
			var b bytes.Buffer
			first.WriteCSV(&b)
			if !strings.Contains(b.String(), "precision_reached") {
				t.Errorf("sweep.csv has no precision_reached column")
			}
			continue
		}
		var a, b bytes.Buffer
		first.WriteJSON(&a)
		o.Results.WriteJSON(&b)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("precision sweeps with 1 and 4 jobs differ")
		}
	}
	// The loop did add replications somewhere (else the checks above
	// tested nothing but the first batch).
	if first.Rows[0].Replications == 3 && first.Rows[1].Replications == 3 && first.Rows[2].Replications == 3 {
		t.Errorf("every point stopped at the first batch: the test does not exercise the loop")
	}
	t.Logf("replications per point: %d %d %d", first.Rows[0].Replications, first.Rows[1].Replications, first.Rows[2].Replications)

	// An unreachable target stops every point at the cap.
	s, err := New(cfg(1e-9, 6))
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.Run(context.Background(), RunOptions{Jobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range o.Results.Rows {
		if row.Replications != 6 || row.Reached {
			t.Errorf("unreachable target: point %d used %d replications, reached %v", row.Point, row.Replications, row.Reached)
		}
	}
	// A metric undefined in the replications (no shutdown: shutdown_at_s is
	// null) stops at the first batch: more runs cannot define it.
	c := cfg(0.1, 20)
	c.Metric = "shutdown_at_s"
	s, err = New(c)
	if err != nil {
		t.Fatal(err)
	}
	if o, err = s.Run(context.Background(), RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	for _, row := range o.Results.Rows {
		if row.Replications != 3 || row.Reached {
			t.Errorf("undefined metric: point %d used %d replications, reached %v", row.Point, row.Replications, row.Reached)
		}
	}
}

func TestNewErrors(t *testing.T) {
	path := writeScenario(t)
	tests := []struct {
		cfg  Config
		want string
	}{
		// No replications.
		{Config{Path: path, Replications: 0}, "at least 1"},
		// Precision without a metric.
		{Config{Path: path, Replications: 5, Precision: 0.1}, "needs --metric"},
		// An unknown metric, with a suggestion.
		{Config{Path: path, Replications: 5, Precision: 0.1, Metric: "wait_p99"}, `did you mean "wait_p99_s"?`},
		// Precision from one replication cannot measure a spread.
		{Config{Path: path, Replications: 1, Precision: 0.1, Metric: "wait_p99_s"}, "at least 2 first replications"},
		// A cap below the first batch.
		{Config{Path: path, Replications: 5, Precision: 0.1, Metric: "wait_p99_s", MaxReplications: 3}, "below --replications"},
		// A key both fixed and swept.
		{Config{Path: path, Replications: 1, Sets: []string{"pool.max=4"}, Params: mustParams(t, "pool.max=8,16")}, "also fixed by --set pool.max=4"},
		// A missing scenario file.
		{Config{Path: path + ".missing", Replications: 1}, "cannot read scenario"},
	}
	for _, tc := range tests {
		_, err := New(tc.cfg)
		if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v; want an input error with %q", tc.cfg, err, tc.want)
		}
	}
}

// A value the scenario refuses at one point fails the sweep before any
// simulation, naming the --param flag and the point.
func TestBadPointFailsFirst(t *testing.T) {
	path := writeScenario(t)
	s := newSweep(t, path, 1, "pool.keepAlive=10s,-1s", "pool.max=4,8")
	dir := t.TempDir()
	_, err := s.Run(context.Background(), RunOptions{Dir: dir})
	if err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "sweep point 2: pool.keepAlive=-1s pool.max=4") {
		t.Fatalf("a point with a negative keepAlive: %v", err)
	}
	if n := len(dirFiles(t, filepath.Join(dir, pointsDir))); n != 0 {
		t.Errorf("%d points ran before the bad point was found", n)
	}
	s = newSweep(t, path, 1, "pool.rejection=abort,discrad")
	_, err = s.Run(context.Background(), RunOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "--param pool.rejection=abort,discrad: ") || !strings.Contains(err.Error(), `did you mean "discard"?`) {
		t.Errorf("a misspelt value: %v", err)
	}
}

// With one replication there is no interval: empty in CSV, null in JSON,
// never 0.
func TestOneReplicationHasNoInterval(t *testing.T) {
	path := writeScenario(t)
	o, err := newSweep(t, path, 1, "pool.max=4").Run(context.Background(), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := o.Results.MetricIndex("submitted")
	if !math.IsNaN(o.Results.Rows[0].HalfWidth[j]) {
		t.Errorf("half-width with one replication: %v", o.Results.Rows[0].HalfWidth[j])
	}
	var c, js bytes.Buffer
	o.Results.WriteCSV(&c)
	o.Results.WriteJSON(&js)
	lines := strings.Split(strings.TrimSpace(c.String()), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	for k, h := range head {
		if h == "submitted_hw" && row[k] != "" {
			t.Errorf("submitted_hw cell %q; want empty", row[k])
		}
	}
	if !strings.Contains(js.String(), `"submitted": null`) {
		t.Errorf("sweep.json has no null half-width:\n%s", js.String())
	}
}

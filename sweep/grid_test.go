package sweep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
)

func mustParams(t testing.TB, flags ...string) []Param {
	t.Helper()
	var ps []Param
	for _, f := range flags {
		p, err := ParseParam(f)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

func mustGrid(t testing.TB, flags ...string) *Grid {
	t.Helper()
	g, err := NewGrid(mustParams(t, flags...))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Grid order: the first parameter varies slowest.
func TestGridOrder(t *testing.T) {
	g := mustGrid(t, "pool.max=4,8", "pool.queue.type=linked,array,synchronous")
	var got []string
	for i := 0; i < g.Len(); i++ {
		got = append(got, g.Label(i))
	}
	want := []string{
		"pool.max=4 pool.queue.type=linked", "pool.max=4 pool.queue.type=array", "pool.max=4 pool.queue.type=synchronous",
		"pool.max=8 pool.queue.type=linked", "pool.max=8 pool.queue.type=array", "pool.max=8 pool.queue.type=synchronous",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("grid order:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g0 := mustGrid(t); g0.Len() != 1 || g0.Label(0) != "(the scenario as it is)" || len(g0.Sets(0)) != 0 {
		t.Errorf("a grid without parameters: %d points, label %q", g0.Len(), g0.Label(0))
	}
}

func TestNewGridErrors(t *testing.T) {
	ps := mustParams(t, "pool.max=4,8", "pool.max=16")
	if _, err := NewGrid(ps); err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "swept twice") {
		t.Errorf("a key swept twice: %v", err)
	}
	// 4 parameters of 100 values: 10^8 points, over MaxPoints.
	big := mustParams(t, "pool.max=1:100:100", "pool.core=1:100:100", "pool.queue.capacity=1:100:100", "seed=1:100:100")
	if _, err := NewGrid(big); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("an oversized grid: %v", err)
	}
}

// A point's seed depends on its values, not on how they are written, on
// the order of the --param flags, or on the rest of the grid.
func TestPointSeedsAreCanonical(t *testing.T) {
	seedOf := func(g *Grid, label string) uint64 {
		for i := 0; i < g.Len(); i++ {
			if g.Label(i) == label {
				return PointSeed(1, g.Key(i))
			}
		}
		t.Fatalf("no point %q", label)
		return 0
	}
	a := mustGrid(t, "pool.keepAlive=60s,10s", "pool.max=8,16")
	b := mustGrid(t, "pool.max=16,8,4", "pool.keepAlive=1m,5s")
	c := mustGrid(t, "pool.max=8", "pool.keepAlive=60")
	sa := seedOf(a, "pool.keepAlive=60s pool.max=8")
	sb := seedOf(b, "pool.max=8 pool.keepAlive=1m")
	sc := seedOf(c, "pool.max=8 pool.keepAlive=60")
	if sa != sb || sa != sc {
		t.Errorf("one point, three seeds: %d %d %d", sa, sb, sc)
	}
	if other := seedOf(a, "pool.keepAlive=10s pool.max=8"); other == sa {
		t.Errorf("two points share seed %d", sa)
	}
	if PointSeed(2, a.Key(0)) == PointSeed(1, a.Key(0)) {
		t.Errorf("the base seed does not change the point seed")
	}
	// The derivation is documented and users rerun replications from the
	// seeds in sweep.csv: pin it, so that a change is deliberate.
	// (The numbers below were computed once by this code when the
	// derivation was fixed; they are a regression pin, not a derivation.)
	if got := PointSeed(1, "pool.max=50"); got != 873650887443247 {
		t.Errorf("PointSeed(1, pool.max=50) = %d; the derivation changed (pinned 873650887443247)", got)
	}
	if got := ReplicationSeed(873650887443247, 0); got != 1327282278560014 {
		t.Errorf("ReplicationSeed(873650887443247, 0) = %d; the derivation changed (pinned 1327282278560014)", got)
	}
}

// Seeds stay below 2^53 (exact in every JSON reader) and differ across
// replications.
func TestReplicationSeeds(t *testing.T) {
	seen := map[uint64]bool{}
	for p := uint64(0); p < 50; p++ {
		for r := 0; r < 50; r++ {
			s := ReplicationSeed(PointSeed(p, "k=v"), r)
			if s >= 1<<53 {
				t.Fatalf("seed %d >= 2^53", s)
			}
			if seen[s] {
				t.Fatalf("seed %d repeats", s)
			}
			seen[s] = true
		}
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"", Shard{}, true},            // the whole sweep
		{"1/1", Shard{1, 1}, true},     // one shard: the whole sweep
		{"2/4", Shard{2, 4}, true},     // counting from 1
		{" 4 / 4 ", Shard{4, 4}, true}, // spaces
		{"0/4", Shard{}, false},        // counting from 0 is a mistake (Kubernetes' index)
		{"5/4", Shard{}, false},        // beyond the count
		{"2", Shard{}, false},          // no count
		{"a/b", Shard{}, false},        // not numbers
		{"1/0", Shard{}, false},        // no shards
	}
	for _, tc := range tests {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && (!inputerr.Is(err) || !strings.Contains(err.Error(), "JOB_COMPLETION_INDEX+1")) {
			t.Errorf("ParseShard(%q): %v is not a helpful input error", tc.in, err)
		}
	}
}

// Shards partition the grid: disjoint, complete, sizes within one, each in
// grid order.
func TestShardsPartition(t *testing.T) {
	g := mustGrid(t, "pool.max=1:10:10", "pool.core=1:7:7")
	for n := 1; n <= 9; n++ {
		count := make([]int, g.Len())
		lo, hi := g.Len(), 0
		for i := 1; i <= n; i++ {
			pts := g.ShardPoints(Shard{i, n})
			lo, hi = min(lo, len(pts)), max(hi, len(pts))
			for k, p := range pts {
				count[p]++
				if k > 0 && pts[k-1] >= p {
					t.Fatalf("shard %d/%d not in grid order: %v", i, n, pts)
				}
			}
		}
		for p, c := range count {
			if c != 1 {
				t.Fatalf("%d shards: point %d is in %d shards", n, p, c)
			}
		}
		if hi-lo > 1 {
			t.Errorf("%d shards: sizes %d to %d", n, lo, hi)
		}
	}
	// Not correlated with the grid: dealt by index, 7 shards of a 10×7
	// grid would each hold one value of the fast parameter; dealt by hash,
	// none does.
	for i := 1; i <= 7; i++ {
		vals := map[string]bool{}
		for _, p := range g.ShardPoints(Shard{i, 7}) {
			vals[g.Values(p)[1].Text] = true
		}
		if len(vals) == 1 {
			t.Errorf("shard %d/7 holds only pool.core=%v", i, vals)
		}
	}
}

func ExampleParseParam() {
	p, err := ParseParam("workload.arrivals.rate=10/s:1000/s:5:log")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range p.Values {
		fmt.Print(v.Text, " ")
	}
	fmt.Println("|", p.Kind)
	q, _ := ParseParam("pool.max=10:1000:8:log")
	fmt.Println(q.Note)
	// Output:
	// 10/s 31.62/s 100/s 316.2/s 1000/s | rate
	// pool.max=10:1000:8:log: rounded to integers: 8 values 10,19,37,72,139,268,518,1000
}

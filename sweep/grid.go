package sweep

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// MaxPoints is the largest grid a sweep accepts.
const MaxPoints = 10_000_000

// Grid is the cross product of the swept parameters. Points are numbered in
// grid order: the first parameter varies slowest, the last fastest, like
// nested loops written in the order of the --param flags. That order is
// the order of every output, whatever --jobs or sharding.
type Grid struct {
	Params []Param
	n      int
	design [][]int // listed points (NewDesign); nil: the cross product
}

// NewGrid checks params (one entry per key) and returns their grid. No
// parameters make a grid of one point: the scenario as it is.
func NewGrid(params []Param) (*Grid, error) {
	g := &Grid{Params: params, n: 1}
	seen := map[string]bool{}
	for _, p := range params {
		if seen[p.Key] {
			return nil, inputerr.New("--param "+p.Key+"="+p.Spec, 0, 0, p.Key, "swept twice", "one --param per key; list every value in it")
		}
		seen[p.Key] = true
		if len(p.Values) == 0 {
			return nil, inputerr.New("--param "+p.Key+"="+p.Spec, 0, 0, p.Key, "no values", paramAllowed)
		}
		if g.n > MaxPoints/len(p.Values) {
			return nil, inputerr.New("--param "+p.Key+"="+p.Spec, 0, 0, p.Key, fmt.Sprintf("the grid has more than %d points", MaxPoints), "fewer values, or several sweeps")
		}
		g.n *= len(p.Values)
	}
	return g, nil
}

// Len is the number of points.
func (g *Grid) Len() int { return g.n }

// Values returns point i's value of each parameter, in parameter order.
func (g *Grid) Values(i int) []Value {
	out := make([]Value, len(g.Params))
	if g.design != nil {
		for k, v := range g.design[i] {
			out[k] = g.Params[k].Values[v]
		}
		return out
	}
	for k := len(g.Params) - 1; k >= 0; k-- {
		vs := g.Params[k].Values
		out[k] = vs[i%len(vs)]
		i /= len(vs)
	}
	return out
}

// Sets returns point i as --set overrides, in parameter order.
func (g *Grid) Sets(i int) []string {
	vs := g.Values(i)
	out := make([]string, len(vs))
	for k, v := range vs {
		out[k] = g.Params[k].Key + "=" + v.Text
	}
	return out
}

// Label names point i for people: "pool.max=50 workload.arrivals.rate=10/s"
// ("(the scenario as it is)" without parameters).
func (g *Grid) Label(i int) string {
	if len(g.Params) == 0 {
		return "(the scenario as it is)"
	}
	return strings.Join(g.Sets(i), " ")
}

// Key is point i's canonical key: key=canonical value for each parameter,
// sorted by key, joined by NUL. It names the point independently of how
// it was written (keepAlive=60s and keepAlive=1m are one point) and of the
// order of the --param flags.
func (g *Grid) Key(i int) string {
	vs := g.Values(i)
	kv := make([]string, len(vs))
	for k, v := range vs {
		kv[k] = g.Params[k].Key + "=" + v.Canon
	}
	sort.Strings(kv)
	return strings.Join(kv, "\x00")
}

// seedMask keeps seeds below 2^53, so that every JSON reader (JavaScript,
// jq, spreadsheets) reads them exactly.
const seedMask = 1<<53 - 1

// mix64 is SplitMix64's finaliser: a bijection of uint64 that spreads
// every input bit over the output.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// PointSeed derives a point's seed from the scenario's seed and the
// point's canonical key (Grid.Key): FNV-1a 64 over "poolsim-sweep-v1",
// NUL, the base seed (8 bytes, little endian) and the key, then
// SplitMix64's finaliser, keeping 53 bits. It depends on nothing else: not
// the job, shard or order the point runs in.
func PointSeed(base uint64, key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte("poolsim-sweep-v1\x00"))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], base)
	h.Write(b[:])
	h.Write([]byte(key))
	return mix64(h.Sum64()) & seedMask
}

// ReplicationSeed is the seed of replication r (from 0) of a point:
// SplitMix64's finaliser of pointSeed + (r+1)·φ·2^64, keeping 53 bits.
// `poolsim run SCENARIO --set ... --seed S` reruns that replication.
func ReplicationSeed(pointSeed uint64, r int) uint64 {
	return mix64(pointSeed+uint64(r+1)*0x9e3779b97f4a7c15) & seedMask
}

// Shard is a deterministic part of a sweep, for spreading one over
// machines: shard Index of Count (counting from 1, as 2/4). The zero
// Shard is the whole sweep.
type Shard struct{ Index, Count int }

// Whole reports whether s is the whole sweep.
func (s Shard) Whole() bool { return s.Count <= 1 }

func (s Shard) String() string {
	if s.Whole() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// ParseShard parses I/N (1 <= I <= N). "" is the whole sweep.
func ParseShard(s string) (Shard, error) {
	const allowed = "I/N with 1 <= I <= N, e.g. 2/4 (a Kubernetes Indexed Job's index counts from 0: pass $((JOB_COMPLETION_INDEX+1))/N)"
	if strings.TrimSpace(s) == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, inputerr.New("--shard "+s, 0, 0, "", fmt.Sprintf("%q is not a shard", s), allowed)
	}
	return Shard{Index: i, Count: n}, nil
}

// ShardPoints returns the points of shard s in grid order. Points are dealt
// to shards round-robin in the order of a hash of their canonical key, so
// shards differ in size by at most one point and are not correlated with
// the grid's structure (a shard does not get all the high rates).
func (g *Grid) ShardPoints(s Shard) []int {
	all := make([]int, g.n)
	for i := range all {
		all[i] = i
	}
	if s.Whole() {
		return all
	}
	h := make([]uint64, g.n)
	for i := range h {
		f := fnv.New64a()
		f.Write([]byte(g.Key(i)))
		h[i] = mix64(f.Sum64())
	}
	byHash := append([]int(nil), all...)
	sort.Slice(byHash, func(a, b int) bool {
		if h[byHash[a]] != h[byHash[b]] {
			return h[byHash[a]] < h[byHash[b]]
		}
		return byHash[a] < byHash[b]
	})
	var out []int
	for rank, i := range byHash {
		if rank%s.Count == s.Index-1 {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out
}

// numbers returns param k's values as numbers in base units (NaN where a
// value is not a number).
func (p Param) numbers() []float64 {
	out := make([]float64, len(p.Values))
	for i, v := range p.Values {
		out[i] = v.Num(p.Kind)
	}
	return out
}

// numeric reports whether every value of p is a finite number.
func (p Param) numeric() bool {
	for _, x := range p.numbers() {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return p.Kind != Text
}

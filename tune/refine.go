package tune

import (
	"fmt"
	"math"
	"sort"

	"github.com/poolsim/poolsim/sweep"
)

// coarse returns the coarse stage's points and its method: the full grid
// of the --vary values when it has at most Samples points, else a Latin
// hypercube of Samples points over the values' indexes.
func (t *Tuner) coarse() ([][]sweep.Value, string) {
	n := 1
	for _, d := range t.dims {
		n *= len(d.param.Values)
		if n > t.cfg.Samples {
			break
		}
	}
	if n <= t.cfg.Samples {
		g, _ := sweep.NewGrid(t.cfg.Vary)
		out := make([][]sweep.Value, g.Len())
		for i := range out {
			out[i] = g.Values(i)
		}
		return out, "grid"
	}
	return t.hypercube(t.cfg.Samples), "latin hypercube"
}

// hypercube draws n points of a Latin hypercube over the --vary values:
// for each key, n strata of its value list, each used once, paired across
// keys by permutations derived from the scenario's seed (sweep.PointSeed
// hashes, so no random stream is involved and the design is the same on
// every machine). Points that coincide after rounding to a value are kept
// once.
func (t *Tuner) hypercube(n int) [][]sweep.Value {
	perms := make([][]int, len(t.dims))
	for k := range t.dims {
		idx := make([]int, n)
		h := make([]uint64, n)
		for i := range idx {
			idx[i] = i
			h[i] = sweep.PointSeed(t.base.Seed, fmt.Sprintf("tune-lhs\x00%d\x00%d", k, i))
		}
		sort.Slice(idx, func(a, b int) bool { return h[idx[a]] < h[idx[b]] })
		perms[k] = idx
	}
	var out [][]sweep.Value
	seen := map[string]bool{}
	for i := range n {
		p := make([]sweep.Value, len(t.dims))
		for k, d := range t.dims {
			m := len(d.param.Values)
			j := int((float64(perms[k][i]) + 0.5) * float64(m) / float64(n))
			p[k] = d.param.Values[min(j, m-1)]
		}
		if key := pointKey(p); !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	return out
}

// maxIncumbents bounds the points refinement starts from per round.
const maxIncumbents = 8

// ranked returns the feasible points, best first: by objective, then
// nearest the current configuration, then by label. With inRange, only
// points within the --vary ranges (a numeric key between its least and
// greatest value, a text key one of its values): the recommendation stays
// where the user allows it, though bisecting towards the current
// configuration may evaluate points beyond.
func (s *search) ranked(inRange bool) []*Point {
	var out []*Point
	for _, p := range s.points {
		if p.Feasible && !math.IsNaN(p.Objective) && (!inRange || s.t.inRange(p)) {
			out = append(out, p)
		}
	}
	keys := s.t.keys()
	sort.SliceStable(out, func(a, b int) bool {
		pa, pb := out[a], out[b]
		if pa.Objective != pb.Objective {
			return pa.Objective < pb.Objective
		}
		da, db := s.distance(pa), s.distance(pb)
		if da != db {
			return da < db
		}
		return pa.Label(keys) < pb.Label(keys)
	})
	return out
}

// incumbents are the points refinement starts from: the best feasible
// point of each combination of the text keys' values (a queue type, a
// policy), and the current configuration; with no feasible point yet, the
// points failing the fewest constraints.
func (s *search) incumbents() []*Point {
	var out []*Point
	seen := map[string]bool{}
	for _, p := range s.ranked(true) {
		var combo []string
		for k, d := range s.t.dims {
			if !d.numeric {
				combo = append(combo, p.Values[k].Canon)
			}
		}
		if c := fmt.Sprint(combo); !seen[c] && len(out) < maxIncumbents {
			seen[c] = true
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		fails := func(p *Point) int {
			n := 0
			for _, h := range p.Holds {
				if !h {
					n++
				}
			}
			return n
		}
		cand := append([]*Point(nil), s.points...)
		sort.SliceStable(cand, func(a, b int) bool { return fails(cand[a]) < fails(cand[b]) })
		out = append(out, cand[:min(2, len(cand))]...)
	}
	if s.placed {
		if c, ok := s.t.currentValues(); ok {
			if p := s.byKey[pointKey(c)]; p != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// inRange reports whether p lies within the --vary ranges.
func (t *Tuner) inRange(p *Point) bool {
	if p.Values == nil {
		return false
	}
	for k, d := range t.dims {
		v := p.Values[k]
		if d.numeric {
			if x := v.Num(d.param.Kind); !(x >= d.lo && x <= d.hi) {
				return false
			}
			continue
		}
		listed := false
		for _, w := range d.param.Values {
			listed = listed || w.Canon == v.Canon
		}
		if !listed {
			return false
		}
	}
	return true
}

// neighbours returns the evaluated points nearest p along numeric key k,
// below and above, with every other key as at p (nil: none).
func (s *search) neighbours(p *Point, k int) (lo, hi *Point) {
	d := s.t.dims[k]
	x := num(p.Values[k], d)
	for _, q := range s.points {
		if q.Values == nil || q == p || !sameBut(p, q, k) {
			continue
		}
		y := num(q.Values[k], d)
		switch {
		case y < x && (lo == nil || y > num(lo.Values[k], d)):
			lo = q
		case y > x && (hi == nil || y < num(hi.Values[k], d)):
			hi = q
		}
	}
	return lo, hi
}

func sameBut(p, q *Point, k int) bool {
	for j := range p.Values {
		if j != k && p.Values[j].Canon != q.Values[j].Canon {
			return false
		}
	}
	return true
}

// probe returns the --vary value of key k nearest x beyond it (below, or
// above), for a line the coarse stage left empty (a hypercube).
func (d dim) probe(x float64, below bool) (sweep.Value, bool) {
	var best sweep.Value
	found := false
	for _, v := range d.param.Values {
		y := num(v, d)
		if (below && y < x && (!found || y > num(best, d))) || (!below && y > x && (!found || y < num(best, d))) {
			best, found = v, true
		}
	}
	return best, found
}

// proposals are the next round's points: for each incumbent and numeric
// key, the midpoint towards each neighbour along that key whose
// feasibility differs (bisecting the boundary: monotone keys such as
// max, core and capacity converge in log2 of the gap rounds), or, where
// the line has no neighbour on a side, the nearest --vary value there.
func (s *search) proposals() [][]sweep.Value {
	var out [][]sweep.Value
	add := func(p *Point, k int, v sweep.Value) {
		q := append([]sweep.Value(nil), p.Values...)
		q[k] = v
		if !s.tried[pointKey(q)] && !containsKey(out, q) {
			out = append(out, q)
		}
	}
	for _, p := range s.incumbents() {
		for k, d := range s.t.dims {
			if !d.numeric || math.IsInf(num(p.Values[k], d), 0) {
				continue
			}
			lo, hi := s.neighbours(p, k)
			for i, n := range []*Point{lo, hi} {
				if n == nil {
					if v, ok := d.probe(num(p.Values[k], d), i == 0); ok {
						add(p, k, v)
					}
					continue
				}
				if n.Feasible == p.Feasible {
					continue
				}
				if v, ok := d.param.Midpoint(p.Values[k], n.Values[k]); ok {
					add(p, k, v)
				}
			}
		}
	}
	return out
}

// distance is how far p is from the current configuration: the keys it
// changes count 1 each, plus each numeric change's share of its range
// (in log for a log range); 0 without a known current configuration.
func (s *search) distance(p *Point) float64 {
	cur, ok := s.t.currentValues()
	if !ok || p.Values == nil {
		return 0
	}
	dist := 0.0
	for k, d := range s.t.dims {
		if p.Values[k].Canon == cur[k].Canon {
			continue
		}
		dist++
		x, y := num(p.Values[k], d), num(cur[k], d)
		if !d.numeric || math.IsInf(x, 0) || math.IsInf(y, 0) {
			continue
		}
		if isLog(d.param) && x > 0 && y > 0 && d.lo > 0 {
			dist += math.Abs(math.Log(x/y)) / math.Max(math.Log(d.hi/d.lo), 1e-9)
		} else {
			dist += math.Abs(x-y) / math.Max(d.hi-d.lo, 1e-9)
		}
	}
	return dist
}

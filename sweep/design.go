package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/scenarios"
)

// NewDesign returns a grid whose points are listed rather than crossed: point
// i takes value rows[i][k] (an index into params[k].Values) of parameter k.
// Searches use it (poolsim tune): a Latin hypercube, or the few points a
// refinement step adds. Every other property of a grid holds: a point's key
// and seeds depend on its values only, so a point gives the same numbers in
// a design as in a grid. rows nil is NewGrid(params).
func NewDesign(params []Param, rows [][]int) (*Grid, error) {
	g, err := NewGrid(params)
	if err != nil || rows == nil {
		return g, err
	}
	if len(rows) == 0 || len(rows) > MaxPoints {
		return nil, fmt.Errorf("sweep: a design needs 1 to %d points, got %d", MaxPoints, len(rows))
	}
	g.design = rows
	seen := map[string]int{}
	for i, r := range rows {
		if len(r) != len(params) {
			return nil, fmt.Errorf("sweep: design point %d has %d values for %d parameters", i, len(r), len(params))
		}
		for k, v := range r {
			if v < 0 || v >= len(params[k].Values) {
				return nil, fmt.Errorf("sweep: design point %d: value %d of %s is out of range (%d values)", i, v, params[k].Key, len(params[k].Values))
			}
		}
		key := g.Key(i)
		if j, dup := seen[key]; dup {
			return nil, fmt.Errorf("sweep: design points %d and %d are the same point (%s)", j, i, g.Label(i))
		}
		seen[key] = i
	}
	g.n = len(rows)
	return g, nil
}

// Design returns the grid's listed points (nil for a cross product).
func (g *Grid) Design() [][]int { return g.design }

// ParseValue reads one value of a scenario key as a --param list item would
// be read: its text, canonical form and kind.
func ParseValue(key, text string) (Value, Kind, error) {
	v, k, err := classify(NormalizeKey(key), text)
	if err != nil {
		return Value{}, 0, inputerr.New("--param "+key+"="+text, 0, 0, key, err.Error(), paramAllowed)
	}
	return v, k, nil
}

// Midpoint returns the value halfway between a and b, two numeric values of
// p (geometrically for a log range), written as p's range points are:
// integers rounded down, other numbers, durations and rates to 4
// significant digits in their unit. ok is false when no value of that
// resolution lies strictly between them.
func (p Param) Midpoint(a, b Value) (Value, bool) {
	x, y := a.Num(p.Kind), b.Num(p.Kind)
	if math.IsNaN(x) || math.IsNaN(y) || x == y {
		return Value{}, false
	}
	if x > y {
		x, y = y, x
	}
	m := (x + y) / 2
	if strings.HasSuffix(strings.TrimSpace(p.Spec), ":log") && x > 0 {
		m = math.Sqrt(x * y)
	}
	var v Value
	switch p.Kind {
	case Integer:
		r := math.Floor(m)
		t := strconv.FormatFloat(r, 'f', -1, 64)
		v = Value{Text: t, Canon: t}
	case Duration:
		v = durationValue(m * 1e9)
	case Rate:
		unit := "s"
		for _, w := range []Value{a, b} {
			if mm := rateUnitRE.FindStringSubmatch(w.Text); mm != nil {
				unit = mm[2]
				break
			}
		}
		perUnit, _ := scenarios.ParseRate("1/" + unit)
		t := strconv.FormatFloat(roundSig(m/perUnit), 'f', -1, 64) + "/" + unit
		r, _ := scenarios.ParseRate(t)
		v = Value{Text: t, Canon: canonFloat(r)}
	case Number:
		r := roundSig(m)
		v = Value{Text: strconv.FormatFloat(r, 'f', -1, 64), Canon: canonFloat(r)}
	default:
		return Value{}, false
	}
	n := v.Num(p.Kind)
	return v, n > x && n < y
}

package tune

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/poolsim/poolsim/sim"
	"github.com/poolsim/poolsim/sweep"
)

// Format names tune.json's layout.
const Format = "poolsim-tune/1"

// number is a float that encodes as null when NaN or infinite, else in
// the one float format of every output.
type number float64

func (x number) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	if f == 0 {
		return []byte("0"), nil
	}
	return []byte(sim.FormatFloat(f)), nil
}

// ordered is a JSON object whose keys keep their order.
type ordered struct {
	keys []string
	vals []any
}

func (o *ordered) add(k string, v any) { o.keys, o.vals = append(o.keys, k), append(o.vals, v) }

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping: constraints keep their
// < and > readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// figureJSON is a mean with its 95% half-width (null: none).
type figureJSON struct {
	Mean      number `json:"mean"`
	HalfWidth number `json:"half_width"`
}

// valuesJSON is a point's values by key: integers and plain numbers as
// JSON numbers, everything else ("unbounded", durations, rates, names) as
// the text --set takes.
func (r *Result) valuesJSON(p *Point) ordered {
	var o ordered
	for k, v := range p.Values {
		kind := r.t.dims[k].param.Kind
		if x := v.Num(kind); (kind == sweep.Integer || kind == sweep.Number) && !math.IsNaN(x) {
			o.add(r.Keys[k], json.RawMessage(strconv.FormatFloat(x, 'f', -1, 64)))
		} else {
			o.add(r.Keys[k], v.Text)
		}
	}
	return o
}

// figureNames are the figures reported for every point: the objective's
// metric, those the constraints read, then threads, wait, rejections,
// peak threads and reserved stack.
func (r *Result) figureNames() []string {
	var out []string
	add := func(n string) {
		for _, m := range out {
			if m == n {
				return
			}
		}
		out = append(out, n)
	}
	if r.t.obj.metric != "" {
		add(r.t.obj.metric)
	}
	for _, g := range r.t.constraints {
		for _, n := range gateNames(g) {
			add(n)
		}
	}
	for _, n := range []string{ThreadsMetric, WaitMetric, RejectMetric, "largest_pool_size", "peak_reserved_stack_bytes"} {
		add(n)
	}
	return out
}

func (r *Result) figuresJSON(p *Point) ordered {
	var o ordered
	for _, n := range r.figureNames() {
		m, hw := p.Figure(n)
		o.add(n, figureJSON{number(m), number(hw)})
	}
	return o
}

// pointJSON is one point in tune.json.
func (r *Result) pointJSON(p *Point) ordered {
	var o ordered
	if p.Values != nil {
		o.add("params", r.valuesJSON(p))
		o.add("sets", p.Sets(r.Keys))
	} else {
		o.add("params", nil)
	}
	o.add("replications", p.Row.Replications)
	o.add("decided", p.Decided)
	o.add("feasible", p.Feasible)
	var cs ordered
	for i, c := range r.Constraints {
		cs.add(c, p.Holds[i])
	}
	o.add("constraints", cs)
	o.add("objective", figureJSON{number(p.Objective), number(p.ObjectiveHW)})
	o.add("figures", r.figuresJSON(p))
	if p.closed != nil {
		var c ordered
		c.add("model", p.closed.model.Name())
		for _, n := range r.figureNames() {
			if x, ok := p.closed.figures[n]; ok {
				c.add(n, number(x))
			} else if n == RejectMetric {
				c.add(n, number(p.closed.figures["rejected"]/p.closed.figures["submitted"]))
			}
		}
		o.add("closed_form", c)
	}
	return o
}

// WriteJSON writes tune.json: the recommendation (the chosen value of
// every varied key under "recommended", its figures with 95% half-widths),
// the current configuration and the nearest feasible change, what binds,
// the robustness check, the closed form, the search's counts and the
// Pareto frontier. The same search writes the same bytes.
func (r *Result) WriteJSON(w io.Writer) error {
	var o ordered
	o.add("format", Format)
	o.add("scenario", r.Scenario)
	o.add("vary", r.Keys)
	o.add("constraints", r.Constraints)
	o.add("minimize", r.Minimize)
	o.add("recommended", r.valuesJSON(r.Recommended))
	o.add("recommended_sets", r.Recommended.Sets(r.Keys))
	o.add("objective", figureJSON{number(r.Recommended.Objective), number(r.Recommended.ObjectiveHW)})
	o.add("figures", r.figuresJSON(r.Recommended))
	o.add("recommendation", r.pointJSON(r.Recommended))
	if r.Current != nil {
		o.add("current", r.pointJSON(r.Current))
	}
	if r.Nearest != nil {
		var c ordered
		c.add("params", r.valuesJSON(r.Nearest))
		c.add("sets", r.changes(r.Nearest))
		o.add("nearest_feasible_change", c)
	}
	var binds []ordered
	for _, b := range r.Binds {
		var c ordered
		c.add("constraint", b.Constraint)
		c.add("at", b.At.Sets(r.Keys))
		c.add("figures", r.figuresJSON(b.At))
		binds = append(binds, c)
	}
	o.add("binds", binds)
	var rob ordered
	rob.add("traffic", number(r.Traffic))
	if r.Robust != nil {
		rob.add("sets", r.RobustSets)
		rob.add("point", r.pointJSON(r.Robust))
	} else {
		rob.add("note", r.RobustNote)
	}
	o.add("robustness", rob)
	if r.Closed != nil {
		var c ordered
		c.add("model", r.Closed.Model)
		c.add("lambda_per_s", number(r.Closed.Lambda))
		c.add("mu_per_s", number(r.Closed.Mu))
		c.add("key", r.Closed.Key)
		c.add("size", r.Closed.Size)
		var f ordered
		for _, n := range closedNames(r.Closed.Figures) {
			f.add(n, number(r.Closed.Figures[n]))
		}
		c.add("figures", f)
		if r.Closed.Why != "" {
			c.add("why", r.Closed.Why)
		}
		o.add("closed_form", c)
	}
	var s ordered
	s.add("method", r.Method)
	s.add("rounds", r.Rounds)
	s.add("points", len(r.Points))
	s.add("replications", r.Replications)
	s.add("confidence", number(sweep.Confidence))
	if len(r.Skipped) > 0 {
		s.add("skipped", len(r.Skipped))
		s.add("skipped_example", r.Skipped[0])
	}
	o.add("search", s)
	frontier := []ordered{}
	for _, p := range r.Frontier {
		frontier = append(frontier, r.pointJSON(p))
	}
	o.add("frontier", frontier)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(o)
}

// changes lists the --set overrides that turn the current configuration
// into p (only the keys that differ).
func (r *Result) changes(p *Point) []string {
	var out []string
	for k, v := range p.Values {
		if r.Current == nil || r.Current.Values == nil || r.Current.Values[k].Canon != v.Canon {
			out = append(out, r.Keys[k]+"="+v.Text)
		}
	}
	return out
}

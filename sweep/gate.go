package sweep

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/internal/lazyre"
)

// Gate is a condition every point must meet, for CI: an expr-lang
// expression (https://expr-lang.org) evaluated on each point's results.
// Its variables are
//
//   - every metric of summary.json by name (wait_p99_s, rejected, ...):
//     the point's mean over its replications (NaN when undefined, so any
//     comparison with it is false);
//   - rejected_ratio: rejected / submitted (NaN with nothing submitted);
//   - hw.NAME: the metric's 95% confidence half-width (NaN with one
//     replication); hw.rejected_ratio is hw.rejected / submitted;
//   - param["KEY"]: the point's value of a swept key, a number in base
//     units (seconds, tasks per second) or, for text values, a string; a
//     dotted key may also be written bare (pool.max, pool.queue.type) when
//     its first word is no other variable's name;
//   - replications and point (its index in grid order).
//
// For example: rejected == 0 && wait_p99_s < 0.2, or
// wait_p99_s + hw.wait_p99_s < 0.2 to require the whole interval below.
//
// The same language, compiled with CompileExpr as a number, states a cost
// (poolsim tune --minimize 'pool.max + 100 * wait_p99_s').
type Gate struct {
	Expr   string
	prog   *vm.Program
	names  []string // the metrics and derived variables it reads, in order of first use
	inputs []string // the metrics those depend on, in order
}

const gateAllowed = `a boolean expression over summary metric names, e.g. 'rejected == 0 && wait_p99_s < 0.2' (hw.NAME: a half-width; param["KEY"]: a swept value)`

const costAllowed = `a numeric expression over summary metric names and swept keys, e.g. 'pool.max + 100 * wait_p99_s'`

var unknownNameRE = lazyre.New(`unknown name ([A-Za-z_][A-Za-z0-9_]*)`)

// derivedVar is a gate variable computed from metrics' means (and its
// half-width from theirs), not a column of the results.
type derivedVar struct {
	name   string
	inputs []string
	mean   func(m func(string) float64) float64
	hw     func(m, h func(string) float64) float64
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// derivedVars are the derived variables of the gate language. The
// half-width of rejected_ratio neglects the spread of submitted, which
// under the same traffic is far smaller than that of rejected.
var derivedVars = []derivedVar{{
	name:   "rejected_ratio",
	inputs: []string{"rejected", "submitted"},
	mean:   func(m func(string) float64) float64 { return ratio(m("rejected"), m("submitted")) },
	hw:     func(m, h func(string) float64) float64 { return ratio(h("rejected"), m("submitted")) },
}}

// DerivedNames returns the derived variables of the gate language
// (rejected_ratio).
func DerivedNames() []string {
	out := make([]string, len(derivedVars))
	for i, v := range derivedVars {
		out[i] = v.name
	}
	return out
}

func derivedByName(name string) (derivedVar, bool) {
	for _, v := range derivedVars {
		if v.name == name {
			return v, true
		}
	}
	return derivedVar{}, false
}

// reservedNames are the gate language's names other than swept keys.
func reservedNames(d *Definition) map[string]bool {
	r := map[string]bool{"hw": true, "param": true, "replications": true, "point": true}
	for _, m := range d.Metrics {
		r[m] = true
	}
	for _, v := range derivedVars {
		r[v.name] = true
	}
	return r
}

// bareKeys returns the swept keys that may be written bare (pool.max):
// dotted, with a first word that names nothing else, and no other swept
// key a prefix of theirs.
func bareKeys(d *Definition) map[string]bool {
	reserved := reservedNames(d)
	out := map[string]bool{}
	for _, p := range d.Params {
		parts := strings.Split(p.Key, ".")
		if len(parts) < 2 || reserved[parts[0]] {
			continue
		}
		ok := true
		for _, q := range d.Params {
			if q.Key != p.Key && (strings.HasPrefix(p.Key, q.Key+".") || strings.HasPrefix(q.Key, p.Key+".")) {
				ok = false
			}
		}
		if ok {
			out[p.Key] = true
		}
	}
	return out
}

// gateEnv returns the variables of a gate for one row (or, with row nil,
// zero values of the right types, to compile against).
func gateEnv(d *Definition, row *Row) map[string]any {
	env := map[string]any{}
	hw := map[string]float64{}
	idx := map[string]int{}
	for j, m := range d.Metrics {
		idx[m] = j
		if row == nil {
			env[m], hw[m] = 0.0, 0.0
		} else {
			env[m], hw[m] = row.Mean[j], row.HalfWidth[j]
		}
	}
	get := func(xs []float64) func(string) float64 {
		return func(name string) float64 {
			if j, ok := idx[name]; ok && xs != nil {
				return xs[j]
			}
			return math.NaN()
		}
	}
	for _, v := range derivedVars {
		if row == nil {
			env[v.name], hw[v.name] = 0.0, 0.0
			continue
		}
		env[v.name], hw[v.name] = v.mean(get(row.Mean)), v.hw(get(row.Mean), get(row.HalfWidth))
	}
	env["hw"] = hw
	param := map[string]any{}
	bare := bareKeys(d)
	for k, p := range d.Params {
		kind, _ := parseKind(p.Kind)
		var val any
		if row != nil {
			v := row.Values[k]
			if x := v.Num(kind); !math.IsNaN(x) {
				val = x
			} else {
				val = v.Text
			}
		}
		param[p.Key] = val
		if bare[p.Key] {
			if val == nil {
				val = 0.0
				if kind == Text {
					val = ""
				}
			}
			setPath(env, strings.Split(p.Key, "."), val)
		}
	}
	env["param"] = param
	if row == nil {
		env["replications"], env["point"] = 0, 0
	} else {
		env["replications"], env["point"] = row.Replications, row.Point
	}
	return env
}

// setPath sets m[a][b]...[z] = v, making the maps on the way.
func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		sub, ok := m[k].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[k] = sub
		}
		m = sub
	}
	m[path[len(path)-1]] = v
}

// CompileGate compiles a gate for the sweep d. A bad expression (syntax,
// unknown name, not boolean) is an input error naming the flag.
func CompileGate(text string, d *Definition) (*Gate, error) {
	return CompileExpr("--assert", text, d, false)
}

// CompileExpr compiles an expression of the gate language for the sweep d:
// a condition, or with number a cost (its value a number). Errors are
// input errors naming flag and the expression.
func CompileExpr(flag, text string, d *Definition, number bool) (*Gate, error) {
	allowed := gateAllowed
	if number {
		allowed = costAllowed
	}
	bad := func(msg string) error {
		return inputerr.New(flag+" "+text, 0, 0, "", msg, allowed)
	}
	if strings.TrimSpace(text) == "" {
		return nil, bad("empty expression")
	}
	opts := []expr.Option{expr.Env(gateEnv(d, nil)), expr.AsBool()}
	if number {
		opts[1] = expr.AsFloat64()
	}
	prog, err := expr.Compile(text, opts...)
	if err != nil {
		msg := strings.Join(strings.Fields(strings.SplitN(err.Error(), "\n", 2)[0]), " ")
		if m := unknownNameRE.FindStringSubmatch(msg); m != nil {
			names := append(append(append([]string{}, d.Metrics...), DerivedNames()...), "hw", "param", "replications", "point")
			for _, p := range d.Params {
				if bareKeys(d)[p.Key] {
					names = append(names, strings.SplitN(p.Key, ".", 2)[0])
				}
			}
			if sug := inputerr.Suggest(m[1], names); sug != "" {
				msg += fmt.Sprintf("; did you mean %q?", sug)
			}
		}
		return nil, bad(msg)
	}
	g := &Gate{Expr: text, prog: prog}
	if problem := g.collect(d); problem != "" {
		return nil, bad(problem)
	}
	return g, nil
}

// collect walks the compiled expression: it records the metrics and
// derived variables it reads, and checks the map lookups expr does not
// (hw.NAME, param["KEY"], bare keys), returning what is wrong or "".
func (g *Gate) collect(d *Definition) string {
	metric := map[string]bool{}
	for _, m := range d.Metrics {
		metric[m] = true
	}
	readable := func(name string) bool {
		_, ok := derivedByName(name)
		return metric[name] || ok
	}
	swept := map[string]bool{}
	var keys []string
	for _, p := range d.Params {
		swept[p.Key] = true
		keys = append(keys, p.Key)
	}
	bare := bareKeys(d)
	roots := map[string]bool{}
	for k := range bare {
		roots[strings.SplitN(k, ".", 2)[0]] = true
	}
	seen := map[string]bool{}
	var chains []string
	var problem string
	node := g.prog.Node()
	ast.Walk(&node, visitor(func(n ast.Node) {
		name := ""
		switch x := n.(type) {
		case *ast.IdentifierNode:
			name = x.Value
		case *ast.MemberNode:
			if c, ok := memberChain(x); ok && roots[strings.SplitN(c, ".", 2)[0]] {
				chains = append(chains, c)
				break
			}
			// hw.NAME and param["KEY"] are map lookups, which expr does
			// not check: a typo would read 0 or nil. Check them here.
			id, ok := x.Node.(*ast.IdentifierNode)
			s, isStr := x.Property.(*ast.StringNode)
			if !ok || !isStr || problem != "" {
				break
			}
			switch {
			case id.Value == "hw" && !readable(s.Value):
				problem = fmt.Sprintf("hw.%s: unknown metric", s.Value)
				if sug := inputerr.Suggest(s.Value, d.Metrics); sug != "" {
					problem += fmt.Sprintf("; did you mean %q?", sug)
				}
			case id.Value == "param" && !swept[s.Value]:
				problem = fmt.Sprintf("param[%q]: not a swept key (swept: %s)", s.Value, strings.Join(keys, ", "))
			case id.Value == "hw":
				name = s.Value
			}
		}
		if readable(name) && !seen[name] {
			seen[name] = true
			g.names = append(g.names, name)
		}
	}))
	if problem == "" {
		problem = checkChains(chains, bare, keys)
	}
	for _, n := range g.names {
		ins := []string{n}
		if v, ok := derivedByName(n); ok {
			ins = v.inputs
		}
		for _, in := range ins {
			if !containsString(g.inputs, in) {
				g.inputs = append(g.inputs, in)
			}
		}
	}
	return problem
}

// memberChain returns a.b.c for a chain of constant member lookups rooted
// at an identifier.
func memberChain(n ast.Node) (string, bool) {
	switch x := n.(type) {
	case *ast.IdentifierNode:
		return x.Value, true
	case *ast.MemberNode:
		s, ok := x.Property.(*ast.StringNode)
		if !ok {
			return "", false
		}
		base, ok := memberChain(x.Node)
		return base + "." + s.Value, ok
	}
	return "", false
}

// checkChains checks bare keys: the longest chains written must be swept
// keys (shorter ones are their prefixes, as the walk visits them too).
func checkChains(chains []string, bare map[string]bool, keys []string) string {
	for _, c := range chains {
		longer := false
		for _, o := range chains {
			longer = longer || strings.HasPrefix(o, c+".")
		}
		if !longer && !bare[c] {
			return fmt.Sprintf("%s: not a swept key (swept: %s)", c, strings.Join(keys, ", "))
		}
	}
	return ""
}

type visitor func(ast.Node)

func (v visitor) Visit(n *ast.Node) { v(*n) }

// Check evaluates the gate on a row.
func (g *Gate) Check(d *Definition, row *Row) (bool, error) {
	out, err := g.run(d, row)
	ok, _ := out.(bool)
	return ok, err
}

// Number evaluates a cost (CompileExpr with number) on a row.
func (g *Gate) Number(d *Definition, row *Row) (float64, error) {
	out, err := g.run(d, row)
	x, _ := out.(float64)
	return x, err
}

func (g *Gate) run(d *Definition, row *Row) (any, error) {
	out, err := expr.Run(g.prog, gateEnv(d, row))
	if err != nil {
		return nil, inputerr.New("--assert "+g.Expr, 0, 0, "", fmt.Sprintf("point %d: %s", row.Point, strings.Join(strings.Fields(strings.SplitN(err.Error(), "\n", 2)[0]), " ")), gateAllowed)
	}
	return out, nil
}

// Metrics returns the metrics the gate depends on (those it reads, and
// those its derived variables are computed from).
func (g *Gate) Metrics() []string { return append([]string(nil), g.inputs...) }

// maxCorners bounds the metrics Decided perturbs at once (2^n evaluations).
const maxDecideMetrics = 10

// Decided evaluates the gate on a row and reports whether the row's 95%
// confidence intervals decide it: the verdict is the same with every
// metric the gate depends on moved to either end of its interval (every
// corner of the box of intervals). A metric without an interval (one
// replication) leaves the verdict undecided; an undefined one (NaN) is
// undefined at every corner. A gate depending on more than 10 metrics is
// decided on the means alone.
func (g *Gate) Decided(d *Definition, row *Row) (verdict, decided bool, err error) {
	verdict, err = g.Check(d, row)
	if err != nil {
		return false, false, err
	}
	var js []int
	for _, m := range g.inputs {
		j := indexOf(d.Metrics, m)
		if j < 0 || math.IsNaN(row.Mean[j]) {
			continue
		}
		if math.IsNaN(row.HalfWidth[j]) {
			return verdict, false, nil
		}
		if row.HalfWidth[j] > 0 {
			js = append(js, j)
		}
	}
	if len(js) > maxDecideMetrics {
		return verdict, true, nil
	}
	c := *row
	c.Mean = append([]float64(nil), row.Mean...)
	for mask := 0; mask < 1<<len(js); mask++ {
		for b, j := range js {
			if mask&(1<<b) != 0 {
				c.Mean[j] = row.Mean[j] + row.HalfWidth[j]
			} else {
				c.Mean[j] = row.Mean[j] - row.HalfWidth[j]
			}
		}
		v, err := g.Check(d, &c)
		if err != nil {
			return false, false, err
		}
		if v != verdict {
			return verdict, false, nil
		}
	}
	return verdict, true, nil
}

// Figures describes the metrics the gate reads at a row: "rejected = 12 ±
// 3.1, wait_p99_s = 0.45 ± 0.02".
func (g *Gate) Figures(r *Results, row *Row) string {
	var parts []string
	for _, m := range g.names {
		mean, hw := Figure(&r.Definition, row, m)
		parts = append(parts, m+" = "+figure(mean, hw))
	}
	return strings.Join(parts, ", ")
}

// Figure returns a metric's or derived variable's mean and half-width at a
// row (NaN, NaN for an unknown name).
func Figure(d *Definition, row *Row, name string) (mean, hw float64) {
	env := gateEnv(d, row)
	m, ok := env[name].(float64)
	if !ok {
		return math.NaN(), math.NaN()
	}
	return m, env["hw"].(map[string]float64)[name]
}

// FormatFigure prints a mean and its half-width compactly, as gate
// failures do: "0.4512 ± 0.02", "19681 ± 1846", "null".
func FormatFigure(mean, hw float64) string { return figure(mean, hw) }

// figure prints a mean and its half-width compactly.
func figure(mean, hw float64) string {
	f := func(x float64) string {
		switch {
		case math.IsNaN(x):
			return "null"
		case math.Abs(x) >= 1000 && math.Abs(x) < 1e15:
			return strconv.FormatFloat(x, 'f', 0, 64) // 19681, not 1.968e+04
		}
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	if math.IsNaN(hw) || math.IsNaN(mean) {
		return f(mean)
	}
	return f(mean) + " ± " + f(hw)
}

// Verdict is the gates' outcome at one point.
type Verdict struct {
	Row    *Row
	Failed []*Gate // the gates the point fails; none: it passes
}

// Evaluate checks every gate at every row, in grid order.
func Evaluate(r *Results, gates []*Gate) ([]Verdict, error) {
	out := make([]Verdict, len(r.Rows))
	for i := range r.Rows {
		out[i].Row = &r.Rows[i]
		for _, g := range gates {
			ok, err := g.Check(&r.Definition, &r.Rows[i])
			if err != nil {
				return nil, err
			}
			if !ok {
				out[i].Failed = append(out[i].Failed, g)
			}
		}
	}
	return out, nil
}

// FailureReport lists every failing point with its parameters and the
// figures its failed gates read, one line per point; "" when all pass.
func FailureReport(r *Results, vs []Verdict) string {
	var b strings.Builder
	n := 0
	for _, v := range vs {
		if len(v.Failed) > 0 {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	fmt.Fprintf(&b, "%d of %d points fail", n, len(vs))
	var exprs []string
	for _, v := range vs {
		for _, g := range v.Failed {
			if !containsString(exprs, g.Expr) {
				exprs = append(exprs, g.Expr)
			}
		}
	}
	for _, e := range exprs {
		fmt.Fprintf(&b, " --assert '%s'", e)
	}
	b.WriteString(":")
	for _, v := range vs {
		if len(v.Failed) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n  point %d  %s  (%d replications): ", v.Row.Point, r.grid.Label(v.Row.Point), v.Row.Replications)
		for k, g := range v.Failed {
			if k > 0 {
				b.WriteString("; ")
			}
			if len(v.Failed) > 1 || len(exprs) > 1 {
				fmt.Fprintf(&b, "[%s] ", g.Expr)
			}
			if f := g.Figures(r, v.Row); f != "" {
				b.WriteString(f)
			} else {
				b.WriteString("false")
			}
		}
	}
	return b.String()
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// JUnit XML (the schema Jenkins, GitLab, GitHub test reporters and
// Buildkite read): one test suite for the sweep, one test case per point.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes a JUnit XML report of the gates: a test case per
// point, named by its parameters, failing with the figures of each gate
// it fails; its output lists every gated metric with its interval.
func WriteJUnit(w io.Writer, r *Results, vs []Verdict, gates []*Gate) error {
	d := &r.Definition
	suite := junitSuite{Name: "poolsim sweep " + d.Scenario}
	suite.Properties = append(suite.Properties,
		junitProperty{"scenario", d.Scenario},
		junitProperty{"scenario_sha256", d.ScenarioSHA256},
		junitProperty{"poolsim_version", d.Version},
		junitProperty{"replications", strconv.Itoa(d.Replications)},
	)
	if d.Precision > 0 {
		suite.Properties = append(suite.Properties, junitProperty{"precision", fmt.Sprintf("%v on %s, at most %d replications", d.Precision, d.PrecisionMetric, d.MaxReplications)})
	}
	if !r.Shard.Whole() {
		suite.Properties = append(suite.Properties, junitProperty{"shard", r.Shard.String()})
	}
	for _, g := range gates {
		suite.Properties = append(suite.Properties, junitProperty{"assert", g.Expr})
	}
	var all []string
	for _, g := range gates {
		for _, m := range g.names {
			if !containsString(all, m) {
				all = append(all, m)
			}
		}
	}
	for _, v := range vs {
		c := junitCase{
			Name:      fmt.Sprintf("point %d: %s", v.Row.Point, r.grid.Label(v.Row.Point)),
			Classname: "poolsim.sweep." + d.Scenario,
		}
		for _, g := range v.Failed {
			c.Failures = append(c.Failures, junitFailure{
				Message: "assert failed: " + g.Expr,
				Type:    "AssertionError",
				Text:    g.Figures(r, v.Row),
			})
		}
		var out []string
		for _, m := range all {
			out = append(out, m+" = "+figure(Figure(d, v.Row, m)))
		}
		if len(out) > 0 {
			c.SystemOut = fmt.Sprintf("%s (%d replications, seeds %s)", strings.Join(out, ", "), v.Row.Replications, seedList(v.Row.Seeds, " "))
		}
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
		if len(v.Failed) > 0 {
			suite.Failures++
		}
	}
	doc := junitSuites{Name: "poolsim sweep", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("sweep: writing JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

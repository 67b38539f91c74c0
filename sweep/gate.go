package sweep

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Gate is a condition every point must meet, for CI: an expr-lang
// expression (https://expr-lang.org) evaluated on each point's results.
// Its variables are
//
//   - every metric of summary.json by name (wait_p99_s, rejected, ...):
//     the point's mean over its replications (NaN when undefined, so any
//     comparison with it is false);
//   - hw.NAME: the metric's 95% confidence half-width (NaN with one
//     replication);
//   - param["KEY"]: the point's value of a swept key, a number in base
//     units (seconds, tasks per second) or, for text values, a string;
//   - replications and point (its index in grid order).
//
// For example: rejected == 0 && wait_p99_s < 0.2, or
// wait_p99_s + hw.wait_p99_s < 0.2 to require the whole interval below.
type Gate struct {
	Expr    string
	prog    *vm.Program
	metrics []string // the metrics it reads, in order of first use
}

const gateAllowed = `a boolean expression over summary metric names, e.g. 'rejected == 0 && wait_p99_s < 0.2' (hw.NAME: a half-width; param["KEY"]: a swept value)`

var unknownNameRE = regexp.MustCompile(`unknown name ([A-Za-z_][A-Za-z0-9_]*)`)

// gateEnv returns the variables of a gate for one row (or, with row nil,
// zero values of the right types, to compile against).
func gateEnv(d *Definition, row *Row) map[string]any {
	env := map[string]any{}
	hw := map[string]float64{}
	for j, m := range d.Metrics {
		if row == nil {
			env[m], hw[m] = 0.0, 0.0
		} else {
			env[m], hw[m] = row.Mean[j], row.HalfWidth[j]
		}
	}
	env["hw"] = hw
	param := map[string]any{}
	for k, p := range d.Params {
		kind, _ := parseKind(p.Kind)
		if row == nil {
			param[p.Key] = nil
			continue
		}
		v := row.Values[k]
		if x := v.Num(kind); !math.IsNaN(x) {
			param[p.Key] = x
		} else {
			param[p.Key] = v.Text
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

// CompileGate compiles a gate for the sweep d. A bad expression (syntax,
// unknown name, not boolean) is an input error naming the flag.
func CompileGate(text string, d *Definition) (*Gate, error) {
	bad := func(msg string) error {
		return inputerr.New("--assert "+text, 0, 0, "", msg, gateAllowed)
	}
	if strings.TrimSpace(text) == "" {
		return nil, bad("empty expression")
	}
	prog, err := expr.Compile(text, expr.Env(gateEnv(d, nil)), expr.AsBool())
	if err != nil {
		msg := strings.Join(strings.Fields(strings.SplitN(err.Error(), "\n", 2)[0]), " ")
		if m := unknownNameRE.FindStringSubmatch(msg); m != nil {
			names := append(append([]string{}, d.Metrics...), "hw", "param", "replications", "point")
			if sug := inputerr.Suggest(m[1], names); sug != "" {
				msg += fmt.Sprintf("; did you mean %q?", sug)
			}
		}
		return nil, bad(msg)
	}
	g := &Gate{Expr: text, prog: prog}
	metric := map[string]bool{}
	for _, m := range d.Metrics {
		metric[m] = true
	}
	swept := map[string]bool{}
	var keys []string
	for _, p := range d.Params {
		swept[p.Key] = true
		keys = append(keys, p.Key)
	}
	seen := map[string]bool{}
	var problem string
	node := prog.Node()
	ast.Walk(&node, visitor(func(n ast.Node) {
		name := ""
		switch x := n.(type) {
		case *ast.IdentifierNode:
			name = x.Value
		case *ast.MemberNode:
			// hw.NAME and param["KEY"] are map lookups, which expr does
			// not check: a typo would read 0 or nil. Check them here.
			id, ok := x.Node.(*ast.IdentifierNode)
			s, isStr := x.Property.(*ast.StringNode)
			if !ok || !isStr || problem != "" {
				break
			}
			switch {
			case id.Value == "hw" && !metric[s.Value]:
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
		if metric[name] && !seen[name] {
			seen[name] = true
			g.metrics = append(g.metrics, name)
		}
	}))
	if problem != "" {
		return nil, bad(problem)
	}
	return g, nil
}

type visitor func(ast.Node)

func (v visitor) Visit(n *ast.Node) { v(*n) }

// Check evaluates the gate on a row.
func (g *Gate) Check(d *Definition, row *Row) (bool, error) {
	out, err := expr.Run(g.prog, gateEnv(d, row))
	if err != nil {
		return false, inputerr.New("--assert "+g.Expr, 0, 0, "", fmt.Sprintf("point %d: %s", row.Point, strings.Join(strings.Fields(strings.SplitN(err.Error(), "\n", 2)[0]), " ")), gateAllowed)
	}
	ok, _ := out.(bool)
	return ok, nil
}

// Figures describes the metrics the gate reads at a row: "rejected = 12 ±
// 3.1, wait_p99_s = 0.45 ± 0.02".
func (g *Gate) Figures(r *Results, row *Row) string {
	var parts []string
	for _, m := range g.metrics {
		j, _ := r.MetricIndex(m)
		parts = append(parts, m+" = "+figure(row.Mean[j], row.HalfWidth[j]))
	}
	return strings.Join(parts, ", ")
}

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
		for _, m := range g.metrics {
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
			j, _ := r.MetricIndex(m)
			out = append(out, m+" = "+figure(v.Row.Mean[j], v.Row.HalfWidth[j]))
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

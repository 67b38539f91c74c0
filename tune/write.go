package tune

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/internal/lazyre"
	"github.com/poolsim/poolsim/plots"
	"github.com/poolsim/poolsim/report"
	"github.com/poolsim/poolsim/sim"
)

// WriteDir writes the results into dir beside the rounds' sweeps:
// tune.json, points.csv (every point evaluated), frontier.png and
// tune.html (the report page: the text, the chart and the figures). It
// returns the files written, comma-separated.
func (r *Result) WriteDir(dir string) (string, error) {
	png, err := r.FrontierPNG()
	if err != nil {
		return "", err
	}
	var text bytes.Buffer
	if err := r.WriteText(&text, 0); err != nil {
		return "", err
	}
	files := []struct {
		name string
		fn   func(io.Writer) error
	}{
		{"tune.json", r.WriteJSON},
		{"points.csv", r.WritePointsCSV},
		{"frontier.png", func(w io.Writer) error { _, err := w.Write(png); return err }},
		{"tune.html", func(w io.Writer) error { return r.writeHTML(w, text.String(), png) }},
	}
	var names []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := atomicfile.Write(p, f.fn); err != nil {
			return "", fmt.Errorf("tune: writing %s: %w", p, err)
		}
		names = append(names, p)
	}
	return strings.Join(names, ", "), nil
}

// WritePointsCSV writes every evaluated point: its round, values,
// replications, verdicts, objective and figures with half-widths.
func (r *Result) WritePointsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	names := r.figureNames()
	head := append([]string{"round"}, r.Keys...)
	head = append(head, "replications", "decided", "feasible", "objective", "objective_hw")
	for _, n := range names {
		head = append(head, n, n+"_hw")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	cell := func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return sim.FormatFloat(x)
	}
	for _, p := range r.Points {
		rec := []string{strconv.Itoa(p.Round)}
		for _, v := range p.Values {
			rec = append(rec, v.Text)
		}
		rec = append(rec, strconv.Itoa(p.Row.Replications), strconv.FormatBool(p.Decided), strconv.FormatBool(p.Feasible), cell(p.Objective), cell(p.ObjectiveHW))
		for _, n := range names {
			m, hw := p.Figure(n)
			rec = append(rec, cell(m), cell(hw))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// limitRE reads a constraint that is a plain upper bound on the wait p99 or
// the rejected share, to draw it.
var limitRE = lazyre.New(`^\s*(wait_p99_s|rejected_ratio|rejected\s*/\s*submitted)\s*<=?\s*([0-9.eE+-]+)\s*$`)

// Chart returns the frontier chart's data: every point, the Pareto set, the
// current and recommended points, the constraints' bounds and the closed
// form over the size key's range.
func (r *Result) Chart() plots.Frontier {
	f := plots.Frontier{
		ThreadsName: "threads (pool_size_mean)", WaitName: "wait p99 (s)", RejectedName: "rejected share",
		Current: -1, Recommended: -1, WaitLimit: math.NaN(), RejectedLimit: math.NaN(),
		RecommendedLabel: r.Recommended.Label(r.Keys),
	}
	pareto := map[*Point]bool{}
	for _, p := range r.Frontier {
		pareto[p] = true
	}
	pts := r.Points
	if r.Current != nil && !r.CurrentPlaced {
		pts = append(append([]*Point{}, pts...), r.Current)
	}
	for i, p := range pts {
		fp := plots.FrontierPoint{Feasible: p.Feasible, Pareto: pareto[p]}
		fp.Threads, _ = p.Figure(ThreadsMetric)
		fp.Wait, _ = p.Figure(WaitMetric)
		fp.Rejected, _ = p.Figure(RejectMetric)
		f.Points = append(f.Points, fp)
		if p == r.Current {
			f.Current, f.CurrentLabel = i, p.Label(r.Keys)
		}
		if p == r.Recommended {
			f.Recommended = i
		}
	}
	for _, c := range r.Constraints {
		m := limitRE.FindStringSubmatch(c)
		if m == nil {
			continue
		}
		x, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		if m[1] == "wait_p99_s" {
			f.WaitLimit, f.WaitLimitLabel = x, "bound: "+c
		} else {
			f.RejectedLimit, f.RejectedLimitLabel = x, "bound: "+c
		}
	}
	if c := r.Closed; c != nil && c.Why == "" {
		d := r.t.dims[r.keyIndex(c.Key)]
		m := closedModel{Lambda: c.Lambda, Mu: c.Mu, duration: 1}
		m.erlangB = strings.Contains(c.Model, "Erlang B")
		curve := &plots.FrontierCurve{Name: c.Model}
		for size := int(d.lo); size <= int(d.hi); size++ {
			m.C = size
			fig := m.figures()
			curve.Threads = append(curve.Threads, float64(size))
			curve.Wait = append(curve.Wait, fig[WaitMetric])
			curve.Rejected = append(curve.Rejected, closedFigure(fig, RejectMetric))
		}
		f.Closed = curve
	}
	return f
}

// FrontierPNG draws the frontier chart.
func (r *Result) FrontierPNG() ([]byte, error) {
	var b bytes.Buffer
	title := fmt.Sprintf("%s · minimize %s s.t. %s", r.Scenario, r.Minimize, strings.Join(r.Constraints, ", "))
	if err := plots.FrontierChart(&b, r.Chart(), plots.Options{Title: title}); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return b.Bytes(), nil
}

// writeHTML writes tune.html with package report: the recommendation's
// figures as the summary table, the text report as the explanation, the
// frontier chart, and the scenario.
func (r *Result) writeHTML(w io.Writer, text string, png []byte) error {
	var kv []report.KV
	kv = append(kv, report.KV{Key: "recommended", Value: strings.Join(r.Recommended.Sets(r.Keys), " ")})
	kv = append(kv, report.KV{Key: "minimize " + r.Minimize, Value: fmtFigure(r.Recommended.Objective, r.Recommended.ObjectiveHW)})
	for _, n := range r.figureNames() {
		m, hw := r.Recommended.Figure(n)
		kv = append(kv, report.KV{Key: n, Value: fmtFigure(m, hw)})
	}
	kv = append(kv, report.KV{Key: "points evaluated", Value: strconv.Itoa(len(r.Points))}, report.KV{Key: "replications", Value: strconv.Itoa(r.Replications)})
	sc := report.Scenario{
		Name:    r.Scenario,
		YAML:    r.t.base.Listing(),
		Summary: kv,
		Explain: text,
		Images:  []report.Image{{PNG: png, Caption: "The trade-off: every configuration evaluated, the Pareto frontier, the current configuration and the recommendation"}},
	}
	return report.Write(w, report.Report{Title: "poolsim tune: " + r.Scenario, Scenarios: []report.Scenario{sc}})
}

func fmtFigure(m, hw float64) string {
	if math.IsNaN(hw) {
		return short(m)
	}
	return short(m) + " ± " + short(hw)
}

// CheckFailure is tune --check's verdict: "" when the current
// configuration meets every constraint, else one line naming what it
// fails and the nearest feasible change.
func (r *Result) CheckFailure() string {
	if r.Current == nil || r.Current.Feasible {
		return ""
	}
	msg := fmt.Sprintf("tune --check: the current configuration (%s) %s", r.Current.Label(r.Keys), r.currentFailure())
	if r.Nearest != nil {
		msg += fmt.Sprintf("; nearest feasible change: %s (%s)", r.changeText(r.Nearest), (&search{t: r.t}).figures(r.Nearest))
	}
	if r.Recommended != r.Nearest {
		msg += fmt.Sprintf("; recommended: %s", r.Recommended.Label(r.Keys))
	}
	return msg
}

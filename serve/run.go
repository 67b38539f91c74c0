package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/poolsim/poolsim/explain"
	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/plots"
	"github.com/poolsim/poolsim/report"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// resultMsg is a run's answer: what the page redraws.
type resultMsg struct {
	Type    string   `json:"type"` // "result"
	Sets    []string `json:"sets"`
	Command string   `json:"command,omitempty"`
	// File is the downloaded YAML's name, and FileCommand the command that
	// runs it.
	File        string        `json:"file"`
	FileCommand string        `json:"fileCommand"`
	Config      configView    `json:"config"`
	Timeline    timelineView  `json:"timeline"`
	Events      []eventView   `json:"events"`
	Figures     []figureView  `json:"figures"`
	Answer      template.HTML `json:"answer"`
	Summary     template.HTML `json:"summary"`
	// SimMS is how long the simulation took on the server; Simulations
	// how many it ran for this answer (one: the run).
	SimMS       float64 `json:"simMs"`
	Simulations int     `json:"simulations"`
	// Incomplete says why the run stopped early, if it did.
	Incomplete string `json:"incomplete,omitempty"`
}

// figureView is a headline figure with its exact value, for scripts and
// tests.
type figureView struct {
	Key string `json:"key"`
	Raw string `json:"raw"`
}

type eventView struct {
	AtS   float64 `json:"at_s"`
	Label string  `json:"label"`
}

// progressMsg tells how far a long run has come (0 to 1 of its duration).
type progressMsg struct {
	Type string  `json:"type"` // "progress"
	Done float64 `json:"done"`
}

// explainMsg carries the explanation's markup: the findings first, then
// (type "whatifs") the findings with the re-simulated what-ifs.
type explainMsg struct {
	Type string        `json:"type"` // "explain" or "whatifs"
	HTML template.HTML `json:"html"`
	// Simulations is how many simulations this message took (the run, and
	// for "whatifs" one per what-if: explain.Explanation.Simulations; 0
	// when the explanation failed), SimMS how long they took.
	Simulations int     `json:"simulations"`
	SimMS       float64 `json:"simMs"`
}

// progressEvery is how often a long run reports its progress; the first
// report waits as long, so that a quick run sends none.
const progressEvery = 100 * time.Millisecond

// handleRun simulates the scenario with the page's overrides and streams
// the answer as newline-delimited JSON: progress, then the result. Bad input is refused before anything runs with
// the command line's message (as the stream's only message). The request's context is the
// run's: when the page moves on (it aborts the request), the simulation
// stops.
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// A refusal is the stream's only message, with a 200: the browser
	// logs no failed load for what is the user's typo, not a fault.
	sc, sets, ok := s.request(w, r, http.StatusOK)
	if !ok {
		return
	}
	if !s.acquire(ctx) {
		return
	}
	st := &stream{w: w, rc: http.NewResponseController(w)}
	msg, err := s.simulate(ctx, sc, sets, st)
	s.release()
	switch {
	case ctx.Err() != nil:
		return // the page moved on
	case err != nil:
		// A runtime event the model refuses, a broken trace.
		st.send(errorMsg{Type: "error", Message: "poolsim: " + oneLine(err.Error()), Key: errKey(err)})
		return
	}
	st.send(msg)
}

// handleExplain streams the explanation of the scenario with the page's
// overrides: the findings, then the what-ifs. The page asks for it once it
// has redrawn the run, so that the explanation's simulations do not slow
// the redraw; the next change aborts it as it aborts a run.
func (s *Server) handleExplain(w http.ResponseWriter, r *http.Request) {
	sc, _, ok := s.request(w, r, http.StatusOK)
	if !ok {
		return
	}
	s.explain(r.Context(), sc, &stream{w: w, rc: http.NewResponseController(w)})
}

// simulate runs sc, reporting progress to st, and builds the result.
func (s *Server) simulate(ctx context.Context, sc *scenarios.Scenario, sets []string, st *stream) (*resultMsg, error) {
	start := time.Now()
	last := start
	var csv bytes.Buffer
	opt := sim.Options{Timeline: &csv}
	if sc.Duration > 0 {
		opt.OnSample = func(smp sim.Sample) {
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				st.send(progressMsg{Type: "progress", Done: math.Min(1, smp.T.Seconds()/sc.Duration.Seconds())})
			}
		}
	}
	res, err := sim.Run(ctx, sc, opt)
	if err != nil {
		return nil, err
	}
	simMS := float64(time.Since(start).Microseconds()) / 1000
	tl, err := plots.ReadTimeline(&csv)
	if err != nil {
		return nil, err
	}
	rows, err := report.SummaryFromStruct(res.Summary)
	if err != nil {
		return nil, err
	}
	ans := output.Answer(sc, res)
	parts, err := report.SectionParts(report.Scenario{Name: sc.Name, Answer: ans, Summary: rows})
	if err != nil {
		return nil, err
	}
	msg := &resultMsg{Type: "result", Sets: sets, File: downloadName(sc), Config: viewOf(sc), Timeline: timelineOf(tl),
		Answer: parts.Answer, Summary: parts.Summary, SimMS: simMS, Simulations: 1}
	if msg.Sets == nil {
		msg.Sets = []string{}
	}
	msg.FileCommand = "poolsim run " + shellQuote(msg.File)
	if len(s.opt.Command) > 0 {
		msg.Command = command(s.opt.Command, sets)
	}
	for _, f := range ans.Figures {
		msg.Figures = append(msg.Figures, figureView{Key: f.Key, Raw: f.Raw})
	}
	for _, e := range res.Applied {
		msg.Events = append(msg.Events, eventView{AtS: e.At.Seconds(), Label: e.What})
	}
	if !res.Complete {
		msg.Incomplete = res.StopReason
	}
	return msg, nil
}

// explain sends the findings, then the what-ifs, each as soon as it is
// ready; each holds a simulation slot while it runs.
func (s *Server) explain(ctx context.Context, sc *scenarios.Scenario, st *stream) {
	for _, opt := range []explain.Options{{NoWhatIfs: true}, {}} {
		if !s.acquire(ctx) {
			return
		}
		start := time.Now()
		e, err := explain.Explain(ctx, sc, opt)
		simMS := float64(time.Since(start).Microseconds()) / 1000
		s.release()
		if ctx.Err() != nil {
			return
		}
		rs := report.Scenario{Name: sc.Name}
		sims := 0
		if err != nil {
			rs.Explain = "(no explanation: " + err.Error() + ")"
		} else {
			rs.Findings, rs.WhatIfs = output.Explanation(e)
			sims = e.Simulations
		}
		parts, err := report.SectionParts(rs)
		if err != nil {
			return
		}
		kind := "explain"
		if !opt.NoWhatIfs {
			kind = "whatifs"
		}
		if !st.send(explainMsg{Type: kind, HTML: parts.Explanation, Simulations: sims, SimMS: simMS}) {
			return
		}
	}
}

// acquire takes a simulation slot, or gives up when ctx ends first.
func (s *Server) acquire(ctx context.Context) bool {
	select {
	case s.sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Server) release() { <-s.sem }

// errKey is the scenario key an input error names, for the page to show
// the message beside its control.
func errKey(err error) string {
	var ie *inputerr.Error
	if errors.As(err, &ie) {
		return ie.Key
	}
	return ""
}

// stream writes newline-delimited JSON messages, each flushed at once.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	failed  bool
}

// send writes one message; false once the client is gone.
func (st *stream) send(v any) bool {
	if st.failed {
		return false
	}
	if !st.started {
		st.started = true
		st.w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
		st.w.WriteHeader(http.StatusOK)
	}
	b, err := json.Marshal(v)
	if err == nil {
		_, err = st.w.Write(append(b, '\n'))
	}
	if err == nil {
		err = st.rc.Flush()
	}
	st.failed = err != nil
	return !st.failed
}

// timelineColumns are the timeline columns the page draws.
var timelineColumns = []string{"t_s", "pool_size", "busy", "idle_timed", "idle_untimed", "queue_len", "rejected",
	"core", "max", "wait_p50_s", "wait_p99_s", "wait_max_s"}

// maxPoints bounds the samples sent to the page: about twice as many
// buckets, each keeping its extremes (plots.DownsampleIndices).
const maxPoints = 1500

// timelineView is the timeline's columns the page draws, downsampled to
// about maxPoints samples; a missing value (no wait in an interval) is
// null.
type timelineView map[string]floats

func timelineOf(tl *plots.Timeline) timelineView {
	var keep [][]float64
	for _, c := range []string{"pool_size", "busy", "idle_timed", "queue_len", "wait_p99_s"} {
		if col, ok := tl.Column(c); ok {
			keep = append(keep, col)
		}
	}
	idx := plots.DownsampleIndices(tl.Len(), maxPoints/2, keep...)
	v := timelineView{}
	for _, name := range timelineColumns {
		col, ok := tl.Column(name)
		if !ok {
			continue
		}
		out := make(floats, len(idx))
		for i, j := range idx {
			out[i] = col[j]
		}
		v[name] = out
	}
	return v
}

// floats encode NaN as null and every number with six significant digits.
type floats []float64

func (f floats) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 8*len(f)+2)
	b = append(b, '[')
	for i, x := range f {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, x, 'g', 6, 64)
	}
	return append(b, ']'), nil
}

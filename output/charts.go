package output

import (
	"bytes"
	"fmt"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/plots"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// Chart is one PNG chart of a run.
type Chart struct {
	// File is the chart's file name in a run's output directory:
	// threads.png, queue.png or wait.png.
	File    string
	Caption string
	PNG     []byte
}

// Charts draws a run's charts from its timeline (timeline.csv as read by
// plots.ReadTimeline), titled with the scenario's name and key parameters
// and marked with the run's runtime events: the threads by state, the queue
// and rejections, and — when any task waited in the steady state or in a
// sample interval — the wait and response times. The bytes depend only on
// the inputs.
func Charts(sc *scenarios.Scenario, res *sim.Result, tl *plots.Timeline) ([]Chart, error) {
	o := plots.Options{Title: chartTitle(sc), Events: runEvents(res)}
	var ss plots.SteadyState
	for _, q := range res.WaitCDF {
		ss.Wait = append(ss.Wait, plots.Quantile{Q: q.Q, Seconds: q.Seconds})
	}
	for _, q := range res.ResponseCDF {
		ss.Response = append(ss.Response, plots.Quantile{Q: q.Q, Seconds: q.Seconds})
	}
	type spec struct {
		file, caption string
		draw          func(*bytes.Buffer) error
	}
	specs := []spec{
		{"threads.png", "Threads by state over time: busy, idle in poll(keepAlive) (TIMED_WAITING), idle in take() (WAITING), with core and max",
			func(b *bytes.Buffer) error { return plots.ThreadTimeline(b, tl, o) }},
		{"queue.png", "Queue length and cumulative rejections over time",
			func(b *bytes.Buffer) error { return plots.QueueRejections(b, tl, o) }},
	}
	if len(ss.Wait) > 0 || hasWaits(tl) {
		specs = append(specs, spec{"wait.png", "Wait and response times: per-interval percentiles, and the steady-state distribution",
			func(b *bytes.Buffer) error { return plots.WaitResponse(b, tl, ss, o) }})
	}
	var out []Chart
	for _, s := range specs {
		var b bytes.Buffer
		if err := s.draw(&b); err != nil {
			return nil, fmt.Errorf("drawing %s: %w", s.file, err)
		}
		out = append(out, Chart{s.file, s.caption, b.Bytes()})
	}
	return out, nil
}

// readTimeline reads the timeline.csv a run just wrote.
func readTimeline(csv []byte) (*plots.Timeline, error) {
	tl, err := plots.ReadTimeline(bytes.NewReader(csv))
	if err != nil {
		return nil, fmt.Errorf("reading the run's timeline: %w", err)
	}
	return tl, nil
}

// chartsFromCSV draws the charts of a run from the timeline.csv it wrote.
func chartsFromCSV(sc *scenarios.Scenario, res *sim.Result, csv []byte) ([]Chart, error) {
	tl, err := readTimeline(csv)
	if err != nil {
		return nil, err
	}
	return Charts(sc, res, tl)
}

// chartTitle names the scenario and its key parameters.
func chartTitle(sc *scenarios.Scenario) string {
	c := sc.Pool.Config
	return fmt.Sprintf("%s · %s: core %d, max %s, keepAlive %v, %s queue", sc.Name, sc.Pool.Preset, c.Core, model.SizeString(c.Max), c.KeepAlive, c.Queue)
}

// runEvents are the run's runtime events as the charts mark them.
func runEvents(res *sim.Result) []plots.Event {
	var out []plots.Event
	for _, e := range res.Applied {
		out = append(out, plots.Event{AtS: e.At.Seconds(), Label: e.What})
	}
	return out
}

// hasWaits reports whether any sample interval has a wait.
func hasWaits(tl *plots.Timeline) bool {
	col, _ := tl.Column("wait_max_s")
	for _, v := range col {
		if v == v {
			return true
		}
	}
	return false
}

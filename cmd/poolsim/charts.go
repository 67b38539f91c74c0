package main

import (
	"bytes"
	"fmt"

	"github.com/poolsim/poolsim/plots"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// chart is one PNG of a run.
type chart struct {
	file    string // file name in the output directory
	caption string
	png     []byte
}

// chartTitle names the scenario and its key parameters.
func chartTitle(sc *scenarios.Scenario) string {
	c := sc.Pool.Config
	max := fmt.Sprint(c.Max)
	if c.Max == plots.Unbounded {
		max = "unbounded"
	}
	return fmt.Sprintf("%s · %s: core %d, max %s, keepAlive %v, %s queue", sc.Name, sc.Pool.Preset, c.Core, max, c.KeepAlive, c.Queue)
}

// runEvents are the run's runtime events as the charts mark them.
func runEvents(res *sim.Result) []plots.Event {
	var out []plots.Event
	for _, e := range res.Applied {
		out = append(out, plots.Event{AtS: e.At.Seconds(), Label: e.What})
	}
	return out
}

// makeCharts draws the run's charts from its recorded timeline.
func makeCharts(sc *scenarios.Scenario, res *sim.Result, timeline []byte) (*plots.Timeline, []chart, error) {
	tl, err := plots.ReadTimeline(bytes.NewReader(timeline))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the run's timeline: %w", err)
	}
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
	var out []chart
	for _, s := range specs {
		var b bytes.Buffer
		if err := s.draw(&b); err != nil {
			return nil, nil, fmt.Errorf("drawing %s: %w", s.file, err)
		}
		out = append(out, chart{s.file, s.caption, b.Bytes()})
	}
	return tl, out, nil
}

func hasWaits(tl *plots.Timeline) bool {
	col, _ := tl.Column("wait_max_s")
	for _, v := range col {
		if v == v {
			return true
		}
	}
	return false
}

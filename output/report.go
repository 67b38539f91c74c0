package output

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/poolsim/poolsim/explain"
	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/report"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// ReportOptions are the page-wide settings of WriteReport.
type ReportOptions struct {
	// Title heads the page; empty means "poolsim report".
	Title string
}

// ReportFiles is what WriteReport wrote.
type ReportFiles struct {
	// Page is report.html's path, and Size its length in bytes.
	Page string
	Size int
	// Charts are the paths of the PNG files written beside the page.
	Charts []string
}

// ReportScenario runs sc and returns its section of a report — its answer
// (Answer: the verdict and the headline figures), the scenario's text, its
// summary (summary.json's keys in file order, built from the run's
// sim.Summary), its timeline and runtime events for the comparison charts,
// the explanation's findings and what-ifs (and the `explain` text) — and
// its charts (see Charts). An explanation that fails is left out of the
// page, with the reason in its place.
func ReportScenario(ctx context.Context, sc *scenarios.Scenario) (report.Scenario, []Chart, error) {
	var csv bytes.Buffer
	res, err := sim.Run(ctx, sc, sim.Options{Timeline: &csv})
	if err != nil {
		return report.Scenario{}, nil, err
	}
	tl, err := readTimeline(csv.Bytes())
	if err != nil {
		return report.Scenario{}, nil, err
	}
	charts, err := Charts(sc, res, tl)
	if err != nil {
		return report.Scenario{}, nil, err
	}
	rows, err := report.SummaryFromStruct(res.Summary)
	if err != nil {
		return report.Scenario{}, nil, err
	}
	rs := report.Scenario{Name: sc.Name, YAML: sc.Listing(), Summary: rows, Timeline: tl, Events: runEvents(res), Answer: Answer(sc, res)}
	if e, err := explain.Explain(ctx, sc, explain.Options{}); err != nil {
		rs.Explain = "(no explanation: " + err.Error() + ")"
	} else {
		rs.Explain = e.Text()
		rs.Findings, rs.WhatIfs = Explanation(e)
	}
	for _, ch := range charts {
		rs.Images = append(rs.Images, report.Image{PNG: ch.PNG, Caption: ch.Caption})
	}
	return rs, charts, nil
}

// WriteReport runs each scenario (ReportScenario) and writes into dir,
// creating it if needed, report.html (package report: the sections in
// order and, with two or more scenarios, the comparisons) and every chart
// as NN-NAME-FILE.png (NN the scenario's position from 01, NAME its
// DirName). Two scenarios of one name (the same file twice, or two files
// with the same name:) are told apart by their position: the second is
// "NAME #2" on the page; the scenarios passed in are not changed. Each file
// is written atomically; report.html last.
func WriteReport(ctx context.Context, dir string, scs []*scenarios.Scenario, opt ReportOptions) (*ReportFiles, error) {
	if len(scs) == 0 {
		return nil, fmt.Errorf("output: a report needs at least one scenario")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &DirError{Dir: dir, Err: err}
	}
	rep := report.Report{Title: opt.Title}
	files := &ReportFiles{}
	seen := map[string]int{}
	for i, sc := range scs {
		if seen[sc.Name]++; seen[sc.Name] > 1 {
			named := *sc
			named.Name = fmt.Sprintf("%s #%d", sc.Name, seen[sc.Name])
			sc = &named
		}
		rs, charts, err := ReportScenario(ctx, sc)
		if err != nil {
			return nil, err
		}
		for _, ch := range charts {
			path := filepath.Join(dir, fmt.Sprintf("%02d-%s-%s", i+1, DirName(sc.Name), ch.File))
			if err := atomicfile.WriteBytes(path, ch.PNG); err != nil {
				return nil, err
			}
			files.Charts = append(files.Charts, path)
		}
		rep.Scenarios = append(rep.Scenarios, rs)
	}
	var page bytes.Buffer
	if err := report.Write(&page, rep); err != nil {
		return nil, err
	}
	files.Page, files.Size = filepath.Join(dir, "report.html"), page.Len()
	if err := atomicfile.WriteBytes(files.Page, page.Bytes()); err != nil {
		return nil, err
	}
	return files, nil
}

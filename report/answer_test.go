package report

import (
	"bytes"
	"strings"
	"testing"
)

// answered is sampleReport with an answer, findings and what-ifs.
func answered(t *testing.T, n int) Report {
	r := sampleReport(t, n)
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		s.Answer = &Answer{Verdict: "Mostly idle: 120 workers for 0.01 busy <b>", Tone: "warn", Figures: []Figure{
			{Key: "pool_size_mean", Raw: "120", Label: "pool size", Value: "120", Note: "steady state"},
			{Key: "wait_p99_s", Raw: "0.243", Label: "p99 wait", Value: "243 ms"},
		}}
		s.Findings = []Finding{{"Why TIMED_WAITING", "more workers than core"}}
		s.WhatIfs = &WhatIfs{Intro: "same traffic", Columns: []string{"pool"}, Rows: []WhatIfRow{
			{Name: "as configured", Cells: []string{"120"}},
			{Name: "keepAlive 1m0s → 10s", Cells: []string{"20 (−83 %)"}, Why: "shorter", Sets: []string{"pool.keepAlive=10s"}},
			{Name: "broken", Error: "boom"},
		}}
	}
	return r
}

// TestWriteLeadsWithTheAnswer: each section opens with the verdict and the
// headline figures, then the charts, then the explanation and the what-ifs,
// then the full summary, collapsed; a comparison shows its charts before
// its tables. The parts poolsim serve shows are the page's own bytes.
func TestWriteLeadsWithTheAnswer(t *testing.T) {
	for _, n := range []int{1, 2} {
		r := answered(t, n)
		var buf bytes.Buffer
		if err := Write(&buf, r); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		if _, err := parsePage(buf.Bytes()); err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		section := page[strings.Index(page, `<section id="scenario-1`):]
		order := []string{`class="verdict warn"`, `data-key="pool_size_mean" data-raw="120"`, "<img ", "Why TIMED_WAITING", "What would change it",
			"could not simulate: boom", "--set pool.keepAlive=10s", `<details class="summary">`, "Scenario file"}
		at := 0
		for _, want := range order {
			i := strings.Index(section[at:], want)
			if i < 0 {
				t.Fatalf("%d scenarios: %q missing or out of order in the section", n, want)
			}
			at += i
		}
		if strings.Contains(section, "<b>") {
			t.Errorf("the verdict was not escaped")
		}
		if n > 1 {
			cmp := page[strings.Index(page, `<section id="comparison">`):strings.Index(page, `<section id="scenario-1`)]
			img, table := strings.Index(cmp, "<img "), strings.Index(cmp, "<table")
			if img < 0 || table < 0 || img > table {
				t.Errorf("the comparison shows a table before its charts")
			}
			if !strings.Contains(cmp, "Headline figures") || !strings.Contains(cmp, "243 ms") {
				t.Errorf("the comparison lacks the headline figures side by side")
			}
		}
		parts, err := SectionParts(r.Scenarios[0])
		if err != nil {
			t.Fatal(err)
		}
		for name, p := range map[string]string{"answer": string(parts.Answer), "explanation": string(parts.Explanation), "summary": string(parts.Summary)} {
			if p == "" || !strings.Contains(section, p) {
				t.Errorf("%s part is not the page's own markup:\n%s", name, p)
			}
		}
	}
}

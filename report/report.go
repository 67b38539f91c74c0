package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/poolsim/poolsim/plots"
)

// Report is everything report.html shows.
type Report struct {
	// Title heads the page; empty means "poolsim report".
	Title string
	// Scenarios are shown in order, each in its own section.
	Scenarios []Scenario
	// Comparisons are extra charts the caller drew across scenarios; they
	// follow the overlays Write draws itself.
	Comparisons []Image
}

// Scenario is one run of one scenario file.
type Scenario struct {
	Name string
	// YAML is the scenario file's exact text.
	YAML string
	// Summary is summary.json's key/value pairs in file order (see
	// SummaryFromStruct, or SummaryFromJSON for a file already written).
	Summary []KV
	// Answer opens the section: the verdict and the headline figures.
	// Optional.
	Answer *Answer
	// Findings are the explanation's paragraphs and WhatIfs its
	// re-simulated changes; when both are empty, Explain (the `poolsim
	// explain` text) is shown as it is. All optional.
	Findings []Finding
	WhatIfs  *WhatIfs
	Explain  string
	// Images are the scenario's charts (PNG bytes and caption).
	Images []Image
	// Timeline, when set for two or more scenarios, lets Write overlay
	// them in comparison charts (pool size, busy, queue, rejections, wait
	// p99). Optional.
	Timeline *plots.Timeline
	// Events are the run's runtime events (resizes, shutdowns), marked on
	// the comparison charts. Optional.
	Events []plots.Event
}

// KV is one summary entry, its value as printed in summary.json.
type KV struct {
	Key, Value string
}

// Image is an embedded PNG chart.
type Image struct {
	PNG     []byte
	Caption string
}

// overlayMetrics are the timeline columns Write overlays when several
// scenarios have timelines, with their captions.
var overlayMetrics = []struct{ col, caption string }{
	{"pool_size", "Pool size of every scenario"},
	{"busy", "Busy threads of every scenario"},
	{"queue_len", "Queue length of every scenario"},
	{"rejected", "Cumulative rejections of every scenario"},
	{"wait_p99_s", "Wait p99 per sample interval of every scenario"},
}

// Write renders r as a self-contained HTML page. Nothing is written when r
// is invalid (no scenario, a scenario without a name, two with the same
// name, an image that is not a PNG) or a chart cannot be drawn.
func Write(w io.Writer, r Report) error {
	page, err := build(r)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTmpl().Execute(&buf, page); err != nil {
		return fmt.Errorf("report: render html: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write html: %w", err)
	}
	return nil
}

// page is the template's view of a report.
type page struct {
	Title       string
	Scenarios   []scenarioView
	Compare     bool
	Names       []string
	Headlines   []compareRow // the headline figures side by side
	Table       []compareRow
	Comparisons []imageView
}

type scenarioView struct {
	ID, Name, YAML, Explain string
	Answer                  *Answer
	Findings                []Finding
	WhatIfs                 *WhatIfs
	Summary                 []SummaryRow
	Hidden                  int // summary entries of unused features, left out
	Images                  []imageView
}

type compareRow struct {
	Key    string
	Values []string
}

type imageView struct {
	Src           template.URL
	Caption       string
	Width, Height int
	ID            string
}

func build(r Report) (*page, error) {
	if len(r.Scenarios) == 0 {
		return nil, errors.New("report: no scenarios to report")
	}
	p := &page{Title: r.Title}
	if p.Title == "" {
		p.Title = "poolsim report"
	}
	seen := map[string]bool{}
	for i, s := range r.Scenarios {
		if strings.TrimSpace(s.Name) == "" {
			return nil, fmt.Errorf("report: scenario %d has no name", i+1)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("report: two scenarios named %q", s.Name)
		}
		seen[s.Name] = true
		id := fmt.Sprintf("scenario-%d-%s", i+1, slug(s.Name))
		sv := view(s)
		sv.ID = id
		for j, im := range s.Images {
			iv, err := embed(im, fmt.Sprintf("%s-chart-%d", id, j+1))
			if err != nil {
				return nil, fmt.Errorf("report: scenario %s: image %d (%q): %w", s.Name, j+1, im.Caption, err)
			}
			sv.Images = append(sv.Images, iv)
		}
		p.Scenarios = append(p.Scenarios, sv)
		p.Names = append(p.Names, s.Name)
	}
	p.Compare = len(r.Scenarios) > 1
	if p.Compare {
		p.Table = compareTable(r.Scenarios)
		p.Headlines = compareHeadlines(r.Scenarios)
		charts, err := overlays(r)
		if err != nil {
			return nil, err
		}
		charts = append(charts, r.Comparisons...)
		for j, im := range charts {
			iv, err := embed(im, fmt.Sprintf("comparison-chart-%d", j+1))
			if err != nil {
				return nil, fmt.Errorf("report: comparison image %d (%q): %w", j+1, im.Caption, err)
			}
			p.Comparisons = append(p.Comparisons, iv)
		}
	} else if len(r.Comparisons) > 0 {
		return nil, errors.New("report: comparison charts given for a single scenario")
	}
	return p, nil
}

// overlays draws one comparison chart per overlay metric that every
// scenario with a timeline has values for; none when fewer than two
// scenarios have timelines.
func overlays(r Report) ([]Image, error) {
	var runs []plots.Run
	var withTimeline []Scenario
	for _, s := range r.Scenarios {
		if s.Timeline != nil {
			runs = append(runs, plots.Run{Name: s.Name, Timeline: s.Timeline})
			withTimeline = append(withTimeline, s)
		}
	}
	if len(runs) < 2 {
		return nil, nil
	}
	events := overlayEvents(withTimeline)
	var out []Image
	for _, m := range overlayMetrics {
		if !allHave(runs, m.col) {
			continue
		}
		var buf bytes.Buffer
		if err := plots.Comparison(&buf, runs, m.col, plots.Options{Title: r.Title, Events: events}); err != nil {
			return nil, fmt.Errorf("report: comparison of %s: %w", m.col, err)
		}
		out = append(out, Image{PNG: buf.Bytes(), Caption: m.caption})
	}
	return out, nil
}

// overlayEvents lists the runtime events to mark on a comparison: an event
// every scenario has (same instant, same label) once as it is, any other
// prefixed with its scenario's name, in scenario order.
func overlayEvents(ss []Scenario) []plots.Event {
	count := map[plots.Event]int{}
	for _, s := range ss {
		seen := map[plots.Event]bool{}
		for _, e := range s.Events {
			if !seen[e] {
				seen[e] = true
				count[e]++
			}
		}
	}
	var out []plots.Event
	done := map[plots.Event]bool{}
	for _, s := range ss {
		for _, e := range s.Events {
			switch {
			case count[e] == len(ss):
				if !done[e] {
					done[e] = true
					out = append(out, e)
				}
			default:
				out = append(out, plots.Event{AtS: e.AtS, Label: s.Name + ": " + e.Label})
			}
		}
	}
	return out
}

// allHave reports whether every run has the column with at least one value.
func allHave(runs []plots.Run, col string) bool {
	for _, r := range runs {
		c, ok := r.Timeline.Column(col)
		if !ok {
			return false
		}
		found := false
		for _, v := range c {
			if !math.IsNaN(v) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// view is a scenario's section, but for its id and images.
func view(s Scenario) scenarioView {
	sv := scenarioView{Name: s.Name, YAML: s.YAML, Answer: s.Answer, Findings: s.Findings, WhatIfs: s.WhatIfs}
	if len(s.Findings) == 0 && s.WhatIfs == nil {
		sv.Explain = strings.TrimRight(s.Explain, "\n")
	}
	sv.Summary, sv.Hidden = SummaryRows(s.Summary)
	return sv
}

// compareTable lays the scenarios' summaries side by side in human units:
// one row per key, keys in order of first appearance, "—" where a
// scenario lacks the key or did not use its feature (see SummaryRows);
// rows no scenario shows are left out.
func compareTable(ss []Scenario) []compareRow {
	var keys []string
	idx := map[string]int{}
	shown := make([]map[string]string, len(ss))
	for j, s := range ss {
		rows, _ := SummaryRows(s.Summary)
		shown[j] = map[string]string{}
		for _, r := range rows {
			shown[j][r.Key] = r.Value
			if _, ok := idx[r.Key]; !ok {
				idx[r.Key] = len(keys)
				keys = append(keys, r.Key)
			}
		}
	}
	return sideBySide(keys, ss, func(j int, key string) (string, bool) {
		v, ok := shown[j][key]
		return v, ok
	})
}

// compareHeadlines lays the scenarios' headline figures side by side, by
// label in order of first appearance.
func compareHeadlines(ss []Scenario) []compareRow {
	var labels []string
	seen := map[string]bool{}
	for _, s := range ss {
		if s.Answer == nil {
			continue
		}
		for _, f := range s.Answer.Figures {
			if !seen[f.Label] {
				seen[f.Label] = true
				labels = append(labels, f.Label)
			}
		}
	}
	return sideBySide(labels, ss, func(j int, label string) (string, bool) {
		if ss[j].Answer == nil {
			return "", false
		}
		for _, f := range ss[j].Answer.Figures {
			if f.Label == label {
				return f.Value, true
			}
		}
		return "", false
	})
}

// sideBySide makes one row per key with each scenario's value, "—" where
// it has none.
func sideBySide(keys []string, ss []Scenario, value func(j int, key string) (string, bool)) []compareRow {
	rows := make([]compareRow, len(keys))
	for i, k := range keys {
		rows[i] = compareRow{Key: k, Values: make([]string, len(ss))}
		for j := range ss {
			v, ok := value(j, k)
			if !ok {
				v = "—"
			}
			rows[i].Values[j] = v
		}
	}
	return rows
}

// embed checks that im is a PNG and turns it into a data: URL.
func embed(im Image, id string) (imageView, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(im.PNG))
	if err != nil {
		return imageView{}, fmt.Errorf("not a PNG: %w", err)
	}
	caption := im.Caption
	if caption == "" {
		caption = "chart"
	}
	return imageView{
		// The bytes were just checked to be a PNG: safe as an image URL.
		Src:     template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(im.PNG)),
		Caption: caption,
		Width:   cfg.Width,
		Height:  cfg.Height,
		ID:      id,
	}, nil
}

// slug makes a fragment-safe id part from a name.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func numeric(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// SummaryFromJSON reads a summary.json object into key/value pairs in file
// order. Numbers keep their exact text; strings lose their quotes; other
// values (arrays, objects, true, false, null) are shown as compact JSON.
func SummaryFromJSON(data []byte) ([]KV, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("report: read summary: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("report: read summary: want a JSON object, got %v", tok)
	}
	var out []KV
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("report: read summary: %w", err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("report: read summary: value of %q: %w", key, err)
		}
		out = append(out, KV{Key: key, Value: jsonText(raw)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("report: read summary: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("report: read summary: data after the object")
	}
	return out, nil
}

func jsonText(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// Parts are the pieces of a scenario's section that do not depend on how
// its charts are drawn, as HTML: poolsim serve shows them beside charts
// of its own, so that the page and report.html say the same.
type Parts struct {
	// Answer is the verdict and the headline figures; Explanation the
	// findings and the what-ifs (or the explain text); Summary the full
	// summary, collapsed. Each is empty when the scenario has none.
	Answer, Explanation, Summary template.HTML
}

// SectionParts renders s's answer, explanation and summary exactly as
// Write renders them in s's section.
func SectionParts(s Scenario) (Parts, error) {
	sv := view(s)
	var p Parts
	for _, part := range []struct {
		name string
		dst  *template.HTML
	}{{"answer", &p.Answer}, {"explanation", &p.Explanation}, {"summary", &p.Summary}} {
		var b bytes.Buffer
		if err := pageTmpl().ExecuteTemplate(&b, part.name, sv); err != nil {
			return Parts{}, fmt.Errorf("report: render %s: %w", part.name, err)
		}
		// The template escaped every value it inserted.
		*part.dst = template.HTML(strings.TrimSpace(b.String()))
	}
	return p, nil
}

// StyleSheet is the style of the parts SectionParts renders.
func StyleSheet() string {
	var b strings.Builder
	if err := pageTmpl().ExecuteTemplate(&b, "css", nil); err != nil {
		panic(err) // a constant template without data cannot fail
	}
	return b.String()
}

package metrics

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Formats of a metrics file.
const (
	FormatQueryRange = "query_range" // a Prometheus /api/v1/query_range JSON response (R176)
	FormatText       = "text"        // Prometheus text exposition, one or more scrapes (R177)
	FormatCSV        = "csv"         // a CSV with columns time, series, value
)

// ScrapeMarker starts each scrape of a text file that holds several: a
// comment line "# scrape TIME", TIME in RFC 3339 or Unix seconds, e.g.
//
//	echo "# scrape $(date -Is)" >> scrapes.txt; curl -s localhost:8080/actuator/prometheus >> scrapes.txt
//
// The exposition format ignores comments, so each part stays a valid scrape.
const ScrapeMarker = "# scrape "

// Point is one sample of a series.
type Point struct {
	T time.Time
	V float64
}

// Series is one time series: a metric name and its labels.
type Series struct {
	Name   string
	Labels map[string]string // without __name__
	Points []Point           // in time order, one per instant
	Type   string            // counter, gauge, untyped (text format), or "" when the file does not say
}

// ID is the series in PromQL selector syntax, labels sorted:
// executor_pool_size_threads{application="shop",name="applicationTaskExecutor"}.
func (s *Series) ID() string { return s.Name + labelText(s.Labels, "") }

// labelText renders labels as {k="v",...} in key order, without skip.
func labelText(labels map[string]string, skip string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		if k != skip {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", k, labels[k])
	}
	b.WriteByte('}')
	return b.String()
}

// Set is what one file holds.
type Set struct {
	File   string // the path as given
	Format string // FormatQueryRange, FormatText or FormatCSV
	Series []*Series
	// Notes are facts about the file a reader should know (the evaluation
	// points of a query_range response are not scrape times, R176).
	Notes []string
}

// ReadFile reads a metrics file in any of the three formats, told apart by
// their content: '{' starts JSON, a first line naming the columns time,
// series and value is a CSV, anything else is the text format.
func ReadFile(path string) (*Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputerr.New(path, 0, 0, "", "cannot read the metrics file: "+unwrapPath(err), "")
	}
	return Read(data, path)
}

// unwrapPath drops the path a *PathError repeats.
func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Read parses data, naming it file in errors.
func Read(data []byte, file string) (*Set, error) {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, inputerr.New(file, 0, 0, "", "not a text file (binary data)", formatsAllowed)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, inputerr.New(file, 0, 0, "", "empty metrics file", formatsAllowed)
	}
	b := newBuilder(file)
	var err error
	switch {
	case trimmed[0] == '{':
		b.set.Format = FormatQueryRange
		err = b.readQueryRange(trimmed)
	case isCSVHeader(firstLine(trimmed)):
		b.set.Format = FormatCSV
		err = b.readCSV(data)
	default:
		b.set.Format = FormatText
		err = b.readText(data)
	}
	if err != nil {
		return nil, err
	}
	return b.finish()
}

const formatsAllowed = "a Prometheus query_range JSON response, the Prometheus text format with '# scrape TIME' lines or sample timestamps, or a CSV with columns time,series,value"

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// csvColumns are the header names a CSV's three columns may have.
var csvColumns = [3][]string{{"time", "timestamp", "t"}, {"series", "metric"}, {"value"}}

func isCSVHeader(line string) bool {
	if strings.HasPrefix(line, "#") {
		return false
	}
	_, err := csvIndex(strings.Split(line, ","))
	return err == nil
}

// csvIndex finds the time, series and value columns in a header.
func csvIndex(header []string) ([3]int, error) {
	idx := [3]int{-1, -1, -1}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		for c, names := range csvColumns {
			for _, n := range names {
				if h == n && idx[c] < 0 {
					idx[c] = i
				}
			}
		}
	}
	for c, i := range idx {
		if i < 0 {
			return idx, fmt.Errorf("no %s column", csvColumns[c][0])
		}
	}
	return idx, nil
}

// builder collects samples into series.
type builder struct {
	set  Set
	byID map[string]*Series
	// where records, per series and time, the line of the sample, so that a
	// second sample at the same instant can name both lines.
	where map[string]map[time.Time]int
}

func newBuilder(file string) *builder {
	return &builder{set: Set{File: file}, byID: map[string]*Series{}, where: map[string]map[time.Time]int{}}
}

// add records one sample; line is 0 when the format has none (JSON).
func (b *builder) add(name string, labels map[string]string, typ string, t time.Time, v float64, line int) error {
	if name == "" {
		return inputerr.New(b.set.File, line, 0, labelText(labels, ""), "a series without a metric name (__name__)", "query the raw series: an expression such as rate(...) or sum(...) drops the name")
	}
	s := &Series{Name: name, Labels: labels}
	id := s.ID()
	if old, ok := b.byID[id]; ok {
		s = old
	} else {
		b.byID[id] = s
		b.set.Series = append(b.set.Series, s)
		b.where[id] = map[time.Time]int{}
	}
	if s.Type == "" {
		s.Type = typ
	}
	if prev, dup := b.where[id][t]; dup {
		at := ""
		if prev > 0 && prev != line {
			at = fmt.Sprintf(" (also on line %d)", prev)
		}
		return inputerr.New(b.set.File, line, 0, id, fmt.Sprintf("two samples at the same time %s%s", t.UTC().Format(time.RFC3339Nano), at), "one sample per series and instant")
	}
	b.where[id][t] = line
	s.Points = append(s.Points, Point{T: t, V: v})
	return nil
}

func (b *builder) finish() (*Set, error) {
	if len(b.set.Series) == 0 {
		return nil, inputerr.New(b.set.File, 0, 0, "", "no samples in the metrics file", formatsAllowed)
	}
	sort.Slice(b.set.Series, func(i, j int) bool { return b.set.Series[i].ID() < b.set.Series[j].ID() })
	for _, s := range b.set.Series {
		sort.Slice(s.Points, func(i, j int) bool { return s.Points[i].T.Before(s.Points[j].T) })
	}
	return &b.set, nil
}

// queryRange is the envelope of a Prometheus HTTP API response (R176).
type queryRange struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
	Warnings []string `json:"warnings"`
}

func (b *builder) readQueryRange(data []byte) error {
	file := b.set.File
	var resp queryRange
	if err := json.Unmarshal(data, &resp); err != nil {
		return inputerr.New(file, 0, 0, "", "not a Prometheus API response: "+err.Error(), `{"status":"success","data":{"resultType":"matrix","result":[...]}}`)
	}
	switch resp.Status {
	case "success":
	case "error":
		return inputerr.New(file, 0, 0, "status", fmt.Sprintf("the query failed in Prometheus: %s: %s", resp.ErrorType, resp.Error), "a successful query_range response")
	default:
		return inputerr.New(file, 0, 0, "status", fmt.Sprintf("%q is not a Prometheus API status", resp.Status), "success")
	}
	for _, w := range resp.Warnings {
		b.set.Notes = append(b.set.Notes, "Prometheus warned: "+w)
	}
	switch resp.Data.ResultType {
	case "matrix":
		var m pmodel.Matrix
		if err := json.Unmarshal(resp.Data.Result, &m); err != nil {
			return inputerr.New(file, 0, 0, "data.result", "not a matrix of [time, \"value\"] pairs: "+err.Error(), "a query_range response")
		}
		for _, ss := range m {
			name, labels := splitMetric(ss.Metric)
			for _, p := range ss.Values {
				if err := b.add(name, labels, "", p.Timestamp.Time(), float64(p.Value), 0); err != nil {
					return err
				}
			}
			if len(ss.Histograms) > 0 {
				b.set.Notes = append(b.set.Notes, fmt.Sprintf("%s: native histogram samples ignored", name+labelText(labels, "")))
			}
		}
	case "vector":
		var v pmodel.Vector
		if err := json.Unmarshal(resp.Data.Result, &v); err != nil {
			return inputerr.New(file, 0, 0, "data.result", "not a vector: "+err.Error(), "a query_range response")
		}
		for _, s := range v {
			name, labels := splitMetric(s.Metric)
			if err := b.add(name, labels, "", s.Timestamp.Time(), float64(s.Value), 0); err != nil {
				return err
			}
		}
	default:
		return inputerr.New(file, 0, 0, "data.resultType", fmt.Sprintf("%q results hold no series", resp.Data.ResultType), "matrix (from /api/v1/query_range) or vector")
	}
	b.set.Notes = append(b.set.Notes, "query_range points are evaluation points (start + k·step), each the newest sample at or before it, not the scrapes themselves (R176)")
	return nil
}

func splitMetric(m pmodel.Metric) (string, map[string]string) {
	labels := map[string]string{}
	for k, v := range m {
		if k != pmodel.MetricNameLabel {
			labels[string(k)] = string(v)
		}
	}
	return string(m[pmodel.MetricNameLabel]), labels
}

// readText reads one scrape, or several each opened by a ScrapeMarker line.
// Each part is parsed on its own: the same # TYPE line may repeat per scrape.
func (b *builder) readText(data []byte) error {
	lines := strings.SplitAfter(string(data), "\n")
	start, startLine := 0, 1
	var at *time.Time
	flush := func(end int) error {
		if err := b.readScrape(strings.Join(lines[start:end], ""), startLine, at); err != nil {
			return err
		}
		return nil
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, ScrapeMarker) {
			continue
		}
		if err := flush(i); err != nil {
			return err
		}
		ts := strings.TrimSpace(strings.TrimPrefix(l, ScrapeMarker))
		t, err := parseTime(ts)
		if err != nil {
			return inputerr.New(b.set.File, i+1, 0, "# scrape", fmt.Sprintf("bad scrape time %q", ts), "RFC 3339 (2026-01-02T03:04:05Z) or Unix seconds")
		}
		at = &t
		start, startLine = i+1, i+2
	}
	return flush(len(lines))
}

// readScrape parses one scrape whose first line is line first of the file;
// samples without a timestamp take the scrape time at.
func (b *builder) readScrape(text string, first int, at *time.Time) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	p := expfmt.NewTextParser(pmodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		var pe expfmt.ParseError
		if errors.As(err, &pe) {
			return inputerr.New(b.set.File, first-1+pe.Line, 0, "", "Prometheus text format: "+pe.Msg, formatsAllowed)
		}
		return inputerr.New(b.set.File, first, 0, "", "Prometheus text format: "+err.Error(), formatsAllowed)
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := b.addFamily(fams[n], first, at); err != nil {
			return err
		}
	}
	return nil
}

// addFamily records the counter, gauge and untyped samples of a family
// (summaries and histograms are not pool metrics, R170: their _count and
// _sum are skipped).
func (b *builder) addFamily(mf *dto.MetricFamily, line int, at *time.Time) error {
	typ := strings.ToLower(mf.GetType().String())
	for _, m := range mf.GetMetric() {
		var v float64
		switch {
		case m.Counter != nil:
			v = m.GetCounter().GetValue()
		case m.Gauge != nil:
			v = m.GetGauge().GetValue()
		case m.Untyped != nil:
			v = m.GetUntyped().GetValue()
		default:
			continue
		}
		labels := map[string]string{}
		for _, lp := range m.GetLabel() {
			labels[lp.GetName()] = lp.GetValue()
		}
		var t time.Time
		switch {
		case m.TimestampMs != nil:
			t = time.UnixMilli(m.GetTimestampMs()).UTC()
		case at != nil:
			t = *at
		default:
			return inputerr.New(b.set.File, line, 0, mf.GetName()+labelText(labels, ""), "a sample without a time",
				"a '# scrape TIME' line before each scrape (Micrometer writes no timestamps, R177), or a millisecond timestamp after each value")
		}
		if err := b.add(mf.GetName(), labels, typ, t, v, line); err != nil {
			return err
		}
	}
	return nil
}

// readCSV reads rows of time, series (a selector such as
// executor_active_threads{name="app"}) and value. The series and value are
// parsed as one line of the text format, by expfmt.
func (b *builder) readCSV(data []byte) error {
	file := b.set.File
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.Comment = '#'
	header, err := r.Read()
	if err != nil {
		return inputerr.New(file, 1, 0, "", "CSV header: "+err.Error(), "time,series,value")
	}
	idx, err := csvIndex(header)
	if err != nil {
		return inputerr.New(file, 1, 0, "", "CSV header: "+err.Error(), "time,series,value")
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return inputerr.New(file, pe.Line, pe.Column, "", "CSV: "+pe.Err.Error(), "time,series,value")
			}
			return inputerr.New(file, line, 0, "", "CSV: "+err.Error(), "time,series,value")
		}
		if len(rec) <= max(idx[0], idx[1], idx[2]) {
			return inputerr.New(file, line, 0, "", fmt.Sprintf("%d fields, the header has %d", len(rec), len(header)), "time,series,value")
		}
		ts, series, val := strings.TrimSpace(rec[idx[0]]), strings.TrimSpace(rec[idx[1]]), strings.TrimSpace(rec[idx[2]])
		t, err := parseTime(ts)
		if err != nil {
			return inputerr.New(file, line, 0, series, fmt.Sprintf("bad time %q", ts), "RFC 3339 (2026-01-02T03:04:05Z) or Unix seconds")
		}
		p := expfmt.NewTextParser(pmodel.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(series + " " + val + "\n"))
		if err != nil {
			var pe expfmt.ParseError
			msg := err.Error()
			if errors.As(err, &pe) {
				msg = pe.Msg
			}
			return inputerr.New(file, line, 0, series, "not a series and value: "+msg, `a series such as executor_active_threads{name="app"} and a number`)
		}
		for _, mf := range fams {
			if err := b.addFamily(mf, line, &t); err != nil {
				return err
			}
		}
	}
}

// parseTime reads RFC 3339 or Unix seconds (fractions allowed), as the
// Prometheus API does (R176).
// Unix seconds are read as digits, never through a float, so that
// 1767323040.123 is exactly 123 ms past the second.
func parseTime(s string) (time.Time, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if sec, err := strconv.ParseInt(whole, 10, 64); err == nil && sec >= 0 && sec < 1e11 && len(frac) <= 9 {
		ns := int64(0)
		if frac != "" {
			n, err := strconv.ParseUint(frac, 10, 64)
			if err != nil || strings.ContainsAny(frac, "+-") {
				return time.Time{}, fmt.Errorf("bad fraction %q", frac)
			}
			ns = int64(n) * int64(math.Pow10(9-len(frac)))
		}
		return time.Unix(sec, ns).UTC(), nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

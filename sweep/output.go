package sweep

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
	"github.com/poolsim/poolsim/sim"
)

// Row is one point's results: its parameters, the seeds used, and for
// every metric the mean over replications and the half-width of its 95%
// confidence interval (NaN: no interval, with one replication, or the
// metric undefined).
type Row struct {
	Point  int
	Values []Value // parameter values, in parameter order
	// Replications is how many replications the point used.
	Replications int
	// Reached reports whether the precision target was met, or the
	// Decide gates decided (only with either rule).
	Reached bool
	// Incomplete counts replications that stopped early
	// (a scenario limit); their metrics cover the time they ran.
	Incomplete int
	Seeds      []uint64
	// Mean and HalfWidth follow Definition.Metrics.
	Mean, HalfWidth []float64
}

// aggregate computes a point's row from its replications.
func aggregate(rec *pointRecord, g *Grid, nMetrics int) Row {
	row := Row{
		Point:        rec.Point,
		Values:       g.Values(rec.Point),
		Replications: len(rec.Reps),
		Reached:      rec.Reached,
		Mean:         make([]float64, nMetrics),
		HalfWidth:    make([]float64, nMetrics),
	}
	xs := make([]float64, len(rec.Reps))
	for _, r := range rec.Reps {
		row.Seeds = append(row.Seeds, r.Seed)
		if !r.Complete {
			row.Incomplete++
		}
	}
	for j := 0; j < nMetrics; j++ {
		for r := range rec.Reps {
			xs[r] = rec.Reps[r].Values[j]
		}
		row.Mean[j], row.HalfWidth[j] = MeanHalfWidth(xs)
	}
	return row
}

// Results are a sweep's rows in grid order, with the definition that
// produced them.
type Results struct {
	Definition Definition
	// Shard is the part of the sweep the rows cover (zero: all of it).
	Shard Shard
	Rows  []Row
	grid  *Grid
}

// Grid is the results' grid.
func (r *Results) Grid() *Grid { return r.grid }

// MetricIndex returns the index of a metric in Definition.Metrics.
func (r *Results) MetricIndex(name string) (int, bool) {
	for i, m := range r.Definition.Metrics {
		if m == name {
			return i, true
		}
	}
	return 0, false
}

// CSVHeader returns sweep.csv's header: point, one column per parameter
// (its key), replications, precision_reached (with a precision target) or
// decided (with Decide gates),
// incomplete_replications, seeds, then for each metric its mean (named as
// in summary.json) and its 95% confidence half-width (name_hw).
func (r *Results) CSVHeader() []string {
	h := []string{"point"}
	for _, p := range r.Definition.Params {
		h = append(h, p.Key)
	}
	h = append(h, "replications")
	if k := r.Definition.reachedKey(); k != "" {
		h = append(h, k)
	}
	h = append(h, "incomplete_replications", "seeds")
	for _, m := range r.Definition.Metrics {
		h = append(h, m, m+"_hw")
	}
	return h
}

// csvNumber is a float cell: empty when there is no value.
func csvNumber(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return jsonNumber(x)
}

func seedList(seeds []uint64, sep string) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return strings.Join(parts, sep)
}

// WriteCSV writes sweep.csv: one row per point, in grid order. The seeds
// cell lists the replications' seeds separated by spaces; an empty cell is
// a value that does not exist (one replication's half-width, a statistic
// with no data).
func (r *Results) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(r.CSVHeader()); err != nil {
		return err
	}
	for _, row := range r.Rows {
		rec := []string{strconv.Itoa(row.Point)}
		for _, v := range row.Values {
			rec = append(rec, v.Text)
		}
		rec = append(rec, strconv.Itoa(row.Replications))
		if r.Definition.adaptive() {
			rec = append(rec, strconv.FormatBool(row.Reached))
		}
		rec = append(rec, strconv.Itoa(row.Incomplete), seedList(row.Seeds, " "))
		for j := range r.Definition.Metrics {
			rec = append(rec, csvNumber(row.Mean[j]), csvNumber(row.HalfWidth[j]))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// rowJSON writes a row as an object whose keys keep a fixed order.
type rowJSON struct {
	row *Row
	r   *Results
}

func (x rowJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	row, d := x.row, &x.r.Definition
	fmt.Fprintf(&b, `{"point":%d,"params":{`, row.Point)
	for k, v := range row.Values {
		if k > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, d.Params[k].Key)
		b.WriteByte(':')
		writeJSONString(&b, v.Text)
	}
	fmt.Fprintf(&b, `},"replications":%d`, row.Replications)
	if k := d.reachedKey(); k != "" {
		fmt.Fprintf(&b, `,%q:%t`, k, row.Reached)
	}
	fmt.Fprintf(&b, `,"incomplete_replications":%d,"seeds":[%s]`, row.Incomplete, seedList(row.Seeds, ","))
	for _, part := range []struct {
		name string
		xs   []float64
	}{{"mean", row.Mean}, {"half_width", row.HalfWidth}} {
		fmt.Fprintf(&b, `,%q:{`, part.name)
		for j, m := range d.Metrics {
			if j > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b, m)
			b.WriteByte(':')
			b.WriteString(jsonNumber(part.xs[j]))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// WriteJSON writes sweep.json: the definition (format, poolsim version,
// scenario, parameters, replications, precision, confidence, metrics,
// notes), the shard if the results are one, and "results": one object per
// point in grid order with its params, replications, seeds, and "mean"
// and "half_width" objects keyed by metric (null: no value).
func (r *Results) WriteJSON(w io.Writer) error {
	rows := make([]rowJSON, len(r.Rows))
	for i := range r.Rows {
		rows[i] = rowJSON{&r.Rows[i], r}
	}
	doc := struct {
		Definition
		Shard   string    `json:"shard,omitempty"`
		Results []rowJSON `json:"results"`
	}{r.Definition, r.Shard.String(), rows}
	return sim.WriteJSON(w, doc)
}

// Write writes sweep.csv and sweep.json into dir, each atomically.
func (r *Results) Write(dir string) error {
	for _, f := range []struct {
		name string
		fn   func(io.Writer) error
	}{{"sweep.csv", r.WriteCSV}, {"sweep.json", r.WriteJSON}} {
		if err := atomicfile.Write(filepath.Join(dir, f.name), f.fn); err != nil {
			return fmt.Errorf("sweep: writing %s: %w", filepath.Join(dir, f.name), err)
		}
	}
	return nil
}

// assemble reads the point files of points (grid order) from dir into
// results. Every point must be finished.
func assemble(dir string, d *Definition, g *Grid, sh Shard, points []int) (*Results, error) {
	id := d.ID()
	res := &Results{Definition: *d, Shard: sh, grid: g}
	var missing []int
	for _, i := range points {
		rec, ok, err := readPoint(dir, d, id, g, i)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, i)
			continue
		}
		res.Rows = append(res.Rows, aggregate(rec, g, len(d.Metrics)))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("sweep: %s: %d points are not finished (%s)", dir, len(missing), listInts(missing, 10))
	}
	return res, nil
}

// listInts prints up to max integers, then how many more.
func listInts(xs []int, max int) string {
	var parts []string
	for i, x := range xs {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(xs)-max))
			break
		}
		parts = append(parts, strconv.Itoa(x))
	}
	return strings.Join(parts, ", ")
}

package plots

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// RequiredHeader is the contract-fixed start of every timeline.csv header
// (CONTRACT.md §2).
const RequiredHeader = "t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected"

// requiredColumns is RequiredHeader split into names, in order.
var requiredColumns = strings.Split(RequiredHeader, ",")

// Unbounded is the value the `max` column holds for an unbounded
// maximumPoolSize (Integer.MAX_VALUE, CONTRACT.md §1).
const Unbounded = 2147483647

// runStates are the values the run_state column may hold (spec R1).
var runStates = []string{"RUNNING", "SHUTDOWN", "STOP", "TIDYING", "TERMINATED"}

// countColumns are the known optional columns that hold non-negative
// integers (counts, cumulative counts, configuration).
var countColumns = map[string]bool{
	"discarded": true, "caller_ran": true, "failed": true,
	"threads_created": true, "threads_exited": true,
	"core": true, "max": true,
}

// secondsColumns are the known optional columns holding per-interval wait or
// response statistics in seconds. An empty cell means no task started (wait)
// or completed (response) in the interval; it reads as NaN.
var secondsColumns = map[string]bool{
	"wait_mean_s": true, "wait_p50_s": true, "wait_p99_s": true,
	"wait_max_s": true, "response_p99_s": true,
}

// Timeline is a timeline.csv held column by column. Row i of every column is
// the sample at time T[i] (seconds): the pool's state after every event at
// or before T[i].
type Timeline struct {
	// The nine contract-fixed columns, in header order.
	T, PoolSize, Busy, IdleTimed, IdleUntimed, QueueLen, Submitted, Completed, Rejected []float64

	// Extra holds every numeric column after the first nine, by header name.
	// Known columns (core, max, discarded, wait_p99_s, ...) are parsed
	// strictly; unknown ones leniently (a cell that is not a number is NaN).
	// Empty cells are NaN.
	Extra map[string][]float64
	// ExtraNames lists Extra's keys in header order.
	ExtraNames []string
	// RunState is the run_state column (RUNNING ... TERMINATED), nil when
	// the file has none.
	RunState []string
}

// Len is the number of samples.
func (tl *Timeline) Len() int { return len(tl.T) }

// Column returns the numeric column with the given header name, required or
// extra.
func (tl *Timeline) Column(name string) ([]float64, bool) {
	switch name {
	case "t_s":
		return tl.T, true
	case "pool_size":
		return tl.PoolSize, true
	case "busy":
		return tl.Busy, true
	case "idle_timed":
		return tl.IdleTimed, true
	case "idle_untimed":
		return tl.IdleUntimed, true
	case "queue_len":
		return tl.QueueLen, true
	case "submitted":
		return tl.Submitted, true
	case "completed":
		return tl.Completed, true
	case "rejected":
		return tl.Rejected, true
	}
	c, ok := tl.Extra[name]
	return c, ok
}

// required returns pointers to the nine contract-fixed columns in order.
func (tl *Timeline) required() []*[]float64 {
	return []*[]float64{
		&tl.T, &tl.PoolSize, &tl.Busy, &tl.IdleTimed, &tl.IdleUntimed,
		&tl.QueueLen, &tl.Submitted, &tl.Completed, &tl.Rejected,
	}
}

// check reports whether tl is usable for drawing: at least one sample, every
// column as long as T, required columns finite, T non-decreasing. Timelines
// from ReadTimeline always pass; hand-built ones may not.
func (tl *Timeline) check() error {
	if tl == nil || len(tl.T) == 0 {
		return errors.New("timeline has no samples")
	}
	n := len(tl.T)
	for i, p := range tl.required() {
		if len(*p) != n {
			return fmt.Errorf("column %s has %d values, t_s has %d", requiredColumns[i], len(*p), n)
		}
		for j, v := range *p {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("column %s: sample %d is %v (a finite number is required)", requiredColumns[i], j, v)
			}
		}
	}
	for _, name := range tl.ExtraNames {
		if len(tl.Extra[name]) != n {
			return fmt.Errorf("column %s has %d values, t_s has %d", name, len(tl.Extra[name]), n)
		}
	}
	if tl.RunState != nil && len(tl.RunState) != n {
		return fmt.Errorf("column run_state has %d values, t_s has %d", len(tl.RunState), n)
	}
	for i := 1; i < n; i++ {
		if tl.T[i] < tl.T[i-1] {
			return fmt.Errorf("t_s goes backwards at sample %d (%g after %g)", i, tl.T[i], tl.T[i-1])
		}
	}
	return nil
}

// ReadTimelineFile reads the timeline.csv at path; input errors name path.
func ReadTimelineFile(path string) (*Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("plots: read timeline: %w", err)
	}
	defer f.Close()
	return readTimeline(f, path)
}

// ReadTimeline reads a timeline.csv (CONTRACT.md §2). It is strict about the
// first nine header columns (names and order) and about the values of the
// columns it knows, and keeps any further columns it does not know. Input
// errors are *inputerr.Error values naming "timeline.csv", the line, the
// column number and the column name; use ReadTimelineFile to name the real
// path.
func ReadTimeline(r io.Reader) (*Timeline, error) {
	return readTimeline(r, "timeline.csv")
}

func readTimeline(r io.Reader, file string) (*Timeline, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, inputerr.New(file, 1, 0, "", "empty file, no header",
			"a header beginning "+RequiredHeader)
	}
	if err != nil {
		return nil, csvErr(file, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	for i, want := range requiredColumns {
		if i >= len(header) {
			return nil, inputerr.New(file, 1, 0, want, "header ends after "+strconv.Itoa(len(header))+" columns; column "+want+" is missing",
				"a header beginning "+RequiredHeader)
		}
		if header[i] != want {
			_, col := cr.FieldPos(i)
			return nil, inputerr.New(file, 1, col, want, fmt.Sprintf("header column %d is %q, want %q", i+1, header[i], want),
				"a header beginning "+RequiredHeader)
		}
	}
	seen := map[string]int{}
	for i, h := range header {
		if j, dup := seen[h]; dup {
			_, col := cr.FieldPos(i)
			return nil, inputerr.New(file, 1, col, h, fmt.Sprintf("column name repeated (columns %d and %d)", j+1, i+1), "each column once")
		}
		seen[h] = i
	}

	tl := &Timeline{Extra: map[string][]float64{}}
	req := tl.required()
	stateCol := -1
	for i := len(requiredColumns); i < len(header); i++ {
		if header[i] == "run_state" {
			stateCol = i
			tl.RunState = []string{}
			continue
		}
		tl.ExtraNames = append(tl.ExtraNames, header[i])
		tl.Extra[header[i]] = nil
	}

	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(file, err)
		}
		line, _ := cr.FieldPos(0)
		for i, cell := range rec {
			_, col := cr.FieldPos(i)
			name := header[i]
			switch {
			case i < len(requiredColumns):
				v, err := parseCell(cell, name, i == 0)
				if err != nil {
					return nil, inputerr.New(file, line, col, name, err.Error(), allowedFor(name))
				}
				if i == 0 && len(tl.T) > 0 && v < tl.T[len(tl.T)-1] {
					return nil, inputerr.New(file, line, col, name,
						fmt.Sprintf("time %s goes backwards (previous row %g)", cell, tl.T[len(tl.T)-1]),
						"non-decreasing times")
				}
				*req[i] = append(*req[i], v)
			case i == stateCol:
				if !validState(cell) {
					return nil, inputerr.New(file, line, col, name, fmt.Sprintf("unknown run state %q", cell), allowedFor(name))
				}
				tl.RunState = append(tl.RunState, cell)
			default:
				v := math.NaN()
				switch {
				case countColumns[name] || secondsColumns[name]:
					if !(secondsColumns[name] && cell == "") {
						if v, err = parseCell(cell, name, false); err != nil {
							return nil, inputerr.New(file, line, col, name, err.Error(), allowedFor(name))
						}
					}
				default: // unknown column: keep what parses, NaN otherwise
					if f, err := strconv.ParseFloat(strings.TrimSpace(cell), 64); err == nil {
						v = f
					}
				}
				tl.Extra[name] = append(tl.Extra[name], v)
			}
		}
	}
	if len(tl.T) == 0 {
		return nil, inputerr.New(file, 2, 0, "", "no samples after the header", "at least one data row")
	}
	return tl, nil
}

// parseCell parses a known numeric cell. Counts must be non-negative
// integers; seconds columns (t_s and *_s) non-negative finite numbers.
func parseCell(cell, name string, isTime bool) (float64, error) {
	if cell == "" {
		return 0, errors.New("empty cell")
	}
	v, err := strconv.ParseFloat(cell, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", cell)
	}
	if v < 0 {
		return 0, fmt.Errorf("%s is negative", cell)
	}
	if !isTime && !secondsColumns[name] && v != math.Trunc(v) {
		return 0, fmt.Errorf("%s is not a whole number", cell)
	}
	return v, nil
}

func allowedFor(name string) string {
	switch {
	case name == "t_s":
		return "seconds: a non-negative number"
	case name == "run_state":
		return strings.Join(runStates, " | ")
	case secondsColumns[name]:
		return "seconds: a non-negative number, or empty when no task fell in the interval"
	case name == "max":
		return "a non-negative integer; 2147483647 = unbounded"
	default:
		return "a non-negative integer"
	}
}

func validState(s string) bool {
	for _, v := range runStates {
		if s == v {
			return true
		}
	}
	return false
}

// csvErr turns an encoding/csv error into an input error with its position.
func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		allowed := "RFC 4180 CSV"
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg = "row has a different number of cells than the header"
			allowed = "one cell per header column"
		}
		e := inputerr.New(file, pe.Line, pe.Column, "", msg, allowed)
		e.Err = err
		return e
	}
	return fmt.Errorf("plots: read timeline %s: %w", file, err)
}

package workloads

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/internal/textlimit"
)

// Trace columns. arrival_s and service_s are required.
var traceColumns = []string{"arrival_s", "service_s", "priority", "fail", "cpu_s"}

// traceSource streams a CSV trace: memory stays constant however long it is.
type traceSource struct {
	name     string
	f        io.Closer
	r        *csv.Reader
	col      map[string]int
	last     time.Duration
	line     int
	err      error
	failures *rand.Rand
	failure  float64
	count    int
	split    Split // the last row's cpu_s, as a split (none without the column)
}

// HasSplits reports whether the trace has a cpu_s column.
func (s *traceSource) HasSplits() bool { _, ok := s.col["cpu_s"]; return ok }

// LastSplit returns the split of the row Next returned last.
func (s *traceSource) LastSplit() Split { return s.split }

// OpenTrace opens a CSV trace for replay. The header names the columns:
// arrival_s (seconds from the start of the run, non-decreasing) and
// service_s (seconds) are required; priority (an integer, lower runs first),
// fail (1/true = the task throws) and cpu_s (the part of service_s that
// needs a CPU, run first; the rest blocks) are optional. Without a fail
// column, each task throws with probability failure, drawn from its own
// stream.
func OpenTrace(path string, failure float64, seed uint64) (Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("cannot open trace: %v", unwrapPathError(err)), "")
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, inputerr.New(path, 0, 0, "", "cannot open trace: is a directory", "")
	}
	s, err := newTraceSource(f, path, failure, seed)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
	return s, nil
}

// ReadTrace is OpenTrace for an already open reader; name is used in errors.
func ReadTrace(r io.Reader, name string, failure float64, seed uint64) (Source, error) {
	return newTraceSource(r, name, failure, seed)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func newTraceSource(r io.Reader, name string, failure float64, seed uint64) (*traceSource, error) {
	cr := csv.NewReader(bufio.NewReaderSize(textlimit.Lines(r, textlimit.MaxLine), 64<<10))
	cr.ReuseRecord = true
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	s := &traceSource{name: name, r: cr, col: map[string]int{}, failure: failure,
		failures: rand.New(NewStream(seed, StreamFailures))}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, inputerr.New(name, 1, 0, "", "empty trace", "a CSV header naming arrival_s and service_s, then one row per task")
	}
	if err != nil {
		return nil, s.csvError(err)
	}
	line, _ := cr.FieldPos(0)
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if !utf8.ValidString(h) || !isKnownColumn(h) {
			msg := fmt.Sprintf("unknown column %q", clip(h))
			if sug := inputerr.Suggest(h, traceColumns); sug != "" {
				msg += fmt.Sprintf("; did you mean %q?", sug)
			}
			_, col := cr.FieldPos(i)
			return nil, inputerr.New(name, line, col, "header", msg, "columns: arrival_s, service_s, priority, fail, cpu_s")
		}
		if _, dup := s.col[h]; dup {
			_, col := cr.FieldPos(i)
			return nil, inputerr.New(name, line, col, h, "column appears twice", "")
		}
		s.col[h] = i
	}
	for _, req := range []string{"arrival_s", "service_s"} {
		if _, ok := s.col[req]; !ok {
			return nil, inputerr.New(name, line, 0, req, "required column missing", "header: arrival_s,service_s[,priority][,fail][,cpu_s]")
		}
	}
	return s, nil
}

func isKnownColumn(h string) bool {
	for _, c := range traceColumns {
		if c == h {
			return true
		}
	}
	return false
}

func (s *traceSource) csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return inputerr.New(s.name, pe.Line, pe.Column, "", fmt.Sprintf("malformed CSV: %v", pe.Err), "")
	}
	var le *textlimit.LineError
	if errors.As(err, &le) {
		return inputerr.New(s.name, le.Line, 0, "", fmt.Sprintf("line longer than %d bytes", le.Max), "a CSV trace: one short row per task")
	}
	return inputerr.New(s.name, 0, 0, "", fmt.Sprintf("cannot read trace: %v", unwrapPathError(err)), "")
}

func (s *traceSource) fieldErr(rec []string, column, msg, allowed string) error {
	i := s.col[column]
	line, col := s.r.FieldPos(i)
	return inputerr.New(s.name, line, col, column, fmt.Sprintf("%s, got %q", msg, clip(rec[i])), allowed)
}

// clip shortens a value quoted in an error message to a readable length.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func (s *traceSource) Next() (Arrival, bool) {
	if s.err != nil {
		return Arrival{}, false
	}
	rec, err := s.r.Read()
	if err == io.EOF {
		if s.count == 0 {
			s.err = inputerr.New(s.name, 0, 0, "", "trace has a header but no tasks", "one row per task")
		}
		return Arrival{}, false
	}
	if err != nil {
		s.err = s.csvError(err)
		return Arrival{}, false
	}
	var a Arrival
	at, err := strconv.ParseFloat(strings.TrimSpace(rec[s.col["arrival_s"]]), 64)
	if err != nil || math.IsNaN(at) || math.IsInf(at, 0) || at < 0 {
		s.err = s.fieldErr(rec, "arrival_s", "must be a number of seconds >= 0", "seconds from the start of the run")
		return Arrival{}, false
	}
	if at > MaxSeconds {
		s.err = s.fieldErr(rec, "arrival_s", "is more than 100 years", "seconds from the start of the run, at most 3153600000")
		return Arrival{}, false
	}
	a.At = seconds(at)
	if a.At < s.last {
		s.err = s.fieldErr(rec, "arrival_s", fmt.Sprintf("out of order: before the previous row's %gs", s.last.Seconds()), "rows sorted by arrival_s")
		return Arrival{}, false
	}
	svc, err := strconv.ParseFloat(strings.TrimSpace(rec[s.col["service_s"]]), 64)
	if err != nil || math.IsNaN(svc) || math.IsInf(svc, 0) || svc < 0 {
		s.err = s.fieldErr(rec, "service_s", "must be a number of seconds >= 0", "seconds")
		return Arrival{}, false
	}
	if svc > MaxSeconds {
		s.err = s.fieldErr(rec, "service_s", "is more than 100 years", "seconds, at most 3153600000")
		return Arrival{}, false
	}
	a.Service = seconds(svc)
	if i, ok := s.col["cpu_s"]; ok {
		cpu, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
		if err != nil || math.IsNaN(cpu) || cpu < 0 || seconds(cpu) > a.Service {
			s.err = s.fieldErr(rec, "cpu_s", "must be a number of seconds between 0 and service_s", "the part of service_s that needs a CPU (host.cpus), run first")
			return Arrival{}, false
		}
		s.split = Split{CPU: seconds(cpu), Slices: 1}
	}
	if i, ok := s.col["priority"]; ok {
		p, err := strconv.ParseInt(strings.TrimSpace(rec[i]), 10, 32)
		if err != nil {
			s.err = s.fieldErr(rec, "priority", "must be an integer", "a 32-bit integer; lower runs first")
			return Arrival{}, false
		}
		a.Priority = int32(p)
	}
	if i, ok := s.col["fail"]; ok {
		switch strings.ToLower(strings.TrimSpace(rec[i])) {
		case "1", "true", "yes":
			a.Fails = true
		case "0", "false", "no", "":
		default:
			s.err = s.fieldErr(rec, "fail", "must be 0 or 1", "1/true = the task throws, 0/false/empty = it does not")
			return Arrival{}, false
		}
	} else if s.failure > 0 {
		a.Fails = s.failures.Float64() < s.failure
	}
	s.last = a.At
	s.count++
	return a, true
}

func (s *traceSource) Err() error { return s.err }

func (s *traceSource) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// Extent reads a source to its end, in constant memory, and closes it: it
// returns how many tasks it holds, when the last of them would end (arrival
// plus service), or its first error (with file, line and column). Loaders
// use it so that a run never starts on a broken trace or log.
func Extent(src Source) (n int, lastEnd time.Duration, err error) {
	defer src.Close()
	for {
		a, ok := src.Next()
		if !ok {
			return n, lastEnd, src.Err()
		}
		n++
		if e := a.At + a.Service; e > lastEnd {
			lastEnd = e
		}
	}
}

// CheckTrace is Extent of the trace at path.
func CheckTrace(path string) (n int, lastEnd time.Duration, err error) {
	src, err := OpenTrace(path, 0, 0)
	if err != nil {
		return 0, 0, err
	}
	return Extent(src)
}

package scenarios

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/internal/textlimit"
	"github.com/poolsim/poolsim/workloads"
)

// readSamples reads one column of service times (seconds) from a CSV file
// with a header.
func readSamples(path, column string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("cannot open samples: %v", err), "")
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, inputerr.New(path, 0, 0, "", "cannot open samples: is a directory", "")
	}
	r := csv.NewReader(textlimit.Lines(f, textlimit.MaxLine))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, inputerr.New(path, 1, 0, "", "no header", fmt.Sprintf("a CSV file with a %q column", column))
	}
	if err != nil {
		return nil, samplesError(path, err)
	}
	idx := -1
	for i, h := range header {
		if strings.TrimSpace(h) == column {
			idx = i
		}
	}
	if idx < 0 {
		return nil, inputerr.New(path, 1, 0, column, "column not found", "columns: "+strings.Join(header, ", "))
	}
	var out []float64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, samplesError(path, err)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[idx]), 64)
		line, col := r.FieldPos(idx)
		if err != nil || v < 0 || v != v || v > workloads.MaxSeconds {
			return nil, inputerr.New(path, line, col, column, fmt.Sprintf("not a service time: %q", clip(rec[idx])), "seconds from 0 to 3153600000 (100 years)")
		}
		if len(out) == maxSamples {
			return nil, inputerr.New(path, line, 0, column, fmt.Sprintf("more than %d samples", maxSamples), "a sample of the service times, not all of them")
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, inputerr.New(path, 0, 0, column, "no samples", "one service time in seconds per row")
	}
	return out, nil
}

// maxSamples bounds an empirical law's samples (128 MB of them).
const maxSamples = 1 << 24

// samplesError turns a failed read of a samples file into an input error.
func samplesError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return inputerr.New(path, pe.Line, pe.Column, "", "malformed CSV: "+pe.Err.Error(), "")
	}
	var le *textlimit.LineError
	if errors.As(err, &le) {
		return inputerr.New(path, le.Line, 0, "", fmt.Sprintf("line longer than %d bytes", le.Max), "a CSV column of service times")
	}
	return inputerr.New(path, 0, 0, "", fmt.Sprintf("cannot read samples: %v", unwrapPath(err)), "")
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

package output

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/atomicfile"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// RunOptions say what WriteRun writes besides the contract's files.
type RunOptions struct {
	// Plots also writes the run's charts (see Charts) into the directory.
	Plots bool
}

// DirError is an output directory that cannot be created. The CLI reports
// it as bad input for --out.
type DirError struct {
	Dir string
	Err error
}

func (e *DirError) Error() string {
	return fmt.Sprintf("%s: cannot create the output directory: %v", e.Dir, e.Err)
}

// Unwrap returns why the directory could not be created.
func (e *DirError) Unwrap() error { return e.Err }

// DirName makes a scenario name safe as a directory name: every character
// but ASCII letters, digits, '-', '_' and '.' becomes '_', and a name left
// empty, "." or ".." becomes "scenario".
func DirName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 || b.String() == "." || b.String() == ".." {
		return "scenario"
	}
	return b.String()
}

// file is one output written whole by atomicfile.
type file struct {
	name  string
	write func(io.Writer) error
}

// WriteRun runs sc and writes its outputs into dir, creating it if needed,
// and returns the run's result and the names of the files written.
//
// The timeline and snapshots stream to temporary files beside their targets
// as the run goes, so memory does not grow with the run's length (unless
// opt.Plots, which keeps the timeline to draw it). The other files are
// written beside them once the run is over, and all are synced together and
// renamed into place only when complete (internal/atomicfile.Batch);
// summary.json — the file that says whether the run is complete — is
// removed before the first rename and renamed last: a run killed while
// writing never leaves a summary that describes other files. A run that
// fails (bad input found while running) leaves the old outputs as they
// were. A run cut short by ctx or a limit writes what it has, marked
// "complete": false; the caller tells from the result (Summary.Interrupted,
// Complete).
func WriteRun(ctx context.Context, dir string, sc *scenarios.Scenario, opt RunOptions) (*sim.Result, []string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, &DirError{Dir: dir, Err: err}
	}
	var timeline *bytes.Buffer
	if opt.Plots {
		timeline = new(bytes.Buffer)
	}
	var batch atomicfile.Batch
	defer batch.Abort()
	res, err := simulateInto(ctx, &batch, dir, sc, timeline)
	if err != nil {
		return nil, nil, err
	}
	written := []string{"timeline.csv", "summary.json", "perf.json"}
	if len(sc.Snapshots) > 0 {
		written = append(written, "snapshots.txt")
	}
	files := []file{{"perf.json", func(w io.Writer) error { return sim.WriteJSON(w, res.Perf) }}}
	for _, d := range res.VTDumps {
		// A virtual-thread run's snapshots, as jcmd Thread.dump_to_file
		// -format=json writes them (sim/vtdump.go).
		name := "threaddump-" + strconv.FormatFloat(d.At.Seconds(), 'f', -1, 64) + "s.json"
		files = append(files, file{name, bytesFile(d.JSON)})
		written = append(written, name)
	}
	if opt.Plots {
		charts, err := chartsFromCSV(sc, res, timeline.Bytes())
		if err != nil {
			return nil, nil, err
		}
		for _, ch := range charts {
			files = append(files, file{ch.File, bytesFile(ch.PNG)})
			written = append(written, ch.File)
		}
	}
	files = append(files, file{"summary.json", func(w io.Writer) error { return sim.WriteJSON(w, res.Summary) }})
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		w, err := batch.Create(path)
		if err == nil {
			err = f.write(w)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err := batch.Commit(); err != nil {
		return nil, nil, fmt.Errorf("writing %s: %w", dir, err)
	}
	return res, written, nil
}

// simulateInto runs sc with timeline.csv (and snapshots.txt, if sc takes
// snapshots) streamed into files of batch in dir, copying the timeline into
// tee if it is not nil, and removes summary.json once the run is over,
// before anything of batch is renamed into place.
func simulateInto(ctx context.Context, batch *atomicfile.Batch, dir string, sc *scenarios.Scenario, tee *bytes.Buffer) (*sim.Result, error) {
	var snaps io.Writer
	if len(sc.Snapshots) > 0 {
		// Created first, renamed first, as when the timeline's write
		// enclosed the snapshots'.
		w, err := batch.Create(filepath.Join(dir, "snapshots.txt"))
		if err != nil {
			return nil, err
		}
		snaps = w
	}
	timeline, err := batch.Create(filepath.Join(dir, "timeline.csv"))
	if err != nil {
		return nil, err
	}
	if tee != nil {
		timeline = io.MultiWriter(timeline, tee)
	}
	res, err := sim.Run(ctx, sc, sim.Options{Timeline: timeline, Snapshots: snaps})
	if err != nil {
		return nil, err // the run failed: the old outputs stay
	}
	summaryPath := filepath.Join(dir, "summary.json")
	if err := os.Remove(summaryPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("writing %s: replacing %s: %w", dir, summaryPath, err)
	}
	return res, nil
}

// bytesFile writes b.
func bytesFile(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

// Simulated is how much virtual time the run covered: the scenario's
// duration, or less for a run cut short.
func Simulated(res *sim.Result) time.Duration {
	return time.Duration(math.Round(res.Summary.SimTime * 1e9))
}

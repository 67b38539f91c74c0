package output_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/plots"
	"github.com/poolsim/poolsim/scenarios"
)

func parse(t *testing.T, text string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse([]byte(text), filepath.Join(t.TempDir(), "s.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// writeFiles creates files (name → content) in dir; a name ending in "/"
// is a directory holding one file, so that nothing can replace it.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			p = filepath.Join(p, "keep")
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// listDir is dir's entries by name.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteRunFailureKeepsOldOutputs: a run that fails half-way (a trace
// row the run reaches is bad) leaves the previous run's files as they were,
// and no temporary file.
func TestWriteRunFailureKeepsOldOutputs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"trace.csv": "arrival_s,service_s\n0,1\n1,2\n"})
	sc, err := scenarios.Parse([]byte("name: t\nduration: 10s\npool: {core: 1, max: 1}\nworkload: {trace: trace.csv}\nsnapshots: [5s]\n"), filepath.Join(dir, "s.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Loading checked the trace; the run reads it again, as it is now.
	writeFiles(t, dir, map[string]string{"trace.csv": "arrival_s,service_s\n0,1\n1,-2\n"})
	out := filepath.Join(dir, "out")
	old := map[string]string{"timeline.csv": "old timeline\n", "summary.json": "{}\n", "snapshots.txt": "old\n"}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, out, old)
	if _, _, err := output.WriteRun(context.Background(), out, sc, output.RunOptions{}); err == nil || !strings.Contains(err.Error(), "service_s") {
		t.Fatalf("err = %v, want the bad trace row", err)
	}
	if got := listDir(t, out); !slices.Equal(got, []string{"snapshots.txt", "summary.json", "timeline.csv"}) {
		t.Errorf("files after a failed run: %v", got)
	}
	for name, text := range old {
		if b, _ := os.ReadFile(filepath.Join(out, name)); string(b) != text {
			t.Errorf("%s changed: %q", name, b)
		}
	}
}

// TestWriteRunSummaryLast: summary.json goes before any file is replaced
// and comes back last. A summary.json that cannot be removed stops the run
// before the timeline is replaced; a perf.json that cannot be replaced
// leaves the directory without a summary.
func TestWriteRunSummaryLast(t *testing.T) {
	sc := parse(t, small)
	out := t.TempDir()
	writeFiles(t, out, map[string]string{"timeline.csv": "old\n", "summary.json/": ""})
	if _, _, err := output.WriteRun(context.Background(), out, sc, output.RunOptions{}); err == nil || !strings.Contains(err.Error(), "replacing") {
		t.Fatalf("err = %v, want the summary that cannot be replaced", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "timeline.csv")); string(b) != "old\n" {
		t.Errorf("the timeline was replaced although the old summary stayed")
	}

	out = t.TempDir()
	writeFiles(t, out, map[string]string{"summary.json": "{}\n", "perf.json/": ""})
	if _, _, err := output.WriteRun(context.Background(), out, sc, output.RunOptions{}); err == nil || !strings.Contains(err.Error(), "perf.json") {
		t.Fatalf("err = %v, want perf.json that cannot be replaced", err)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("summary.json beside a new timeline and an old perf.json: %v", err)
	}
}

// TestWriteRunPlots: --plots writes exactly the charts Charts draws from
// the timeline.csv written, and lists every file it wrote.
func TestWriteRunPlots(t *testing.T) {
	sc := parse(t, small)
	out := t.TempDir()
	res, written, err := output.WriteRun(context.Background(), out, sc, output.RunOptions{Plots: true})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(written))
	if want := listDir(t, out); !slices.Equal(got, want) {
		t.Errorf("written %v, directory holds %v", got, want)
	}
	tl, err := plots.ReadTimelineFile(filepath.Join(out, "timeline.csv"))
	if err != nil {
		t.Fatal(err)
	}
	charts, err := output.Charts(sc, res, tl)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range charts {
		if b, _ := os.ReadFile(filepath.Join(out, ch.File)); !bytes.Equal(b, ch.PNG) {
			t.Errorf("%s differs from what Charts draws", ch.File)
		}
	}
}

// TestWriteRunDirError: a directory that cannot be created is a DirError.
func TestWriteRunDirError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"afile": ""})
	_, _, err := output.WriteRun(context.Background(), filepath.Join(dir, "afile", "out"), parse(t, small), output.RunOptions{})
	var de *output.DirError
	if !errors.As(err, &de) || de.Dir != filepath.Join(dir, "afile", "out") {
		t.Fatalf("err = %v, want a DirError", err)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n++; f.n > 2 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestWriteTextWriteError: a writer that fails is reported, not ignored.
func TestWriteTextWriteError(t *testing.T) {
	sc := parse(t, small)
	res, written, err := output.WriteRun(context.Background(), t.TempDir(), sc, output.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := output.WriteText(&failWriter{}, sc, res, "OUT", written); err == nil || err.Error() != "disk full" {
		t.Errorf("err = %v, want disk full", err)
	}
}

// TestWriteReport: the page and the charts beside it, a scenario given
// twice told apart by position, and the scenarios passed in unchanged.
func TestWriteReport(t *testing.T) {
	a, b := parse(t, small), parse(t, small)
	out := filepath.Join(t.TempDir(), "r")
	files, err := output.WriteReport(context.Background(), out, []*scenarios.Scenario{a, b}, output.ReportOptions{Title: "twice"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "small burst" || b.Name != "small burst" {
		t.Errorf("the scenarios were renamed: %q, %q", a.Name, b.Name)
	}
	page, err := os.ReadFile(files.Page)
	if err != nil || len(page) != files.Size || files.Page != filepath.Join(out, "report.html") {
		t.Fatalf("page %s of %d bytes: read %d bytes, %v", files.Page, files.Size, len(page), err)
	}
	for _, want := range []string{"<title>twice</title>", "small burst #2", "Why TIMED_WAITING"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	var names []string
	for _, c := range files.Charts {
		names = append(names, filepath.Base(c))
	}
	want := []string{"01-small_burst-threads.png", "01-small_burst-queue.png", "01-small_burst-wait.png",
		"02-small_burst__2-threads.png", "02-small_burst__2-queue.png", "02-small_burst__2-wait.png"}
	if !slices.Equal(names, want) {
		t.Errorf("charts %v, want %v", names, want)
	}
	if got := listDir(t, out); len(got) != len(want)+1 {
		t.Errorf("directory holds %v", got)
	}
}

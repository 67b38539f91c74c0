package plots

import (
	"math"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
)

const hdr9 = "t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected"

func TestReadTimelineGood(t *testing.T) {
	if RequiredHeader != hdr9 { // the contract's text, CONTRACT.md §2
		t.Fatalf("RequiredHeader = %q, want the contract's %q", RequiredHeader, hdr9)
	}
	in := hdr9 + ",core,max,wait_p99_s,mystery,notes,run_state\n" +
		"1,10,2,0,8,0,5,3,0,10,2147483647,0.25,7.5,hello,RUNNING\n" +
		"2,12,12,2,0,3,20,8,1,10,2147483647,,x,,SHUTDOWN\n"
	tl, err := ReadTimeline(strings.NewReader(in))
	if err != nil {
		t.Fatalf("ReadTimeline: %v", err)
	}
	if tl.Len() != 2 || tl.T[1] != 2 || tl.Busy[1] != 12 || tl.Rejected[1] != 1 || tl.QueueLen[1] != 3 {
		t.Errorf("required columns read wrong: %+v", tl)
	}
	if got := tl.Extra["max"][0]; got != Unbounded {
		t.Errorf("max = %v, want %v", got, Unbounded)
	}
	if w := tl.Extra["wait_p99_s"]; w[0] != 0.25 || !math.IsNaN(w[1]) {
		t.Errorf("wait_p99_s = %v, want [0.25 NaN] (empty cell = no task started)", w)
	}
	// Unknown columns are kept: numbers where they parse, NaN elsewhere.
	if m := tl.Extra["mystery"]; m[0] != 7.5 || !math.IsNaN(m[1]) {
		t.Errorf("mystery = %v, want [7.5 NaN]", m)
	}
	if n := tl.Extra["notes"]; !math.IsNaN(n[0]) || !math.IsNaN(n[1]) {
		t.Errorf("notes = %v, want NaN (not numbers)", n)
	}
	if strings.Join(tl.RunState, ",") != "RUNNING,SHUTDOWN" {
		t.Errorf("run_state = %v", tl.RunState)
	}
	if strings.Join(tl.ExtraNames, ",") != "core,max,wait_p99_s,mystery,notes" {
		t.Errorf("ExtraNames = %v, want header order without run_state", tl.ExtraNames)
	}
	if c, ok := tl.Column("queue_len"); !ok || c[1] != 3 {
		t.Errorf("Column(queue_len) = %v, %v", c, ok)
	}
	if _, ok := tl.Column("nope"); ok {
		t.Errorf("Column(nope) found")
	}
}

func TestReadTimelineErrors(t *testing.T) {
	const row = "1,1,1,0,0,0,1,0,0"
	tests := []struct {
		name, in string
		want     string // prefix of the error text: FILE:LINE:COL: KEY: ...
	}{
		// Nothing at all: the header is missing.
		{"empty", "", "timeline.csv:1: empty file"},
		// A header and no rows: nothing to draw.
		{"header only", hdr9 + "\n", "timeline.csv:2: no samples"},
		// A contract column renamed: strict about the first nine.
		{"renamed", strings.Replace(hdr9, "busy", "active", 1) + "\n" + row + "\n", "timeline.csv:1:15: busy: header column 3 is \"active\""},
		// Two contract columns swapped.
		{"swapped", "t_s,busy,pool_size,idle_timed,idle_untimed,queue_len,submitted,completed,rejected\n" + row + "\n", "timeline.csv:1:5: pool_size: header column 2"},
		// Header shorter than the nine contract columns.
		{"short header", "t_s,pool_size,busy\n1,1,1\n", "timeline.csv:1: idle_timed: header ends after 3 columns"},
		// The same extra column twice.
		{"duplicate", hdr9 + ",core,core\n" + row + ",1,1\n", "timeline.csv:1:88: core: column name repeated"},
		// Not a number, located by line and column.
		{"not a number", hdr9 + "\n" + row + "\n2,1,x,0,0,0,1,0,0\n", "timeline.csv:3:5: busy: \"x\" is not a number"},
		// Negative count.
		{"negative", hdr9 + "\n1,1,1,0,0,-1,1,0,0\n", "timeline.csv:2:11: queue_len: -1 is negative"},
		// Fractional count.
		{"fractional", hdr9 + "\n1,1.5,1,0,0,0,1,0,0\n", "timeline.csv:2:3: pool_size: 1.5 is not a whole number"},
		// Empty count cell (only wait/response cells may be empty).
		{"empty count", hdr9 + "\n1,,1,0,0,0,1,0,0\n", "timeline.csv:2:3: pool_size: empty cell"},
		// Empty cell in a known optional count column.
		{"empty core", hdr9 + ",core\n" + row + ",\n", "timeline.csv:2:19: core: empty cell"},
		// Infinite time.
		{"inf", hdr9 + "\nInf,1,1,0,0,0,1,0,0\n", "timeline.csv:2:1: t_s: \"Inf\" is not a number"},
		// Time going backwards.
		{"backwards", hdr9 + "\n2,1,1,0,0,0,1,0,0\n1,1,1,0,0,0,1,0,0\n", "timeline.csv:3:1: t_s: time 1 goes backwards"},
		// Unknown run state.
		{"state", hdr9 + ",run_state\n" + row + ",PAUSED\n", "timeline.csv:2:19: run_state: unknown run state \"PAUSED\" (RUNNING | SHUTDOWN"},
		// A row with a missing cell.
		{"ragged", hdr9 + "\n1,1,1,0,0,0,1,0\n", "timeline.csv:2:1: row has a different number of cells"},
		// Broken quoting.
		{"quote", hdr9 + "\n1,\"1,1,0,0,0,1,0,0\n", "timeline.csv:2:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTimeline(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !inputerr.Is(err) {
				t.Errorf("error %T is not an inputerr: %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}

func TestReadTimelineFileNamesPath(t *testing.T) {
	p := t.TempDir() + "/run/timeline.csv"
	if _, err := ReadTimelineFile(p); err == nil || !strings.Contains(err.Error(), "plots: read timeline") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestTimelineCheck(t *testing.T) {
	good := func() *Timeline {
		one := []float64{1}
		return &Timeline{T: one, PoolSize: one, Busy: one, IdleTimed: one, IdleUntimed: one, QueueLen: one, Submitted: one, Completed: one, Rejected: one}
	}
	tests := []struct {
		name string
		mod  func(*Timeline)
		want string
	}{
		// A hand-built timeline that is fine.
		{"ok", func(*Timeline) {}, ""},
		// Nil timeline.
		{"nil", nil, "timeline has no samples"},
		// Column length mismatch.
		{"short", func(tl *Timeline) { tl.Busy = nil }, "column busy has 0 values"},
		// NaN in a required column.
		{"nan", func(tl *Timeline) { tl.QueueLen = []float64{math.NaN()} }, "column queue_len: sample 0 is NaN"},
		// Extra column of the wrong length.
		{"extra", func(tl *Timeline) {
			tl.ExtraNames = []string{"core"}
			tl.Extra = map[string][]float64{"core": {1, 2}}
		}, "column core has 2 values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tl *Timeline
			if tc.mod != nil {
				tl = good()
				tc.mod(tl)
			}
			err := tl.check()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("check() = %v, want %q", err, tc.want)
			}
		})
	}
}

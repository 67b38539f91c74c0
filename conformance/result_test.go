package conformance

import (
	"math"
	"strings"
	"testing"
)

// sampleOutput is a harness output with every section, as the harness prints it.
const sampleOutput = `# poolsim conformance harness, kind=jdk, java 17.0.19
# sample,t_ms,pool_size,busy,idle_timed,idle_untimed,queue_len,completed,rejected,largest,busy_counter,active,other,submitted_count,late_ms
sample,50,5,5,0,0,0,0,0,5,5,5,0,-1,0.4
sample,300,5,0,5,0,0,5,1,5,0,0,0,-1,0.3
# task,id,worker,submit_ms,start_ms,end_ms,outcome,note
task,1,1,7.5,12.0,112.2,pool,
task,2,0,11.5,12.7,112.8,caller,failed
task,3,-1,12.1,,,drained,
task,4,1,13.0,300.0,,pool,unfinished;interrupted
# worker,index,created_ms,exited_ms,name
worker,1,7.5,1112.6,pool-4-thread-1
worker,2,11.5,,pool-4-thread-2
# event,at_ms,actual_ms,kind,detail
event,100,100.2,set,core=3 max=4
event,200,,shutdownNow,
event,1700,1700.5,end,drained=1
# timing,key,value
timing,max_lateness_ms,7.5
timing,java_version,17.0.19
warning,something odd; with a semicolon
`

func TestParseOutput(t *testing.T) {
	res, err := ParseOutput(strings.NewReader(sampleOutput))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 2 || len(res.Tasks) != 4 || len(res.Workers) != 2 || len(res.Events) != 3 || len(res.Warnings) != 1 {
		t.Fatalf("sections: %d samples %d tasks %d workers %d events %d warnings",
			len(res.Samples), len(res.Tasks), len(res.Workers), len(res.Events), len(res.Warnings))
	}
	wantSample := Sample{TMs: 300, PoolSize: 5, IdleTimed: 5, Completed: 5, Rejected: 1, Largest: 5, SubmittedCount: -1, LateMs: 0.3}
	if s, ok := res.Sample(300); !ok || s != wantSample {
		t.Errorf("sample 300 = %+v, want %+v", s, wantSample)
	}
	if tk, _ := res.Task(2); tk.Worker != 0 || tk.Outcome != OutcomeCaller || !tk.Failed || tk.SubmitMs != 11.5 {
		t.Errorf("task 2 = %+v", tk)
	}
	if tk, _ := res.Task(3); tk.Worker != -1 || tk.Outcome != OutcomeDrained || !math.IsNaN(tk.StartMs) || !math.IsNaN(tk.EndMs) {
		t.Errorf("task 3 = %+v", tk)
	}
	if tk, _ := res.Task(4); !tk.Unfinished || !tk.Interrupted || tk.Failed {
		t.Errorf("task 4 = %+v", tk)
	}
	if res.Workers[0].Alive() || !res.Workers[1].Alive() || res.Workers[0].ExitedMs != 1112.6 || res.Workers[1].Name != "pool-4-thread-2" {
		t.Errorf("workers = %+v", res.Workers)
	}
	if e := res.Events[0]; e.AtMs != 100 || e.ActualMs != 100.2 || e.Kind != "set" || e.Detail != "core=3 max=4" {
		t.Errorf("event 0 = %+v", e)
	}
	if !math.IsNaN(res.Events[1].ActualMs) {
		t.Errorf("event 1 happened at %v, want NaN", res.Events[1].ActualMs)
	}
	if res.MaxLatenessMs != 7.5 || res.Timing["java_version"] != "17.0.19" || res.TimingMs("max_lateness_ms") != 7.5 {
		t.Errorf("timing: %v %v", res.MaxLatenessMs, res.Timing)
	}
	if !math.IsNaN(res.TimingMs("java_version")) || !math.IsNaN(res.TimingMs("absent")) {
		t.Errorf("TimingMs of a non-number should be NaN")
	}
	if res.Output != sampleOutput {
		t.Errorf("Output does not keep the text")
	}
}

func TestParseOutputErrors(t *testing.T) {
	const timing = "timing,max_lateness_ms,1.0\n"
	cases := []struct {
		name, text, want string
	}{
		// A section the parser does not know: the two sides are out of step.
		{"unknown section", "bogus,1\n" + timing, "line 1: unknown section"},
		// A sample line with a column missing.
		{"short sample", "sample,50,5,5,0,0,0,0,0,5,5,5,0,-1\n" + timing, "want 15 fields"},
		// A count that is not an integer.
		{"bad count", "sample,50,x,5,0,0,0,0,0,5,5,5,0,-1,0.4\n" + timing, "pool_size"},
		// An outcome the contract does not list.
		{"bad outcome", "task,1,1,1.0,2.0,3.0,lost,\n" + timing, "unknown outcome"},
		// A note the contract does not list.
		{"bad note", "task,1,1,1.0,2.0,3.0,pool,sleepy\n" + timing, "unknown note"},
		// A bad time.
		{"bad time", "worker,1,abc,,pool-1-thread-1\n" + timing, "created_ms"},
		// Output cut short before the timing section.
		{"truncated", "sample,50,5,5,0,0,0,0,0,5,5,5,0,-1,0.4\n", "no timing,max_lateness_ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseOutput(strings.NewReader(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "conformance: parse output") {
				t.Errorf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestParseInputError checks that the harness's error line is read back into its parts.
func TestParseInputError(t *testing.T) {
	cases := []struct {
		line              string
		ln, col           int
		key, msg, allowed string
	}{
		// All parts.
		{"script:3:8: at: at=4 is earlier than at=5 on line 2 (timed directives in time order)", 3, 8, "at", "at=4 is earlier than at=5 on line 2", "timed directives in time order"},
		// No column, no allowed part.
		{"script:2: set: changes nothing", 2, 0, "set", "changes nothing", ""},
		// No line: an error about the whole file.
		{"script: end: missing (end at=MS after the last event)", 0, 0, "end", "missing", "end at=MS after the last event"},
	}
	for _, c := range cases {
		ie := parseInputError(c.line + "\n")
		if ie.File != scriptName || ie.Line != c.ln || ie.Col != c.col || ie.Key != c.key || ie.Msg != c.msg || ie.Allowed != c.allowed {
			t.Errorf("%q parsed as %+v", c.line, *ie)
		}
		if ie.Error() != c.line {
			t.Errorf("%q prints back as %q", c.line, ie.Error())
		}
	}
}

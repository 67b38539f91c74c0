package conformance

import (
	"context"
	"fmt"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// stringCases are scripts and their text. accepted says whether the harness takes the script:
// String writes what it is given and leaves validation to the harness.
var stringCases = []struct {
	name     string
	s        Script
	want     string
	accepted bool
}{
	{
		// Only keepAliveMs is written when zero; the harness's defaults fill the rest.
		name:     "minimal jdk",
		s:        Script{Pool: Pool{Kind: KindJDK, Core: 1, Max: 2}, EndMs: 10},
		want:     "pool kind=jdk core=1 max=2 keepAliveMs=0\nend at=10\n",
		accepted: true,
	},
	{
		// Every pool key, with Unbounded printed as such; the harness refuses fair=true on
		// a linked queue.
		name: "every pool key",
		s: Script{Pool: Pool{Kind: KindJDK, Core: 0, Max: Unbounded, KeepAliveMs: 60000, Queue: QueueLinked,
			Capacity: Unbounded, Fair: true, Rejection: RejectCallerRuns, AllowCoreThreadTimeOut: true, Prestart: true}, EndMs: 1},
		want: "pool kind=jdk core=0 max=unbounded keepAliveMs=60000 queue=linked capacity=unbounded fair=true " +
			"rejection=caller-runs allowCoreThreadTimeOut=true prestart=true\nend at=1\n",
		accepted: false,
	},
	{
		// Directives are merged in time order; at equal times submits, then sets, then
		// shutdowns (M3), each in slice order.
		name: "time order and ties",
		s: Script{
			Pool: Pool{Kind: KindTomcat, Core: 2, Max: 4, KeepAliveMs: 100, Capacity: 5},
			Submits: []Submit{{AtMs: 0, ID: 1, ServiceMs: 5}, {AtMs: 50, ID: 2, ServiceMs: 5, Fail: true},
				{AtMs: 50, ID: 3, ServiceMs: 5}},
			Sets:      []Set{{AtMs: 50, Changes: []Change{SetMax(Unbounded), SetCore(3)}}, {AtMs: 20, Changes: []Change{SetKeepAliveMs(7)}}},
			Shutdowns: []Shutdown{{AtMs: 50}, {AtMs: 60, Now: true}},
			EndMs:     100,
		},
		want: "pool kind=tomcat core=2 max=4 keepAliveMs=100 capacity=5\n" +
			"submit at=0 id=1 serviceMs=5\n" +
			"set at=20 keepAliveMs=7\n" +
			"submit at=50 id=2 serviceMs=5 fail=true\n" +
			"submit at=50 id=3 serviceMs=5\n" +
			"set at=50 max=unbounded core=3\n" +
			"shutdown at=50\n" +
			"shutdownNow at=60\n" +
			"end at=100\n",
		accepted: true,
	},
	{
		// Priorities, both sample forms, and allowCoreThreadTimeOut as a setter.
		name: "priority and samples",
		s: Script{
			Pool:    Pool{Kind: KindJDK, Core: 1, Max: 1, KeepAliveMs: 10, Queue: QueuePriority},
			Submits: []Submit{{AtMs: 5, ID: 9, ServiceMs: 1, Priority: -3}},
			Sets:    []Set{{AtMs: 6, Changes: []Change{SetAllowCoreThreadTimeOut(true)}}},
			Samples: Samples{EveryMs: 10, FromMs: 5, UntilMs: 45, AtMs: []int64{7, 8}},
			EndMs:   50,
		},
		want: "pool kind=jdk core=1 max=1 keepAliveMs=10 queue=priority\n" +
			"submit at=5 id=9 serviceMs=1 priority=-3\n" +
			"set at=6 allowCoreThreadTimeOut=true\n" +
			"sample every=10 from=5 until=45\n" +
			"sample at=7,8\n" +
			"end at=50\n",
		accepted: true,
	},
	{
		// Jetty: only the keys it has.
		name:     "jetty",
		s:        Script{Pool: Pool{Kind: KindJetty, Core: 2, Max: 20, KeepAliveMs: 500}, EndMs: 9},
		want:     "pool kind=jetty core=2 max=20 keepAliveMs=500\nend at=9\n",
		accepted: true,
	},
}

// TestScriptString checks the text rendering of scripts, which is the harness's input.
func TestScriptString(t *testing.T) {
	for _, c := range stringCases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.s.String(); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestHarnessAcceptsRenderedScripts checks that the harness reads what String writes.
func TestHarnessAcceptsRenderedScripts(t *testing.T) {
	Require(t)
	scripts := make([]Script, len(stringCases))
	for i, c := range stringCases {
		scripts[i] = c.s
	}
	errs, err := CheckAll(context.Background(), scripts)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range stringCases {
		t.Run(c.name, func(t *testing.T) {
			err := errs[i]
			if c.accepted && err != nil {
				t.Errorf("Check: %v", err)
			}
			if !c.accepted && !inputerr.Is(err) {
				t.Errorf("Check = %v, want an input error", err)
			}
		})
	}
}

func ExampleScript_String() {
	s := Script{
		Pool:    Pool{Kind: KindJDK, Core: 2, Max: 4, KeepAliveMs: 300, Queue: QueueLinked, Capacity: 2},
		Submits: []Submit{{AtMs: 0, ID: 1, ServiceMs: 500}, {AtMs: 0, ID: 2, ServiceMs: 500}},
		Sets:    []Set{{AtMs: 100, Changes: []Change{SetCore(3)}}},
		Samples: Samples{EveryMs: 100, FromMs: 50, UntilMs: 950},
		EndMs:   1000,
	}
	fmt.Print(s)
	// Output:
	// pool kind=jdk core=2 max=4 keepAliveMs=300 queue=linked capacity=2
	// submit at=0 id=1 serviceMs=500
	// submit at=0 id=2 serviceMs=500
	// set at=100 core=3
	// sample every=100 from=50 until=950
	// end at=1000
}

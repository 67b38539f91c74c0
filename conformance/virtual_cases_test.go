package conformance

import (
	"time"
)

// virtualCase is one trace of TestVirtualThreadsMatchJDK25, with what the rules say of it.
type virtualCase struct {
	name, why string
	script    VirtualScript
	// pinned is true when a block step of the trace holds its carrier on JDK 25 (R135,
	// R136): then each such step must begin and end on the same carrier.
	pinned bool
	// contrast is the trace under the rule the case refutes (a block that unmounts instead
	// of pinning, or the reverse; two carriers instead of one): its simulation must differ
	// from every real run by more than the tolerance, so that the comparison can tell.
	contrast VirtualScript
}

// onJDK returns the script simulated under JDK version's rules.
func onJDK(version int, s VirtualScript) VirtualScript {
	s.Version = version
	return s
}

func vms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func compute(d int) VirtualStep { return VirtualStep{Compute: true, D: vms(d)} }

func block(in string, d int) VirtualStep { return VirtualStep{In: in, D: vms(d)} }

// unmountTrace is the trace of cases b)–d), f), g): with P = 2, tasks 1 and 2 compute 50 ms,
// block 200 ms in `in`, compute 50 ms; tasks 3 and 4 come at 20 ms and compute 100 ms. If the
// block unmounts (R133), 3 and 4 run on the freed carriers at 50–150 ms and 1 and 2 end at
// 300 ms; if it holds the carriers (pinned, or uncompensated file I/O), 3 and 4 wait until 1
// and 2 end at 300 ms and run 300–400 ms. Every decisive event is ≥ 50 ms from the next.
func unmountTrace(in string) VirtualScript {
	long := []VirtualStep{compute(50), block(in, 200), compute(50)}
	return VirtualScript{Parallelism: 2, End: vms(3000), Tasks: []VirtualTask{
		{At: 0, Steps: long}, {At: 0, Steps: long},
		{At: vms(20), Steps: []VirtualStep{compute(100)}}, {At: vms(20), Steps: []VirtualStep{compute(100)}},
	}}
}

// virtualCases are the traces, each run on the real JDK 25 and on poolsim.
var virtualCases = []virtualCase{
	{
		name: "a-P1-compute-FIFO-no-preemption",
		why:  "R131, R132: one carrier, FIFO, a mounted VT computes until it ends: 1 0–150, 2 150–200, 3 200–250, 4 250–300 ms",
		script: VirtualScript{Parallelism: 1, End: vms(3000), Tasks: []VirtualTask{
			{At: 0, Steps: []VirtualStep{compute(150)}},
			{At: vms(30), Steps: []VirtualStep{compute(50)}},
			{At: vms(60), Steps: []VirtualStep{compute(50)}},
			{At: vms(100), Steps: []VirtualStep{compute(50)}},
		}},
		contrast: VirtualScript{Parallelism: 2, End: vms(3000), Tasks: []VirtualTask{
			{At: 0, Steps: []VirtualStep{compute(150)}},
			{At: vms(30), Steps: []VirtualStep{compute(50)}},
			{At: vms(60), Steps: []VirtualStep{compute(50)}},
			{At: vms(100), Steps: []VirtualStep{compute(50)}},
		}},
	},
	{
		name:     "b-P2-sleep-unmounts",
		why:      "R133: Thread.sleep parks and frees the carrier: 3 and 4 run 50–150 ms while 1 and 2 sleep; 1 and 2 end at 300 ms",
		script:   unmountTrace(""),
		contrast: unmountTrace("native"),
	},
	{
		name:     "c-P2-synchronized-unmounts-on-25",
		why:      "R135 (JEP 491): a VT parking while it holds a monitor unmounts on 24+: as b); JDK 21's rule (pinned, R134) simulated on the same trace is refuted — it is not checked on a JDK 21, none is installable here",
		script:   unmountTrace("synchronized"),
		contrast: onJDK(21, unmountTrace("synchronized")),
	},
	{
		name:     "c2-P2-object-wait-unmounts-on-25",
		why:      "R135: Object.wait unmounts on 24+: as b); JDK 21's rule (held, compensated by Blocker, R134, R136) simulated on the same trace is refuted — not checked on a JDK 21",
		script:   unmountTrace("object-wait"),
		contrast: onJDK(21, unmountTrace("object-wait")),
	},
	{
		name:     "d-P2-native-frame-pins",
		why:      "R134, R135: a sleep inside an FFM upcall from qsort pins the carrier, no compensation: 3 and 4 wait and run 300–400 ms on the same 2 carriers",
		script:   unmountTrace("native"),
		contrast: unmountTrace(""),
		pinned:   true,
	},
	{
		name: "e-P2-clinit-pins",
		why:  "R135's measured example: 4 VTs each sleeping 300 ms in a different <clinit>, P = 2: two rounds, 1 and 2 0–300 ms, 3 and 4 300–600 ms, carriers stay at 2",
		script: VirtualScript{Parallelism: 2, End: vms(3000), Tasks: []VirtualTask{
			{At: 0, Steps: []VirtualStep{block("clinit", 300)}}, {At: 0, Steps: []VirtualStep{block("clinit", 300)}},
			{At: 0, Steps: []VirtualStep{block("clinit", 300)}}, {At: 0, Steps: []VirtualStep{block("clinit", 300)}},
		}},
		pinned: true,
		contrast: VirtualScript{Parallelism: 2, End: vms(3000), Tasks: []VirtualTask{
			{At: 0, Steps: []VirtualStep{block("", 300)}}, {At: 0, Steps: []VirtualStep{block("", 300)}},
			{At: 0, Steps: []VirtualStep{block("", 300)}}, {At: 0, Steps: []VirtualStep{block("", 300)}},
		}},
	},
	{
		name:     "f-P2-file-io-held-uncompensated-on-25",
		why:      "R136: FileInputStream.read (of a named FIFO) holds the carrier on 25 and does not compensate: as d); JDK 21's rule (compensated) simulated on the same trace is refuted — not checked on a JDK 21",
		script:   unmountTrace("file-io"),
		contrast: onJDK(21, unmountTrace("file-io")),
		pinned:   true,
	},
}

package output_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/poolsim/poolsim/output"
	"github.com/poolsim/poolsim/plots"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sim"
)

// small is a scenario of two minutes: a burst that grows a Tomcat pool,
// then a trickle while the extra threads time out.
const small = `name: small burst
duration: 2m
warmup: 30s
sample: 1s
pool: {preset: tomcat, core: 2, max: 40, keepAlive: 5s}
workload:
  phases:
    - {duration: 20s, arrivals: {process: poisson, rate: 200}, service: {dist: constant, value: 100ms}}
    - {arrivals: {process: constant, rate: 2}, service: {dist: constant, value: 5ms}}
snapshots: [1m]
`

func ExampleDirName() {
	fmt.Println(output.DirName("tomcat: 121 / lifo"))
	fmt.Println(output.DirName(".."))
	// Output:
	// tomcat__121___lifo
	// scenario
}

// smallScenario is small, loaded.
func smallScenario() *scenarios.Scenario {
	sc, err := scenarios.Parse([]byte(small), "small.yaml", nil)
	if err != nil {
		panic(err) // small is valid
	}
	return sc
}

// tempDir is a fresh directory for an example's outputs.
func tempDir() string {
	dir, err := os.MkdirTemp("", "poolsim-example-")
	if err != nil {
		panic(err)
	}
	return dir
}

// runSmall runs small into a fresh directory as ExampleWriteRun shows.
func runSmall() (sc *scenarios.Scenario, res *sim.Result, dir string, written []string) {
	sc, dir = smallScenario(), tempDir()
	res, written, err := output.WriteRun(context.Background(), dir, sc, output.RunOptions{})
	if err != nil {
		panic(err)
	}
	return sc, res, dir, written
}

func ExampleWriteRun() {
	sc := smallScenario()
	dir := tempDir()
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, output.DirName(sc.Name))
	res, written, err := output.WriteRun(context.Background(), out, sc, output.RunOptions{Plots: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(written)
	s := res.Summary
	fmt.Println("complete:", res.Complete, "largest pool:", s.LargestPoolSize, "final pool:", s.FinalPoolSize)
	// Output:
	// [timeline.csv summary.json perf.json snapshots.txt threads.png queue.png wait.png]
	// complete: true largest pool: 39 final pool: 10
}

func ExampleCharts() {
	sc, res, dir, _ := runSmall()
	defer os.RemoveAll(dir)
	tl, err := plots.ReadTimelineFile(filepath.Join(dir, "timeline.csv"))
	if err != nil {
		fmt.Println(err)
		return
	}
	charts, err := output.Charts(sc, res, tl)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ch := range charts {
		fmt.Printf("%s: %s\n", ch.File, ch.Caption)
	}
	// Output:
	// threads.png: Threads by state over time: busy, idle in poll(keepAlive) (TIMED_WAITING), idle in take() (WAITING), with core and max
	// queue.png: Queue length and cumulative rejections over time
	// wait.png: Wait and response times: per-interval percentiles, and the steady-state distribution
}

func ExampleWriteText() {
	sc, res, dir, written := runSmall()
	defer os.RemoveAll(dir)
	var text bytes.Buffer
	if err := output.WriteText(&text, sc, res, "OUT", written); err != nil {
		fmt.Println(err)
		return
	}
	// The first line holds the wall time; the rest is the same every run.
	lines := bufio.NewScanner(&text)
	lines.Scan()
	fmt.Println(strings.SplitAfter(lines.Text(), "simulated")[0])
	for lines.Scan() {
		fmt.Println(lines.Text())
	}
	// Output:
	// small burst: 2m0s simulated
	//   pool      tomcat: core 2, max 40, keepAlive 5s, queue tomcat (capacity unbounded), rejection abort, prestart, hand-off FIFO
	//   tasks     4207 submitted: 4206 completed, 0 rejected; 0 queued and 1 running at the end
	//   threads   largest 39; at the end 10 (1 busy, 9 TIMED_WAITING, 0 WAITING); 39 created, 29 exited
	//   steady    (after warmup 30s) pool size mean 10 (max 10), busy 0.01, idle timed 9.99, idle untimed 0, queue 0 (max 0)
	//   wait      mean 0  p50 0  p90 0  p99 0  max 0
	//   response  mean 5ms  p99 5ms  max 5ms
	//   wrote     OUT/{timeline.csv,summary.json,perf.json,snapshots.txt}
}

func ExampleAnswer() {
	sc, res, dir, _ := runSmall()
	defer os.RemoveAll(dir)
	a := output.Answer(sc, res)
	fmt.Printf("(%s) %s\n", a.Tone, a.Verdict)
	for _, f := range a.Figures {
		fmt.Printf("%s: %s (%s)\n", f.Label, f.Value, f.Note)
	}
	// Output:
	// (warn) Mostly idle: the pool holds 10 workers for 0.01 busy on average, 9.99 of them TIMED_WAITING above core (2); a worker leaves only after keepAlive (5 s) without a task.
	// pool size: 10 (after the warmup (30 s); core 2, max 40)
	// busy: 0.01 (RUNNABLE, on average)
	// idle TIMED_WAITING: 9.99 (in poll(keepAlive): may time out)
	// idle WAITING: 0 (in take(): never time out)
	// p99 wait: 0 (max 0)
	// rejected: 0 (of 4,207 submitted)
	// threads created: 39 (29 exited; largest pool 39)
}

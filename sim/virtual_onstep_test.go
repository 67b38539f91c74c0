package sim

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestVirtualOnStep: Options.OnStep reports where each step of a task on a
// virtual thread ran. One carrier (P = 1), two tasks at 0, each computing
// 10 ms, blocking 20 ms, computing 5 ms. A plain block unmounts (R133):
// task 2 mounts at 10 while task 1 blocks, task 1's last step begins when
// its block is over at 30 (the carrier is free: task 2 blocks from 20).
// In a native frame the block pins (R134, R135): task 1 keeps the carrier
// to 35 and task 2 runs 35–70 (R132: FIFO, no preemption).
func TestVirtualOnStep(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", []string{
			"0 task 1 step 0 begin", "10 task 1 step 0 end", "10 task 1 step 1 begin",
			"10 task 2 step 0 begin", "20 task 2 step 0 end", "20 task 2 step 1 begin",
			"30 task 1 step 1 end", "30 task 1 step 2 begin", "35 task 1 step 2 end",
			"40 task 2 step 1 end", "40 task 2 step 2 begin", "45 task 2 step 2 end",
		}},
		{"native", []string{
			"0 task 1 step 0 begin", "10 task 1 step 0 end", "10 task 1 step 1 begin",
			"30 task 1 step 1 end", "30 task 1 step 2 begin", "35 task 1 step 2 end",
			"35 task 2 step 0 begin", "45 task 2 step 0 end", "45 task 2 step 1 begin",
			"65 task 2 step 1 end", "65 task 2 step 2 begin", "70 task 2 step 2 end",
		}},
	} {
		in := ""
		if c.in != "" {
			in = "\n        in: " + c.in
		}
		sc := parse(t, fmt.Sprintf(`duration: 1s
pool: {preset: virtual}
jvm: {parallelism: 1, version: 25}
workload:
  arrivals: {process: burst, count: 2}
  service:
    steps:
      - compute: {dist: constant, value: 10ms}
      - block: {dist: constant, value: 20ms}%s
      - compute: {dist: constant, value: 5ms}
`, in))
		var got []string
		_, err := Run(context.Background(), sc, Options{CheckInvariants: true, OnStep: func(e StepEvent) {
			what := "begin"
			if e.End {
				what = "end"
			}
			got = append(got, fmt.Sprintf("%d task %d step %d %s", e.T.Milliseconds(), e.TaskID, e.Step, what))
		}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("in %q: steps\n%q\nwant\n%q", c.in, got, c.want)
		}
	}
}

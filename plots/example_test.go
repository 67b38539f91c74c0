package plots_test

import (
	"bytes"
	"fmt"
	"image/png"
	"strings"

	"github.com/poolsim/poolsim/plots"
)

const exampleCSV = `t_s,pool_size,busy,idle_timed,idle_untimed,queue_len,submitted,completed,rejected,core,max,wait_p99_s,run_state
0,10,0,0,10,0,0,0,0,10,800,,RUNNING
600,200,180,20,0,35,5200,4985,0,10,800,0.8,RUNNING
1200,121,1,120,0,0,5440,5439,0,20,400,0.001,RUNNING
`

func ExampleReadTimeline() {
	tl, err := plots.ReadTimeline(strings.NewReader(exampleCSV))
	if err != nil {
		fmt.Println(err)
		return
	}
	wait, _ := tl.Column("wait_p99_s")
	fmt.Println(tl.Len(), "samples; pool", tl.PoolSize, "; wait p99", wait)
	// Output: 3 samples; pool [10 200 121] ; wait p99 [NaN 0.8 0.001]
}

func ExampleComputeThreadSeries() {
	tl, _ := plots.ReadTimeline(strings.NewReader(exampleCSV))
	s, err := plots.ComputeThreadSeries(tl, []plots.Event{{AtS: 900, Label: "set core=20 max=400"}}, 1200)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range s.Bands {
		fmt.Printf("%-36s top %v\n", b.Name, b.Upper)
	}
	fmt.Println("core", s.Core, "time unit", s.Time.Name)
	fmt.Println(s.MaxLabel, s.MaxDrawn, s.Events)
	// Output:
	// busy                                 top [{0 0} {10 180} {20 1}]
	// idle TIMED_WAITING (poll keepAlive)  top [{0 0} {10 200} {20 121}]
	// idle WAITING (take)                  top [{0 10} {10 200} {20 121}]
	// core [[{0 10} {20 10} {20 20}]] time unit min
	// max 400–800 (above the scale) false [{15 set core=20 max=400}]
}

func ExampleThreadTimeline() {
	tl, _ := plots.ReadTimeline(strings.NewReader(exampleCSV))
	var buf bytes.Buffer
	if err := plots.ThreadTimeline(&buf, tl, plots.Options{Title: "example · core 10, max 800"}); err != nil {
		fmt.Println(err)
		return
	}
	cfg, _ := png.DecodeConfig(&buf)
	fmt.Println(cfg.Width, "×", cfg.Height)
	// Output: 1200 × 700
}

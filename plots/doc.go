// Package plots draws poolsim's recorded results as PNG charts with
// gonum/plot. It reads timeline.csv (CONTRACT.md §2) and knows nothing of
// the simulator's types: everything it draws comes from the file, plus the
// runtime events, a title and steady-state quantiles the caller passes in.
//
// Every chart is two steps. A Compute* function turns the data into exactly
// the series that will be drawn (pure, unit-tested: stacking, step lines for
// a configuration that changes at run time, min/max downsampling that keeps
// one-sample spikes, gaps where no task fell in an interval). The chart
// function then draws those series and writes a PNG (1200×700 by default):
//
//   - ThreadTimeline: busy / idle TIMED_WAITING / idle WAITING workers as
//     stacked areas (what a thread dump shows, spec R56–R60), core and max as
//     step lines, runtime events as labelled dashed lines;
//   - QueueRejections: queue length above cumulative rejections;
//   - WaitResponse: per-interval wait p50/p99/max and response p99 over
//     time, beside the steady-state CDF;
//   - Comparison: one line per run for one timeline column;
//   - Heatmap and SweepLines: a metric over two swept parameters, or over
//     one with error bars;
//   - FrontierChart: a search's trade-off (poolsim tune), threads against
//     wait and against rejected share, the Pareto frontier, the current
//     configuration, the recommendation, the bounds and a closed form.
//
// Colours are the Okabe–Ito palette and viridis, both readable with common
// colour-vision deficiencies; lines also differ by dash pattern or marker.
// Legends sit beside the data, never on it. Time axes are in s, min or h
// depending on the span. Empty or all-missing data is an error, never a
// blank image. The package keeps no state and starts no goroutines; the
// output bytes depend only on the inputs.
package plots

// Package output turns a scenario and its simulated run into what poolsim
// writes and prints, so that a library caller gets exactly what the CLI
// gives:
//
//   - WriteRun fills an output directory as `poolsim run` does
//     (CONTRACT.md §2): timeline.csv and snapshots.txt streamed to
//     temporary files as the run goes, perf.json, the charts when asked,
//     and summary.json — removed before the first file is replaced and
//     written last, so a summary never describes other files;
//   - Charts draws a run's PNG charts with their file names and captions;
//   - WriteText prints the short human summary;
//   - ReportScenario and WriteReport build and write report.html
//     (package report) from runs, their charts and their explanations.
//
// cmd/poolsim parses flags, calls one of these and maps the error to an
// exit code. Imports point one way: output uses sim, plots, report and
// explain, and none of them uses output.
package output

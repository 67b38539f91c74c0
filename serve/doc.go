// Package serve is poolsim serve: a local what-if page for one scenario.
//
// The page shows what report.html shows for the scenario — the verdict and
// the headline figures, the timeline charts (threads by state with core
// and max, the queue and the rejections, the wait percentiles), the
// explanation's findings and what-ifs, the full summary — beside controls
// for every pool key and for the traffic. Each change is a list of --set
// overrides of the scenario, exactly as `poolsim run --set` takes them: the
// server loads the scenario with them (so bad input is refused with the
// command line's own message), simulates it and streams the answer back;
// the page redraws with the previous run as a faint overlay. The URL holds
// the overrides, so a link reproduces the view, and the page offers the
// scenario YAML with them applied and the `poolsim run` command that
// reproduces it.
//
// A run streams newline-delimited JSON: progress while a long run goes on,
// then the run's result; once the page has redrawn, it asks for the
// explanation, which streams the findings, then the what-ifs. A new change
// aborts the requests of the previous one, whose contexts cancel their
// simulations (sim.Run checks its context as it goes).
//
// Everything the page needs is embedded in the binary (the page, its
// script and style, and the uPlot charting library, vendored from npm);
// it references nothing outside the server and the server sends a
// Content-Security-Policy that forbids it. The server answers only
// requests addressed to the host it listens on (no DNS rebinding), never
// crashes on a request (a panic becomes a 500), and bounds the simulations
// running at once.
package serve

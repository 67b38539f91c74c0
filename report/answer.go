package report

// Answer opens a scenario's section: what the run says, in one sentence,
// and the figures a reader looks for first, in human units.
type Answer struct {
	Verdict string
	// Tone colours the verdict: "ok" (the pool keeps up), "warn" (it
	// works, with something worth a look), "bad" (tasks rejected, lost,
	// or queued without bound; a run cut short).
	Tone    string
	Figures []Figure
}

// Figure is one headline figure.
type Figure struct {
	// Key is the summary.json key the figure shows ("" if none), and Raw
	// its value as summary.json prints it: a script or a test can read
	// the exact figure from the page.
	Key, Raw string
	Label    string // "pool size"
	Value    string // "120", "243 ms"
	Note     string // "steady state; max 120"
}

// Finding is one paragraph of the explanation: "Why TIMED_WAITING", and
// why.
type Finding struct {
	Title, Text string
}

// WhatIfs are configuration changes re-simulated on the same traffic, as
// a table: one row for the configuration as given, then one per change.
type WhatIfs struct {
	// Intro says what the figures are (which part of the run, which seed).
	Intro   string
	Columns []string // the figures' names, after the change's name
	Rows    []WhatIfRow
}

// WhatIfRow is one re-simulated change.
type WhatIfRow struct {
	Name  string   // "keepAlive 1m0s → 10s"
	Cells []string // one per column; empty when Error is set
	Why   string   // what it tests
	Sets  []string // the --set overrides that make it
	Error string   // why it could not be simulated
}

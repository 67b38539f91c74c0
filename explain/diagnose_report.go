package explain

import (
	"fmt"
	"math"
	"strings"
	"time"

	scraped "github.com/poolsim/poolsim/metrics"
	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/sim"
)

// Text renders the metrics diagnosis.
func (md *MetricsDiagnosis) Text() string {
	var b strings.Builder
	o, c := md.Obs, md.Pool.Config
	fmt.Fprintf(&b, "Metrics: %s, pool %s: %d samples about every %v from %s (%v).\n", md.Metrics.File, md.Metrics.ID(),
		len(o.T), o.Interval, o.Start.UTC().Format(time.RFC3339), md.window())
	fmt.Fprintf(&b, "Pool: %s, core %d, max %s, keepAlive %v, %v hand-off.\n", md.Pool.Preset, c.Core, model.SizeString(c.Max), c.KeepAlive, c.HandOff())
	for _, g := range md.Gaps {
		b.WriteString(wrap("Gap: "+g.String()+"; the re-simulation runs through it, the comparison skips it.", 100, ""))
	}
	for _, p := range md.Problems {
		b.WriteString(wrap("Cannot be right: "+p.String()+".", 100, ""))
	}
	md.trafficText(&b)
	md.compareText(&b)
	b.WriteString("\n")
	b.WriteString(wrap("Verdict: "+md.Verdict+".", 100, ""))
	for _, is := range md.Issues[min(1, len(md.Issues)):] {
		b.WriteString(wrap("- also: "+is+".", 100, "  "))
	}
	md.hiddenText(&b)
	md.artefactText(&b)
	if len(md.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range md.Notes {
			b.WriteString(wrap("- "+n+".", 100, "  "))
		}
	}
	return b.String()
}

func (md *MetricsDiagnosis) trafficText(b *strings.Builder) {
	tr := md.Traffic
	fmt.Fprintf(b, "\nTraffic from %s (R180), in %d segment(s) of steady rate (%.0f %% bands):\n", tr.From, len(tr.Segments), 100*scraped.Confidence)
	fmt.Fprintf(b, "  %-8s %-8s %10s %9s  %-17s %-17s %s\n", "from", "to", "count", "rate/s", "Poisson", "periodic", "service")
	for _, s := range tr.Segments {
		fmt.Fprintf(b, "  %-8s %-8s %10s %9s  %-17s %-17s %v (%s)\n", secs(s.From), secs(s.To), num(s.Count), rateText(s.Poisson.Best),
			rateText(s.Poisson.Low)+"–"+rateText(s.Poisson.High), rateText(s.Periodic.Low)+"–"+rateText(s.Periodic.High), s.Service.Round(time.Microsecond), s.ServiceFrom)
	}
	last := tr.Last()
	b.WriteString("Request rates now (the last segment):\n")
	fmt.Fprintf(b, "  - periodic traffic (health checks, probes): %s to %s requests/s, best fit %s/s.\n", rateText(last.Periodic.Low), rateText(last.Periodic.High), rateText(last.Periodic.Best))
	fmt.Fprintf(b, "  - random (Poisson) traffic: %s to %s requests/s, best fit %s/s.\n", rateText(last.Poisson.Low), rateText(last.Poisson.High), rateText(last.Poisson.Best))
}

// compareRows picks at most 16 scrapes to print: evenly spaced, the first
// and the last, and every scrape that disagrees (up to the limit).
func (md *MetricsDiagnosis) compareRows() []int {
	n := len(md.Compare)
	pick := map[int]bool{0: true, n - 1: true}
	for k := 1; k < 12; k++ {
		pick[k*(n-1)/12] = true
	}
	for k, c := range md.Compare {
		if len(pick) >= 16 {
			break
		}
		if !math.IsNaN(c.Size) && !c.SimSize.Within(c.Size) {
			pick[k] = true
		}
	}
	var rows []int
	for k := 0; k < n; k++ {
		if pick[k] {
			rows = append(rows, k)
		}
	}
	return rows
}

func (md *MetricsDiagnosis) compareText(b *strings.Builder) {
	fmt.Fprintf(b, "\nRe-simulated: the fitted scenario, %d runs (%s arrivals, %s service, rates and service times drawn from their uncertainty), sampled at the scrape times (R178); simulated as mean ± 2 SD:\n",
		md.Opt.Replications, trafficName(md.Opt.Arrivals), md.Opt.ServiceDist)
	fmt.Fprintf(b, "  %-8s %-6s %-14s %-6s %-14s %-6s %-14s\n", "t", "pool", "simulated", "busy", "simulated", "queue", "simulated")
	pm := func(s RunSpread) string { return num(s.Mean) + " ± " + num(2*s.SD) }
	for _, k := range md.compareRows() {
		c := md.Compare[k]
		mark := ""
		if !math.IsNaN(c.Size) && !c.SimSize.Within(c.Size) {
			mark = "  ← differs"
		}
		fmt.Fprintf(b, "  %-8s %-6s %-14s %-6s %-14s %-6s %-14s%s\n", secs(c.T), num(c.Size), pm(c.SimSize), num(c.Busy), pm(c.SimBusy), num(c.Queue), pm(c.SimQueue), mark)
	}
	fmt.Fprintf(b, "  (%d of %d scrapes agree; every scrape is in the JSON and the overlay chart)\n", md.Agree, md.Compared)
}

func (md *MetricsDiagnosis) hiddenText(b *strings.Builder) {
	h := md.Hidden
	rng := func(s RunSpread, f func(float64) string) string {
		if math.IsNaN(s.Mean) {
			return "none"
		}
		if s.Min == s.Max {
			return f(s.Mean)
		}
		return fmt.Sprintf("%s (%s–%s)", f(s.Mean), f(s.Min), f(s.Max))
	}
	dur := func(x float64) string { return time.Duration(x * 1e9).Round(time.Millisecond).String() }
	fmt.Fprintf(b, "\nWhat the gauges hid (R179; simulated, mean and range over %d runs):\n", md.Opt.Replications)
	b.WriteString(wrap(fmt.Sprintf("- rejections: %s (no meter counts them; with rejection %s).", rng(h.Rejected, num), md.Pool.Config.Rejection), 100, "  "))
	b.WriteString(wrap(fmt.Sprintf("- queue wait: p50 %s, p99 %s, max %s.", rng(h.WaitP50, dur), rng(h.WaitP99, dur), rng(h.WaitMax, dur)), 100, "  "))
	b.WriteString(wrap(fmt.Sprintf("- between scrapes: the pool peaked at %s workers, the scrapes show at most %s; busy peaked at %s, scraped at most %s; the queue at %s, scraped at most %s.",
		rng(h.PeakSize, num), rng(h.ScrapedSize, num), rng(h.PeakBusy, num), rng(h.ScrapedBusy, num), rng(h.PeakQueue, num), rng(h.ScrapedQueue, num)), 100, "  "))
	b.WriteString(wrap(fmt.Sprintf("- bursts: in %s of %d scrape intervals the pool or the queue rose above both scrapes and fell back unseen; the longest stretch above the highest scraped busy count lasted %s.",
		rng(h.Bursts, num), len(md.Obs.T)-1, rng(h.LongestBurst, dur)), 100, "  "))
	if h.TimedWaitingUpperBoundFrom != "" {
		b.WriteString(wrap(fmt.Sprintf("- TIMED_WAITING: %s shows %s threads at the end, an upper bound for this pool's idle workers in poll(keepAlive): it counts every pool's and service thread (R174, R180).",
			h.TimedWaitingUpperBoundFrom, num(h.TimedWaitingUpperBound)), 100, "  "))
	}
}

func (md *MetricsDiagnosis) artefactText(b *strings.Builder) {
	b.WriteString("\nSampling artefacts (R178): what scrapes at each interval would have shown of the re-simulation, against its true maxima:\n")
	for i, a := range md.Artefacts {
		which := ""
		if i == 0 {
			which = " (this file)"
		}
		line := fmt.Sprintf("- every %v%s: at most %s workers, %s busy, %s queued; the truth peaked at %s, %s, %s.",
			a.Every, which, num(a.SeenSize), num(a.SeenBusy), num(a.SeenQueue), num(a.TrueSize), num(a.TrueBusy), num(a.TrueQueue))
		var missed []string
		for _, m := range []struct {
			yes  bool
			what string
		}{{a.MissedSize, "pool size"}, {a.MissedBusy, "busy"}, {a.Missed, "queue"}} {
			if m.yes {
				missed = append(missed, m.what)
			}
		}
		if len(missed) > 0 {
			line += " Such scrapes miss the " + strings.Join(missed, ", ") + " peaks: they were shorter than the interval."
		}
		b.WriteString(wrap(line, 100, "  "))
	}
	if lb := md.Hidden.LongestBurst; !math.IsNaN(lb.Max) && lb.Max > 0 && lb.Max < md.Obs.Interval.Seconds() {
		b.WriteString(wrap(fmt.Sprintf("- every burst of busy workers above what the scrapes show lasted at most %s, shorter than the scrape interval (%v).",
			time.Duration(lb.Max*1e9).Round(time.Millisecond), md.Obs.Interval), 100, "  "))
	}
	if md.Metrics.Family == scraped.Tomcat {
		b.WriteString(wrap("- Tomcat exports no queue length and no completed-tasks counter (R173): the queue above is simulated only.", 100, "  "))
	}
}

// Assumed are the assumptions of a diagnosis, for JSON.
type Assumed struct {
	Peak           int      `json:"peak"`
	SinceS         sim.Stat `json:"since_s"`
	ServiceS       sim.Stat `json:"service_s"`
	WakeUpLatencyS sim.Stat `json:"wake_up_latency_s"` // the model's hand-off takes no time (R47)
	Arrivals       string   `json:"arrivals,omitempty"`
	ServiceDist    string   `json:"service_dist,omitempty"`
	Replications   int      `json:"replications"`
}

// DiagnoseJSON is diagnose --json: one object for dumps, counts and metrics
// alike.
type DiagnoseJSON struct {
	Source     string        `json:"source"`
	Periodic   *scraped.Band `json:"periodic"` // null when no rate fits
	Poisson    *scraped.Band `json:"poisson"`
	Verdict    string        `json:"verdict"`
	AsDesigned bool          `json:"as_designed"`
	Assumed    Assumed       `json:"assumed"`
	Issues     []string      `json:"issues"`
	Observed   *Observation  `json:"observed,omitempty"`
	Metrics    *MetricsJSON  `json:"metrics,omitempty"`
	// Simulations is how many simulations the diagnosis ran
	// (Diagnosis.Simulations, MetricsDiagnosis.Simulations);
	// SkippedSimulations how many the early stop of a diagnosis from a dump
	// or counts saved (absent with --full-grid and --metrics).
	Simulations        int `json:"simulations,omitempty"`
	SkippedSimulations int `json:"skipped_simulations,omitempty"`
}

// MetricsJSON is the metrics part of diagnose --json.
type MetricsJSON struct {
	File        string         `json:"file"`
	Pool        string         `json:"pool"`
	Start       string         `json:"start"`
	IntervalS   sim.Stat       `json:"interval_s"`
	WindowS     sim.Stat       `json:"window_s"`
	RateFrom    string         `json:"rate_from"`
	Segments    []SegmentJSON  `json:"segments"`
	Agree       int            `json:"agree"`
	Compared    int            `json:"compared"`
	End         SpreadJSON     `json:"end_pool_size"`
	EndObserved sim.Stat       `json:"end_pool_size_observed"`
	Scrapes     []ScrapeJSON   `json:"scrapes"`
	Hidden      HiddenJSON     `json:"hidden"`
	Artefacts   []ArtefactJSON `json:"artefacts"`
	Gaps        []string       `json:"gaps"`
	Implausible []string       `json:"implausible"`
	Notes       []string       `json:"notes"`
	Scenario    string         `json:"scenario"`
}

// SpreadJSON is a RunSpread with NaN as null.
type SpreadJSON struct {
	Mean sim.Stat `json:"mean"`
	SD   sim.Stat `json:"sd"`
	Min  sim.Stat `json:"min"`
	Max  sim.Stat `json:"max"`
}

func spreadJSON(s RunSpread) SpreadJSON {
	return SpreadJSON{sim.Stat(s.Mean), sim.Stat(s.SD), sim.Stat(s.Min), sim.Stat(s.Max)}
}

// SegmentJSON is one segment of steady traffic.
type SegmentJSON struct {
	FromS       sim.Stat     `json:"from_s"`
	ToS         sim.Stat     `json:"to_s"`
	Count       sim.Stat     `json:"count"`
	Arrivals    sim.Stat     `json:"arrivals"`
	Poisson     scraped.Band `json:"poisson"`
	Periodic    scraped.Band `json:"periodic"`
	ServiceS    sim.Stat     `json:"service_s"`
	ServiceFrom string       `json:"service_from"`
}

// ScrapeJSON is one scrape, observed and simulated.
type ScrapeJSON struct {
	TS       sim.Stat   `json:"t_s"`
	Size     sim.Stat   `json:"pool_size"`
	Busy     sim.Stat   `json:"busy"`
	Queue    sim.Stat   `json:"queue"`
	SimSize  SpreadJSON `json:"sim_pool_size"`
	SimBusy  SpreadJSON `json:"sim_busy"`
	SimQueue SpreadJSON `json:"sim_queue"`
}

// HiddenJSON is what the gauges hid.
type HiddenJSON struct {
	Rejected     SpreadJSON `json:"rejected"`
	WaitP50S     SpreadJSON `json:"wait_p50_s"`
	WaitP99S     SpreadJSON `json:"wait_p99_s"`
	WaitMaxS     SpreadJSON `json:"wait_max_s"`
	PeakSize     SpreadJSON `json:"peak_pool_size"`
	PeakBusy     SpreadJSON `json:"peak_busy"`
	PeakQueue    SpreadJSON `json:"peak_queue"`
	ScrapedSize  SpreadJSON `json:"scraped_max_pool_size"`
	ScrapedBusy  SpreadJSON `json:"scraped_max_busy"`
	ScrapedQueue SpreadJSON `json:"scraped_max_queue"`
	Bursts       SpreadJSON `json:"bursts_between_scrapes"`
	LongestS     SpreadJSON `json:"longest_burst_s"`
}

// ArtefactJSON is what scrapes at one interval would have shown.
type ArtefactJSON struct {
	EveryS    sim.Stat `json:"every_s"`
	SeenSize  sim.Stat `json:"seen_pool_size"`
	SeenBusy  sim.Stat `json:"seen_busy"`
	SeenQueue sim.Stat `json:"seen_queue"`
	TrueSize  sim.Stat `json:"true_pool_size"`
	TrueBusy  sim.Stat `json:"true_busy"`
	TrueQueue sim.Stat `json:"true_queue"`
}

// JSON is the diagnosis as diagnose --json prints it.
func (md *MetricsDiagnosis) JSON() DiagnoseJSON {
	last := md.Traffic.Last()
	j := DiagnoseJSON{
		Simulations: md.Simulations,
		Source:      fmt.Sprintf("metrics %s, pool %s", md.Metrics.File, md.Metrics.ID()),
		Verdict:     md.Verdict, AsDesigned: md.AsDesigned, Issues: append([]string{}, md.Issues...),
		Periodic: &last.Periodic, Poisson: &last.Poisson,
		Assumed: Assumed{Peak: int(maxOf(md.Obs.Size)), SinceS: sim.Stat((md.window() - last.From).Seconds()), ServiceS: sim.Stat(last.Service.Seconds()),
			Arrivals: md.Opt.Arrivals, ServiceDist: md.Opt.ServiceDist, Replications: md.Opt.Replications},
	}
	m := &MetricsJSON{File: md.Metrics.File, Pool: md.Metrics.ID(), Start: md.Obs.Start.UTC().Format(time.RFC3339Nano),
		IntervalS: sim.Stat(md.Obs.Interval.Seconds()), WindowS: sim.Stat(md.window().Seconds()), RateFrom: md.Traffic.From,
		Agree: md.Agree, Compared: md.Compared, End: spreadJSON(md.End), EndObserved: sim.Stat(md.EndObserved),
		Gaps: []string{}, Implausible: []string{}, Notes: append([]string{}, md.Notes...), Scenario: string(md.ScenarioYAML())}
	for _, s := range md.Traffic.Segments {
		m.Segments = append(m.Segments, SegmentJSON{sim.Stat(s.From.Seconds()), sim.Stat(s.To.Seconds()), sim.Stat(s.Count), sim.Stat(s.Arrivals),
			s.Poisson, s.Periodic, sim.Stat(s.Service.Seconds()), s.ServiceFrom})
	}
	for _, c := range md.Compare {
		m.Scrapes = append(m.Scrapes, ScrapeJSON{sim.Stat(c.T.Seconds()), sim.Stat(c.Size), sim.Stat(c.Busy), sim.Stat(c.Queue),
			spreadJSON(c.SimSize), spreadJSON(c.SimBusy), spreadJSON(c.SimQueue)})
	}
	h := md.Hidden
	m.Hidden = HiddenJSON{spreadJSON(h.Rejected), spreadJSON(h.WaitP50), spreadJSON(h.WaitP99), spreadJSON(h.WaitMax),
		spreadJSON(h.PeakSize), spreadJSON(h.PeakBusy), spreadJSON(h.PeakQueue), spreadJSON(h.ScrapedSize), spreadJSON(h.ScrapedBusy),
		spreadJSON(h.ScrapedQueue), spreadJSON(h.Bursts), spreadJSON(h.LongestBurst)}
	for _, a := range md.Artefacts {
		m.Artefacts = append(m.Artefacts, ArtefactJSON{sim.Stat(a.Every.Seconds()), sim.Stat(a.SeenSize), sim.Stat(a.SeenBusy), sim.Stat(a.SeenQueue),
			sim.Stat(a.TrueSize), sim.Stat(a.TrueBusy), sim.Stat(a.TrueQueue)})
	}
	for _, g := range md.Gaps {
		m.Gaps = append(m.Gaps, g.String())
	}
	for _, p := range md.Problems {
		m.Implausible = append(m.Implausible, p.String())
	}
	j.Metrics = m
	return j
}

// JSON is the diagnosis of a dump or counts as diagnose --json prints it.
func (d *Diagnosis) JSON() DiagnoseJSON {
	verdict, ok := d.verdict()
	j := DiagnoseJSON{Source: d.Obs.Source, Verdict: verdict, AsDesigned: ok, Issues: append([]string{}, d.Issues...), Observed: &d.Obs,
		Simulations: d.Simulations, SkippedSimulations: d.Skipped,
		Assumed: Assumed{Peak: d.Opt.Peak, SinceS: sim.Stat(d.Opt.Since.Seconds()), ServiceS: sim.Stat(d.Opt.Service.Seconds()), Replications: d.Opt.Replications}}
	if d.Periodic.Found {
		j.Periodic = &scraped.Band{Low: d.Periodic.Low, High: d.Periodic.High, Best: d.Periodic.Best}
	}
	if d.Poisson.Found {
		j.Poisson = &scraped.Band{Low: d.Poisson.Low, High: d.Poisson.High, Best: d.Poisson.Best}
	}
	return j
}

package serve

import (
	"fmt"
	"strings"
	"time"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/workloads"
)

// poolView is the pool's configuration as the page's controls show it,
// each value as a scenario file would write it.
type poolView struct {
	Preset    string `json:"preset"`
	Core      int    `json:"core"`
	Max       string `json:"max"`
	KeepAlive string `json:"keepAlive"`
	CoreTO    bool   `json:"allowCoreThreadTimeOut"`
	Prestart  bool   `json:"prestart"`
	Queue     string `json:"queue"`
	Capacity  string `json:"capacity"`
	Fair      bool   `json:"fair"`
	HandOff   string `json:"handOff"`
	Rejection string `json:"rejection"`
	// QueueEditable is false for the pools whose queue is fixed
	// (ScheduledThreadPoolExecutor's, Jetty's, a thread per task), and
	// KeepAliveEditable for those whose constructor fixes keepAlive
	// (ScheduledThreadPoolExecutor's 10ms, R88; a thread per task, R86).
	QueueEditable     bool `json:"queueEditable"`
	KeepAliveEditable bool `json:"keepAliveEditable"`
	// SizesEditable is false when core and max cannot be set: a thread
	// per task has none (R86), the single preset fixes them at 1 (R82).
	SizesEditable bool `json:"sizesEditable"`
}

// phaseView is one phase of the traffic as the page's controls show it.
type phaseView struct {
	// Path addresses the phase's keys with --set: workload.phases.N, or
	// workload for a single phase written at the top.
	Path     string  `json:"path"`
	Label    string  `json:"label"`
	Process  string  `json:"process"`
	Rate     float64 `json:"rate"`  // tasks/s (poisson, constant, onoff)
	Count    int     `json:"count"` // burst
	Dist     string  `json:"dist"`
	Mean     string  `json:"mean"`
	CV       float64 `json:"cv"`
	Describe string  `json:"describe"` // the service law in words
	// ServiceEditable is false for a law the controls cannot express
	// (uniform, pareto, empirical, a CPU/blocking split).
	ServiceEditable bool `json:"serviceEditable"`
}

// configView is what the controls show for a scenario.
type configView struct {
	Pool   poolView    `json:"pool"`
	Phases []phaseView `json:"phases"`
	// Traffic says why there are no traffic controls (a trace, an access
	// log), if so.
	Traffic string `json:"traffic,omitempty"`
}

// choices are the values the page's selects offer.
type choices struct {
	Presets  []string `json:"presets"`
	Queues   []string `json:"queues"`
	Policies []string `json:"policies"`
	HandOffs []string `json:"handOffs"`
	Dists    []string `json:"dists"`
}

func allChoices() choices {
	return choices{
		Presets:  scenarios.PresetNames(),
		Queues:   []string{"linked", "array", "synchronous", "priority", "tomcat"}, // the queues a ThreadPoolExecutor takes
		Policies: model.PolicyNames(),
		HandOffs: []string{"natural", "fifo", "lifo"},
		Dists:    []string{"constant", "exponential", "lognormal", "gamma", "weibull"},
	}
}

// viewOf describes sc's configuration for the controls.
func viewOf(sc *scenarios.Scenario) configView {
	c := sc.Pool.Config
	v := configView{Phases: []phaseView{}, Pool: poolView{
		Preset: sc.Pool.Preset, Core: c.Core, Max: model.SizeString(c.Max), KeepAlive: shortDuration(c.KeepAlive),
		CoreTO: c.CoreTimeOut, Prestart: c.Prestart, Queue: c.Queue.String(), Capacity: model.SizeString(c.QueueCapacity),
		Fair: c.Fair, HandOff: [...]string{"natural", "fifo", "lifo"}[c.HandOffOverride], Rejection: c.Rejection.String(),
		QueueEditable:     c.Flavor == model.JDK || c.Flavor == model.Tomcat,
		KeepAliveEditable: c.Flavor != model.Scheduled && c.Flavor != model.ThreadPerTask && c.Flavor != model.Virtual,
		SizesEditable:     c.Flavor != model.ThreadPerTask && c.Flavor != model.Virtual && !presetFixed(sc.Pool.Preset),
	}}
	switch {
	case sc.Workload.Trace != "":
		v.Traffic = "a recorded trace (" + sc.Workload.Trace + "): its arrivals and service times are replayed as they are"
		return v
	case sc.Workload.AccessLog != nil:
		v.Traffic = "a replayed access log: its arrivals and service times are replayed as they are"
		return v
	}
	for i, ph := range sc.Workload.Phases {
		pv := phaseView{Path: fmt.Sprintf("workload.phases.%d", i), Process: ph.Arrivals.Process, Rate: ph.Arrivals.Rate, Count: ph.Arrivals.Count}
		if sc.WorkloadForm == "single" {
			pv.Path = "workload"
		}
		pv.Label = phaseLabel(sc, i, ph)
		pv.Dist, pv.Mean, pv.CV, pv.ServiceEditable = serviceView(ph)
		pv.Describe = describeService(ph)
		v.Phases = append(v.Phases, pv)
	}
	return v
}

func presetFixed(name string) bool {
	p, ok := scenarios.LookupPreset(name)
	return ok && p.Fixed
}

func phaseLabel(sc *scenarios.Scenario, i int, ph workloads.Phase) string {
	label := "traffic"
	if len(sc.Workload.Phases) > 1 {
		label = fmt.Sprintf("phase %d", i+1)
	}
	if ph.Duration > 0 {
		label += " (" + shortDuration(ph.Duration) + ")"
	} else if len(sc.Workload.Phases) > 1 {
		label += " (to the end)"
	}
	return label
}

// serviceView is a phase's service law as the controls edit it: a law
// with a mean and, for lognormal, gamma and weibull, a coefficient of
// variation.
func serviceView(ph workloads.Phase) (dist, mean string, cv float64, editable bool) {
	if ph.Split != nil {
		return "", "", 0, false
	}
	s := ph.Service
	switch s.Dist {
	case "constant":
		return s.Dist, shortDuration(s.Mean), 0, true
	case "exponential":
		return s.Dist, shortDuration(s.Mean), 1, true
	case "lognormal", "gamma", "weibull":
		return s.Dist, shortDuration(s.Mean), s.CV, true
	}
	return s.Dist, "", 0, false
}

func describeService(ph workloads.Phase) string {
	if ph.Split != nil {
		return "a CPU part and a blocking part (edit the scenario file to change them)"
	}
	s := ph.Service
	switch s.Dist {
	case "uniform":
		return fmt.Sprintf("uniform from %v to %v (edit the scenario file, or pick another law)", s.Min, s.Max)
	case "pareto":
		return fmt.Sprintf("pareto, mean %v, alpha %g (edit the scenario file, or pick another law)", s.Mean, s.Alpha)
	case "empirical":
		return fmt.Sprintf("empirical, %d samples (edit the scenario file, or pick another law)", len(s.Samples))
	}
	return ""
}

// shortDuration writes d as a scenario file would: 60s as 1m, 1h0m0s as
// 1h.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// command is the shell command that loads the scenario with the page's
// overrides: the base command line, then one --set per override.
func command(base []string, sets []string) string {
	var b strings.Builder
	for i, a := range base {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a))
	}
	for _, s := range sets {
		b.WriteString(" --set ")
		b.WriteString(shellQuote(s))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

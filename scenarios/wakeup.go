package scenarios

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/workloads"
)

// Wakeup is the hand-off timing of a real machine (host.wakeup, spec §12):
// how long a signalled parked thread takes to run, how late a blocking
// task's end is noticed, and stop-the-world pauses of the JVM. A scenario
// without it has the ideal model: zero latency (R47).
type Wakeup struct {
	// Calibrated: the values measured on the project's development machine
	// (CalibratedWakeup), as `wakeup: calibrated` asks.
	Calibrated bool
	// Latency is L, from the unpark of a signalled or matched worker until
	// it runs (R111, R119, R124).
	Latency workloads.ServiceSpec
	// Race is how long after a signal a worker returning from its task
	// still takes the signalled waiter's task (R113): the time the waiter
	// needs to re-acquire the queue's lock, which a measured latency
	// overstates by the parts of it no other thread races (nil: the
	// latency itself). The two laws are drawn at the same quantile, and the
	// waiter's task starts at the later of the two.
	Race *workloads.ServiceSpec
	// Overrun is added to the end of every task: a task that sleeps or
	// waits for I/O is woken late (nil: none).
	Overrun *workloads.ServiceSpec
	// Pauses are stop-the-world pauses (GC, safepoints): nil, none.
	Pauses *Pauses
}

// Pauses are the JVM's stop-the-world pauses: the time from the end of one
// to the start of the next (Every) and their length (Duration), both
// drawn. During a pause nothing in the JVM runs: arrivals wait in the
// socket's backlog and are submitted together when it ends, and no task
// ends before it ends.
type Pauses struct {
	Every, Duration workloads.ServiceSpec
}

// CalibratedWakeup is host.wakeup as measured on the project's 2-vCPU
// development machine by scenarios/examples/calibration/HandOff.java
// (`java HandOff.java 2000 3 300`: JDK 17.0.21, 6000 samples, 300 parked
// workers, load average 0.7–0.8, 2026-12-02): the hand-off latency from
// execute() to the task's first line on one of many workers parked in
// LinkedBlockingQueue.take(), and how late a 1 ms Thread.sleep ends. It
// has no pauses.
func CalibratedWakeup() Wakeup {
	us := func(x float64) time.Duration { return time.Duration(x * 1000) }
	qs := func(vals ...float64) *workloads.ServiceSpec {
		qv := []float64{0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1}
		s := &workloads.ServiceSpec{Dist: "quantiles"}
		for i, v := range vals {
			s.Points = append(s.Points, workloads.QuantilePoint{Q: qv[i], Value: us(v)})
		}
		return s
	}
	return Wakeup{
		Calibrated: true,
		Latency:    *qs(12.4, 31.6, 38.0, 43.5, 55.0, 82.5, 117.3, 589.1, 3904.9, 7657.7),
		Overrun:    qs(42.8, 98.2, 111.6, 137.7, 165.3, 197.6, 233.2, 1204.2, 4478.9, 9722.0),
	}
}

// wakeup decodes host.wakeup: "calibrated", 0 (none), or a mapping of
// latency, overrun and pauses.
func (d *decoder) wakeup(n *yaml.Node, path, dir string) (*Wakeup, error) {
	const allowed = "calibrated, 0 (the ideal zero-latency hand-off), or {latency: LAW, race: LAW, overrun: LAW, pauses: {every: LAW, duration: LAW}}"
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "calibrated":
			w := CalibratedWakeup()
			return &w, nil
		case "0", "0s", "off", "none":
			return nil, nil
		}
		return nil, d.errAt(n, path, fmt.Sprintf("unknown value %q", n.Value), allowed)
	}
	w := &Wakeup{}
	// A duration (0 allowed: none) or a law.
	law := func(n *yaml.Node, p string) (workloads.ServiceSpec, error) {
		if n.Kind == yaml.ScalarNode {
			t, err := d.nonNegativeDuration(n, p, "a duration >= 0, or a law such as {dist: exponential, mean: 40us}")
			return workloads.ServiceSpec{Dist: "constant", Mean: t}, err
		}
		return d.service(n, p, dir)
	}
	err := d.mapping(n, path, []field{
		{"latency", func(n *yaml.Node, p string) (err error) { w.Latency, err = law(n, p); return }},
		{"race", func(n *yaml.Node, p string) error {
			s, err := law(n, p)
			w.Race = &s
			return err
		}},
		{"overrun", func(n *yaml.Node, p string) error {
			s, err := law(n, p)
			w.Overrun = &s
			return err
		}},
		{"pauses", func(n *yaml.Node, p string) error {
			w.Pauses = &Pauses{}
			err := d.mapping(n, p, []field{
				{"every", func(n *yaml.Node, p string) (err error) { w.Pauses.Every, err = d.patience(n, p, dir); return }},
				{"duration", func(n *yaml.Node, p string) (err error) { w.Pauses.Duration, err = law(n, p); return }},
			})
			switch {
			case err != nil:
				return err
			case w.Pauses.Every.Dist == "":
				return d.errAt(n, join(p, "every"), "missing", "the time between two pauses, e.g. every: {dist: exponential, mean: 10s}")
			case w.Pauses.Duration.Dist == "":
				return d.errAt(n, join(p, "duration"), "missing", "how long a pause lasts, e.g. duration: {dist: lognormal, mean: 50ms, cv: 1}")
			}
			return nil
		}},
	})
	if err != nil {
		return nil, err
	}
	if w.Latency.Dist == "" {
		return nil, d.errAt(n, join(path, "latency"), "missing", "the wake-up latency, e.g. latency: 30us, or wakeup: calibrated")
	}
	return w, nil
}

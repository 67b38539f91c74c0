package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/workloads"
)

// Host is the machine the pool runs on: what starting a thread costs, what
// each live thread reserves, and optionally how many processors the tasks'
// CPU parts share. The zero CPUs means "as many as the tasks want" (a CPU
// part never waits for a processor), which is how poolsim runs without a
// host block.
type Host struct {
	// CPUs is the number of processors the CPU parts of running tasks
	// share by processor sharing (0: unlimited).
	CPUs int
	// ThreadStart is what one Thread.start() costs the thread that calls
	// it: the submitter inside execute (R4, R6), or the worker running
	// processWorkerExit for a replacement (R17); the new thread runs
	// nothing before it has passed.
	ThreadStart time.Duration
	// StackSize is the stack each live thread reserves (-Xss), for
	// peak_reserved_stack_bytes.
	StackSize int64
	// Wakeup is the hand-off timing of a real machine (nil: the ideal,
	// zero-latency model).
	Wakeup *Wakeup
}

// DefaultStackSize is HotSpot's default thread stack on Linux x86-64 and
// aarch64 (ThreadStackSize = 1024 KB, what -Xss1m sets).
const DefaultStackSize = 1 << 20

// MaxCPUs bounds host.cpus.
const MaxCPUs = 1 << 20

// host decodes the host block.
func (d *decoder) host(n *yaml.Node, path string, h *Host) error {
	return d.mapping(n, path, []field{
		{"wakeup", func(n *yaml.Node, p string) (err error) { h.Wakeup, err = d.wakeup(n, p, ""); return }},
		{"cpus", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "a number of processors >= 1")
			if err == nil && (v < 1 || v > MaxCPUs) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 1..%d, got %d", MaxCPUs, v), "a number of processors; leave it out for no CPU limit")
			}
			h.CPUs = int(v)
			return err
		}},
		{"threadStart", func(n *yaml.Node, p string) (err error) {
			h.ThreadStart, err = d.nonNegativeDuration(n, p, "what one Thread.start() costs the caller, e.g. 60us")
			return
		}},
		{"stackSize", func(n *yaml.Node, p string) (err error) {
			h.StackSize, err = d.bytes(n, p)
			return
		}},
	})
}

// bytes parses a size in bytes the way the JVM reads -Xss: a plain number
// of bytes, or a number with k, m or g (any case, optionally followed by B
// or iB), each a power of 1024.
func (d *decoder) bytes(n *yaml.Node, path string) (int64, error) {
	const allowed = "bytes, or a number with k, m or g (powers of 1024, as -Xss reads them), e.g. 1m, 512k"
	s, err := d.scalar(n, path, allowed)
	if err != nil {
		return 0, err
	}
	v, err := ParseBytes(s)
	if err != nil {
		return 0, d.errAt(n, path, err.Error(), allowed)
	}
	return v, nil
}

// ParseBytes parses "1m", "512k", "1MB", "1MiB", "2g" or "1048576" into
// bytes, with k, m and g as powers of 1024 (the JVM's -Xss convention).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(strings.ReplaceAll(s, "_", ""))
	num := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToLower(strings.TrimSpace(t[len(num):]))
	var mult int64
	switch unit {
	case "", "b":
		mult = 1
	case "k", "kb", "kib":
		mult = 1 << 10
	case "m", "mb", "mib":
		mult = 1 << 20
	case "g", "gb", "gib":
		mult = 1 << 30
	default:
		return 0, fmt.Errorf("unknown unit %q in %q", unit, s)
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || num == "" || strings.TrimLeft(num, "0123456789") != "" {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	if v > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return v * mult, nil
}

// serviceForm decodes a workload's or a phase's service into ph: a law, a
// split into CPU and blocking parts, or steps.
func (d *decoder) serviceForm(n *yaml.Node, path, dir string, ph *workloads.Phase) error {
	if n.Kind == yaml.MappingNode && has(n, "steps") {
		return d.mapping(n, path, []field{{"steps", func(n *yaml.Node, p string) (err error) {
			ph.Steps, err = d.steps(n, p, dir)
			return
		}}})
	}
	var err error
	ph.Service, ph.Split, err = d.serviceOrSplit(n, path, dir)
	return err
}

// serviceOrSplit decodes a service block: a law ({dist: ...}) or a split
// into a CPU part and a blocking part ({cpu: {...}, blocking: {...},
// slices: k}). Exactly one of the results is set.
func (d *decoder) serviceOrSplit(n *yaml.Node, path, dir string) (workloads.ServiceSpec, *workloads.ServiceSplit, error) {
	if n.Kind == yaml.MappingNode && has(n, "steps") {
		return workloads.ServiceSpec{}, nil, d.errAt(child(n, "steps"), join(path, "steps"), "steps are the service of workload tasks", "workload.service or a phase's service")
	}
	if n.Kind != yaml.MappingNode || !(has(n, "cpu") || has(n, "blocking") || has(n, "slices")) {
		s, err := d.service(n, path, dir)
		return s, nil, err
	}
	if has(n, "dist") {
		return workloads.ServiceSpec{}, nil, d.errAt(child(n, "dist"), join(path, "dist"),
			"a service is either a law (dist: ...) or split into cpu and blocking parts, not both", "dist and its keys, or cpu, blocking, slices")
	}
	sp := &workloads.ServiceSplit{}
	err := d.mapping(n, path, []field{
		{"cpu", func(n *yaml.Node, p string) error {
			s, err := d.service(n, p, dir)
			sp.CPU = &s
			return err
		}},
		{"blocking", func(n *yaml.Node, p string) error {
			s, err := d.service(n, p, dir)
			sp.Blocking = &s
			return err
		}},
		{"slices", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "a number of pieces >= 1")
			if err == nil && (v < 1 || v > workloads.MaxSlices) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 1..%d, got %d", workloads.MaxSlices, v), "how many alternating CPU and blocking pieces a task runs (1: CPU, then blocking)")
			}
			sp.Slices = int(v)
			return err
		}},
	})
	if err != nil {
		return workloads.ServiceSpec{}, nil, err
	}
	if sp.CPU == nil && sp.Blocking == nil {
		return workloads.ServiceSpec{}, nil, d.errAt(n, join(path, "cpu"), "missing: a split service needs a cpu part, a blocking part or both",
			"cpu: {dist: exponential, mean: 2ms}, blocking: {dist: lognormal, mean: 40ms, cv: 1}")
	}
	return workloads.ServiceSpec{}, sp, nil
}

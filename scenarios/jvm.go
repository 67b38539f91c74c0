package scenarios

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/model"
)

// DefaultJDK is the JDK version a jvm block defaults to.
const DefaultJDK = 25

// jvmKeys checks the jvm block's keys and values (their defaults and
// cross-checks wait for finishJVM, which knows the pool and the host).
func (d *decoder) jvmKeys(n *yaml.Node, path string) error {
	intIn := func(lo, hi int64, allowed string) func(*yaml.Node, string) error {
		return func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, allowed)
			if err == nil && (v < lo || v > hi) {
				err = d.errAt(n, p, fmt.Sprintf("must be in %d..%d, got %d", lo, hi, v), allowed)
			}
			return err
		}
	}
	return d.mapping(n, path, []field{
		{"version", intIn(21, 25, "a JDK feature release 21..25 (it decides what pins a virtual thread: R134, R135)")},
		{"parallelism", intIn(1, 32767, "jdk.virtualThreadScheduler.parallelism: carriers, e.g. the CPU count")},
		{"maxPoolSize", intIn(1, 32767, "jdk.virtualThreadScheduler.maxPoolSize (default max(parallelism, 256))")},
		{"minRunnable", intIn(1, 32767, "jdk.virtualThreadScheduler.minRunnable (default max(parallelism/2, 1))")},
		{"stackFrames", intIn(0, 1<<20, "extra stack frames of a parked virtual thread, for its heap footprint (R140: ≈ 20 B each)")},
	})
}

// finishJVM fills sc.JVM for a virtual-thread pool: the version (default
// 25), parallelism (jvm.parallelism, else host.cpus — never a silent
// guess), maxPoolSize and minRunnable (R131 defaults). It refuses the host
// settings that are not modelled on virtual threads.
func (d *decoder) finishJVM(root, n *yaml.Node, sc *Scenario) error {
	if sc.Pool.Flavor != model.Virtual {
		return nil // the block is valid with any pool; only VTs read it
	}
	get := func(key string) (int, *yaml.Node) {
		c := child(n, key)
		if c == nil {
			return 0, nil
		}
		v, _ := d.integer(c, "", "")
		return int(v), c
	}
	version, _ := get("version")
	if version == 0 {
		version = DefaultJDK
	}
	p, pn := get("parallelism")
	host := child(root, "host")
	if pn == nil {
		if sc.Host.CPUs == 0 {
			at := n
			if at == nil {
				at = root
			}
			return d.errAt(at, "jvm.parallelism", "missing: the virtual-thread scheduler's carriers (availableProcessors() on the real JVM) decide how many VTs compute at once",
				"jvm: {parallelism: N}, or host: {cpus: N}")
		}
		p = sc.Host.CPUs
	}
	j := model.DefaultJVM(version, p)
	if v, c := get("maxPoolSize"); c != nil {
		if v < p {
			return d.errAt(c, "jvm.maxPoolSize", fmt.Sprintf("must be >= parallelism (%d), got %d", p, v), "R131: the JVM would lower parallelism to it; give both consistently")
		}
		j.MaxPoolSize = v
	}
	if v, c := get("minRunnable"); c != nil {
		if v > j.MaxPoolSize {
			return d.errAt(c, "jvm.minRunnable", fmt.Sprintf("must be <= maxPoolSize (%d), got %d", j.MaxPoolSize, v), "R131, R136")
		}
		j.MinRunnable = v
	}
	j.Frames, _ = get("stackFrames")
	if err := j.Validate(); err != nil {
		return d.errAt(n, "jvm", err.Error(), "")
	}
	switch {
	case sc.Host.CPUs > 0 && sc.Host.CPUs < j.Parallelism:
		return d.errAt(child(host, "cpus"), "host.cpus", fmt.Sprintf("%d CPUs for %d carriers: carriers sharing fewer CPUs are not modelled", sc.Host.CPUs, j.Parallelism),
			"host.cpus >= jvm.parallelism (each computing carrier has a CPU of its own)")
	case sc.Host.ThreadStart > 0:
		return d.errAt(child(host, "threadStart"), "host.threadStart", "a thread start cost is not modelled for virtual threads (no OS thread per task)", "leave it out")
	case sc.Host.Wakeup != nil:
		return d.errAt(child(host, "wakeup"), "host.wakeup", "a hand-off timing is not modelled for virtual threads", "leave it out")
	}
	for i, ph := range sc.Workload.Phases {
		if ph.Split != nil {
			at := child(child(root, "workload"), "service")
			if at == nil {
				at = child(root, "workload")
			}
			return d.errAt(at, fmt.Sprintf("workload.phases[%d].service", i), "a cpu/blocking split is not modelled on virtual threads",
				"steps: [{compute: LAW}, {block: LAW}] (a block unmounts the VT, R133)")
		}
	}
	sc.JVM = j
	return nil
}

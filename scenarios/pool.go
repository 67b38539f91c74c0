package scenarios

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/model"
)

// poolNodes remembers where each pool field was written, to locate
// constructor-check errors.
type poolNodes struct {
	// path is where the block is ("pool", or "resources.NAME.pool" for an
	// executor resource's pool); errors name their keys under it.
	path                      string
	block                     *yaml.Node
	core, max, keepAlive      *yaml.Node
	acto, capacity, fair, typ *yaml.Node
	preset                    *yaml.Node
}

// pool decodes the pool block into sc.Pool, starting from the preset.
func (d *decoder) pool(n *yaml.Node, path string, sc *Scenario, pn *poolNodes) error {
	pn.block, pn.path = n, path
	presetName := "jdk"
	if pv := child(n, "preset"); pv != nil {
		var err error
		if presetName, err = d.enum(pv, join(path, "preset"), PresetNames()); err != nil {
			return err
		}
		pn.preset = pv
	}
	pre, _ := LookupPreset(presetName)
	limit := sc.Pool.ThreadLimit
	sc.Pool = Pool{Preset: pre.Name, ThreadNamePrefix: pre.Prefix, Config: pre.Config}
	sc.Pool.ThreadLimit = limit
	c := &sc.Pool.Config
	return d.mapping(n, path, []field{
		{"preset", func(*yaml.Node, string) error { return nil }},
		{"core", func(n *yaml.Node, p string) (err error) { pn.core = n; c.Core, err = d.size(n, p); return }},
		{"max", func(n *yaml.Node, p string) (err error) { pn.max = n; c.Max, err = d.size(n, p); return }},
		{"keepAlive", func(n *yaml.Node, p string) (err error) {
			pn.keepAlive = n
			c.KeepAlive, err = d.duration(n, p)
			return
		}},
		{"allowCoreThreadTimeOut", func(n *yaml.Node, p string) (err error) { pn.acto = n; c.CoreTimeOut, err = d.boolean(n, p); return }},
		{"prestart", func(n *yaml.Node, p string) (err error) {
			v, err := d.boolean(n, p)
			if err == nil && !v && c.Flavor == model.Tomcat {
				return d.errAt(n, p, "Tomcat's constructor always prestarts the core threads (R65)", "true, or leave it out")
			}
			c.Prestart = v
			return err
		}},
		{"queue", func(n *yaml.Node, p string) error {
			return d.mapping(n, p, []field{
				{"type", func(n *yaml.Node, p string) error {
					pn.typ = n
					s, err := d.enum(n, p, model.QueueKindNames())
					if err != nil {
						return err
					}
					c.Queue, _ = model.ParseQueueKind(s)
					return nil
				}},
				{"capacity", func(n *yaml.Node, p string) (err error) { pn.capacity = n; c.QueueCapacity, err = d.size(n, p); return }},
				{"fair", func(n *yaml.Node, p string) (err error) { pn.fair = n; c.Fair, err = d.boolean(n, p); return }},
				{"handOff", func(n *yaml.Node, p string) error {
					s, err := d.enum(n, p, []string{"natural", "fifo", "lifo"})
					switch s {
					case "fifo":
						c.HandOffOverride = model.ForceFIFO
					case "lifo":
						c.HandOffOverride = model.ForceLIFO
					}
					return err
				}},
			})
		}},
		{"rejection", func(n *yaml.Node, p string) error {
			s, err := d.enum(n, p, model.PolicyNames())
			if err != nil {
				return err
			}
			c.Rejection, _ = model.ParsePolicy(s)
			return nil
		}},
		{"threadNamePrefix", func(n *yaml.Node, p string) (err error) {
			sc.Pool.ThreadNamePrefix, err = d.scalar(n, p, "a thread name prefix, e.g. http-nio-8080-exec-")
			return
		}},
		{"continueExistingPeriodicTasksAfterShutdown", func(n *yaml.Node, p string) (err error) {
			c.ContinuePeriodicAfterShutdown, err = d.boolean(n, p)
			return
		}},
		{"executeExistingDelayedTasksAfterShutdown", func(n *yaml.Node, p string) error {
			v, err := d.boolean(n, p)
			c.DropDelayedOnShutdown = !v
			return err
		}},
		{"removeOnCancelPolicy", func(n *yaml.Node, p string) (err error) {
			c.RemoveOnCancel, err = d.boolean(n, p)
			return
		}},
		{"concurrencyLimit", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "-1 (unbounded) or a number of tasks >= 0")
			if err == nil && (v < -1 || v > model.Unbounded) {
				err = d.errAt(n, p, fmt.Sprintf("must be -1 (unbounded) or in 0..%d, got %d", model.Unbounded, v), "-1 (unbounded) or a number of tasks >= 0")
			}
			c.Throttle, c.ConcurrencyLimit = v >= 0, int(v)
			return err
		}},
		{"rejectTasksWhenLimitReached", func(n *yaml.Node, p string) (err error) {
			c.RejectWhenLimited, err = d.boolean(n, p)
			return
		}},
	})
}

// queueKeysApply refuses queue keys the chosen queue does not have, rather
// than ignoring them: a SynchronousQueue holds nothing (R49) and a
// PriorityBlockingQueue is unbounded (R53; its constructor's capacity is
// only an initial array size), and only ArrayBlockingQueue and
// SynchronousQueue take a fairness flag (R48, R50).
func (d *decoder) queueKeysApply(c *model.Config, pn *poolNodes) error {
	name := c.Queue.JavaName()
	switch {
	case pn.capacity != nil && c.Queue == model.Synchronous:
		return d.errAt(pn.capacity, pn.path+".queue.capacity", "does not apply to a SynchronousQueue, which holds no task: it hands each one to a waiting worker or refuses it (R49)", "leave it out, or use type linked or array for a bounded queue")
	case pn.capacity != nil && c.Queue == model.Priority:
		return d.errAt(pn.capacity, pn.path+".queue.capacity", "does not apply to a PriorityBlockingQueue, which is unbounded: its constructor's initialCapacity only sizes the first array (R53)", "leave it out, or use type linked or array for a bounded queue")
	case pn.fair != nil && c.Queue != model.Array && c.Queue != model.Synchronous:
		return d.errAt(pn.fair, pn.path+".queue.fair", fmt.Sprintf("does not apply to a %s, which has no fairness setting", name), "fair is for type array (R48) or synchronous (R50)")
	}
	return nil
}

// finishPool applies the preset's rules and the JDK constructor's checks.
func (d *decoder) finishPool(sc *Scenario, pn *poolNodes) error {
	if pn.path == "" {
		pn.path = "pool" // no pool block: the preset's own
	}
	pre, _ := LookupPreset(sc.Pool.Preset)
	c := &sc.Pool.Config
	at := func(n *yaml.Node) *yaml.Node {
		if n != nil {
			return n
		}
		if pn.preset != nil {
			return pn.preset
		}
		return pn.block
	}
	if pre.NeedsCore && pn.core == nil {
		return d.errAt(pn.block, pn.path+".core", fmt.Sprintf("missing: the %s preset needs the pool size", pre.Name), "core: N")
	}
	if pre.Name == "jdk" && pn.max == nil {
		return d.errAt(pn.block, pn.path+".max", "missing: a ThreadPoolExecutor needs maximumPoolSize", `max: N, or "unbounded"`)
	}
	if pre.MaxFollows {
		if pn.max != nil && c.Max != c.Core {
			return d.errAt(pn.max, pn.path+".max", fmt.Sprintf("newFixedThreadPool(n) has max == core; got core %d, max %d", c.Core, c.Max), "leave max out, or use preset jdk")
		}
		c.Max = c.Core
	}
	if pre.Fixed {
		for _, kv := range []struct {
			n    *yaml.Node
			key  string
			v, w int
		}{{pn.core, pn.path + ".core", c.Core, 1}, {pn.max, pn.path + ".max", c.Max, 1}} {
			if kv.n != nil && kv.v != kv.w {
				return d.errAt(kv.n, kv.key, fmt.Sprintf("newSingleThreadExecutor() has exactly one thread, got %d", kv.v), "leave it out, or use preset fixed")
			}
		}
	}
	if pre.ClampCore && c.Core > c.Max {
		c.Core = c.Max // getMinSpareThreads() = min(minSpareThreads, maxThreads) (R73)
	}
	if err := d.finishFamily(sc, pn); err != nil {
		return err
	}
	if err := d.queueKeysApply(c, pn); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		var ce *model.ConfigError
		if !errors.As(err, &ce) {
			return err
		}
		var n *yaml.Node
		switch ce.Field {
		case "core":
			n = at(pn.core)
		case "max":
			n = at(pn.max)
		case "keepAlive":
			n = at(pn.keepAlive)
		case "allowCoreThreadTimeOut":
			n = at(pn.acto)
		case "queue.capacity":
			n = at(pn.capacity)
		case "queue.fair":
			n = at(pn.fair)
		case "queue.type":
			n = at(pn.typ)
		case "rejection":
			n = at(child(pn.block, "rejection"))
		default:
			n = pn.block
		}
		return d.errAt(n, pn.path+"."+ce.Field, ce.Msg, ce.Rule)
	}
	return nil
}

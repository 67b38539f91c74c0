package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/model"
)

// events decodes the runtime events: at a time, a setter call (set:)
// and/or a shutdown. checkEvents checks them once the pool is known.
func (d *decoder) events(n *yaml.Node, path string, sc *Scenario) error {
	items, err := d.sequence(n, path, "a list of events")
	if err != nil {
		return err
	}
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		ev := Event{Line: it.Line}
		hasAt := false
		err := d.mapping(it, p, []field{
			{"at", func(n *yaml.Node, p string) (err error) {
				hasAt = true
				ev.At, err = d.nonNegativeDuration(n, p, "a time within the run")
				return
			}},
			{"set", func(n *yaml.Node, p string) error {
				return d.mapping(n, p, []field{
					{"core", func(n *yaml.Node, p string) error { v, err := d.size(n, p); ev.Core = &v; return err }},
					{"max", func(n *yaml.Node, p string) error { v, err := d.size(n, p); ev.Max = &v; return err }},
					{"keepAlive", func(n *yaml.Node, p string) error { v, err := d.duration(n, p); ev.KeepAlive = &v; return err }},
					{"allowCoreThreadTimeOut", func(n *yaml.Node, p string) error { v, err := d.boolean(n, p); ev.CoreTimeOut = &v; return err }},
				})
			}},
			{"shutdown", func(n *yaml.Node, p string) (err error) {
				ev.Shutdown, err = d.enum(n, p, []string{"graceful", "now"})
				return
			}},
		})
		if err != nil {
			return err
		}
		if !hasAt {
			return d.errAt(it, p+".at", "missing", "when the event happens, e.g. at: 1h")
		}
		if ev.Core == nil && ev.Max == nil && ev.KeepAlive == nil && ev.CoreTimeOut == nil && ev.Shutdown == "" {
			return d.errAt(it, p, "does nothing", "set: {core, max, keepAlive, allowCoreThreadTimeOut} and/or shutdown: graceful|now")
		}
		sc.Events = append(sc.Events, ev)
	}
	return nil
}

// checkEvents checks the events' order and times, then replays them on a
// scratch pool of the scenario's configuration through the model's one
// entry point (model.Executor.Apply), so that a call the Java class refuses
// or does not have (R21–R24, R82, R86, R100, R104) is reported at its line
// before the run. The rules themselves live in the model only.
func (d *decoder) checkEvents(root *yaml.Node, sc *Scenario) error {
	if len(sc.Events) == 0 {
		return nil
	}
	items, _ := d.sequence(child(root, "events"), "events", "")
	cfg := sc.Pool.Config
	// Whether a call is refused depends on the configuration alone, never
	// on the threads: the scratch pool may start none.
	cfg.ThreadLimit = 1
	scratch, err := model.New(0, cfg, nil)
	if err != nil {
		return fmt.Errorf("scenarios: replaying the events: %w", err) // finishPool validated cfg
	}
	var prev time.Duration
	for i, ev := range sc.Events {
		p := fmt.Sprintf("events[%d]", i)
		at := child(items[i], "at")
		if ev.At < prev {
			return d.errAt(at, p+".at", fmt.Sprintf("%v is before the previous event's %v", ev.At, prev), "events in time order")
		}
		if ev.At > sc.Duration {
			return d.errAt(at, p+".at", fmt.Sprintf("%v is after the end of the run (%v)", ev.At, sc.Duration), "times within the duration")
		}
		prev = ev.At
		err := scratch.Apply(ev.At, ev.Change())
		var ce *model.ConfigError
		if errors.As(err, &ce) {
			key := EventKey(ce.Field)
			n := items[i]
			for _, k := range strings.Split(key, ".") {
				if n = child(n, k); n == nil {
					n = items[i]
					break
				}
			}
			return d.errAt(n, p+"."+key, fmt.Sprintf("at %v: %s", ev.At, ce.Msg), ce.Rule)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

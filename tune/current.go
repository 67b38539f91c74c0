package tune

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/scenarios"
	"github.com/poolsim/poolsim/sweep"
)

// currentValues returns the scenario's own value of every varied key (with
// the fixed --set applied), and false when one is unknown.
func (t *Tuner) currentValues() ([]sweep.Value, bool) { return t.cur, t.curOK }

// readCurrent computes currentValues once.
func (t *Tuner) readCurrent() ([]sweep.Value, bool) {
	out := make([]sweep.Value, len(t.dims))
	for k, d := range t.dims {
		text, ok := currentText(t.base, d.param.Key)
		if !ok {
			return nil, false
		}
		v, _, err := sweep.ParseValue(d.param.Key, text)
		if err != nil {
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

// currentText is a scenario key's value as --set would write it: pool keys
// from the loaded configuration (so preset defaults count), others from the
// file's text.
func currentText(sc *scenarios.Scenario, key string) (string, bool) {
	c := sc.Pool.Config
	size := func(n int) string {
		if n == model.Unbounded {
			return "unbounded"
		}
		return strconv.Itoa(n)
	}
	switch key {
	case "pool.core":
		return strconv.Itoa(c.Core), true
	case "pool.max":
		return size(c.Max), true
	case "pool.keepAlive":
		return c.KeepAlive.String(), true
	case "pool.allowCoreThreadTimeOut":
		return strconv.FormatBool(c.CoreTimeOut), true
	case "pool.prestart":
		return strconv.FormatBool(c.Prestart), true
	case "pool.queue.type":
		return c.Queue.String(), true
	case "pool.queue.capacity":
		if c.Queue == model.Synchronous {
			return "", false // a SynchronousQueue has no capacity key
		}
		return size(c.QueueCapacity), true
	case "pool.queue.fair":
		return strconv.FormatBool(c.Fair), true
	case "pool.rejection":
		return c.Rejection.String(), true
	}
	text, err := sc.EditedText()
	if err != nil {
		return "", false
	}
	var doc yaml.Node
	if yaml.Unmarshal(text, &doc) != nil || len(doc.Content) == 0 {
		return "", false
	}
	n := doc.Content[0]
	for _, part := range strings.Split(key, ".") {
		n = lookup(n, part)
		if n == nil {
			return "", false
		}
	}
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}

// lookup returns a mapping's value for key, or a sequence's item at index.
func lookup(n *yaml.Node, key string) *yaml.Node {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}

func isLog(p sweep.Param) bool { return strings.HasSuffix(strings.TrimSpace(p.Spec), ":log") }

// trafficSets returns the --set overrides that multiply the scenario's
// traffic by f: every phase's rate (poisson, constant, onoff) or burst
// count. A trace or an access log cannot be scaled by a --set: "" and why.
func trafficSets(sc *scenarios.Scenario, f float64) ([]string, string) {
	w := sc.Workload
	if w.Trace != "" || w.AccessLog != nil || len(w.Phases) == 0 {
		return nil, "a recorded trace or access log cannot be scaled by a --set"
	}
	var out []string
	for i, ph := range w.Phases {
		prefix := fmt.Sprintf("workload.phases.%d.arrivals.", i)
		if sc.WorkloadForm == "single" {
			prefix = "workload.arrivals."
		}
		a := ph.Arrivals
		switch a.Process {
		case "burst":
			out = append(out, prefix+"count="+strconv.Itoa(int(math.Ceil(float64(a.Count)*f))))
		default:
			out = append(out, prefix+"rate="+strconv.FormatFloat(a.Rate*f, 'g', 6, 64))
		}
	}
	return out, ""
}

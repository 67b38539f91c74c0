package scenarios

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/internal/textlimit"
	"github.com/poolsim/poolsim/model"
	"github.com/poolsim/poolsim/workloads"
)

// EditedText returns the scenario as YAML with its --set overrides applied,
// as if the file had been edited (comments are lost). It re-parses Text.
func (sc *Scenario) EditedText() ([]byte, error) {
	if len(sc.Sets) == 0 {
		return sc.Text, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(sc.Text, &doc); err != nil {
		return nil, err
	}
	root := resolve(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = resolve(root.Content[0])
	}
	d := &decoder{file: sc.Path, overrides: map[*yaml.Node]string{}}
	for _, s := range sc.Sets {
		if err := d.applyOverride(root, s); err != nil {
			return nil, err
		}
	}
	return yaml.Marshal(root)
}

// Listing returns the scenario as given: the file's text, followed by the
// --set overrides applied to it, as comments.
func (sc *Scenario) Listing() string {
	s := string(sc.Text)
	if len(sc.Sets) > 0 {
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		s += "# overridden on the command line:\n"
		for _, set := range sc.Sets {
			s += "#   --set " + set + "\n"
		}
	}
	return s
}

// Load reads, overrides and validates the scenario file at path. sets are
// --set KEY=VALUE overrides, applied in order before validation.
func Load(path string, sets []string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("cannot read scenario: %v", unwrapPath(err)), "")
	}
	defer f.Close()
	data, err := textlimit.ReadAll(f, MaxFileBytes)
	switch {
	case errors.Is(err, textlimit.ErrTooLarge):
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("larger than %d bytes: not a scenario", MaxFileBytes), "a YAML scenario")
	case err != nil:
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("cannot read scenario: %v", unwrapPath(err)), "")
	}
	return Parse(data, path, sets)
}

// MaxFileBytes bounds a scenario file (far above any hand-written one), and
// maxValues the YAML values it may hold once aliases are expanded, so that a
// scenario cannot exhaust memory while it loads.
const (
	MaxFileBytes = 8 << 20
	maxValues    = 1_000_000
)

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// countValues counts the values under n with aliases expanded, stopping
// past limit; memo holds the counts of anchored nodes already seen.
func countValues(n *yaml.Node, limit int, memo map[*yaml.Node]int) int {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		if c, ok := memo[n.Alias]; ok {
			return c
		}
		memo[n.Alias] = limit + 1 // an alias inside its own anchor
		c := countValues(n.Alias, limit, memo)
		memo[n.Alias] = c
		return c
	}
	c := 1
	for _, k := range n.Content {
		if c += countValues(k, limit, memo); c > limit {
			return limit + 1
		}
	}
	return c
}

// Parse is Load for scenario text already in memory; path locates errors
// and relative paths (traces, samples) inside the scenario.
func Parse(data []byte, path string, sets []string) (*Scenario, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, inputerr.New(path, 0, 0, "", "empty scenario file", "a YAML mapping with pool and workload")
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, inputerr.New(path, 0, 0, "", "not a text file (binary data)", "a YAML scenario")
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, yamlError(path, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		line := extra.Line
		if err != nil {
			return nil, yamlError(path, err)
		}
		return nil, inputerr.New(path, line, 0, "", "more than one YAML document", "one scenario per file")
	}
	if countValues(&doc, maxValues, map[*yaml.Node]int{}) > maxValues {
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("more than %d YAML values once aliases are expanded", maxValues), "a scenario of reasonable size")
	}
	root := resolve(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = resolve(root.Content[0])
	}
	d := &decoder{file: path, overrides: map[*yaml.Node]string{}}
	if root.Kind != yaml.MappingNode {
		return nil, d.errAt(root, "", fmt.Sprintf("a scenario must be a mapping of keys, got %s", describeNode(root)), "keys: name, pool, workload, duration, ...")
	}
	for _, s := range sets {
		if err := d.applyOverride(root, s); err != nil {
			return nil, err
		}
	}
	sc := &Scenario{Path: path, Seed: 1, Text: data, Sets: append([]string(nil), sets...), Host: Host{StackSize: DefaultStackSize}}
	if err := d.scenario(root, sc, filepath.Dir(path)); err != nil {
		return nil, err
	}
	return sc, nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)(?:, column (\d+))?: (.*)`)

// yamlError turns a YAML syntax error into an input error with its line.
func yamlError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		return inputerr.New(path, line, col, "", "invalid YAML: "+m[3], "")
	}
	return inputerr.New(path, 0, 0, "", "invalid YAML: "+msg, "")
}

// poolNodes remembers where each pool field was written, to locate
// constructor-check errors.
type poolNodes struct {
	block                     *yaml.Node
	core, max, keepAlive      *yaml.Node
	acto, capacity, fair, typ *yaml.Node
	preset                    *yaml.Node
}

func (d *decoder) scenario(root *yaml.Node, sc *Scenario, dir string) error {
	var pn poolNodes
	var poolNode, workloadNode, durationNode *yaml.Node
	var phasesSeen bool
	err := d.mapping(root, "", []field{
		{"version", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "1")
			if err == nil && v != 1 {
				err = d.errAt(n, p, fmt.Sprintf("unsupported scenario version %d", v), "1")
			}
			return err
		}},
		{"name", func(n *yaml.Node, p string) (err error) { sc.Name, err = d.scalar(n, p, "a name"); return }},
		{"description", func(n *yaml.Node, p string) (err error) { sc.Description, err = d.scalar(n, p, "free text"); return }},
		{"seed", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "an integer >= 0")
			if err == nil && v < 0 {
				err = d.errAt(n, p, fmt.Sprintf("must be >= 0, got %d", v), "an integer >= 0")
			}
			sc.Seed = uint64(v)
			return err
		}},
		{"duration", func(n *yaml.Node, p string) (err error) {
			durationNode = n
			sc.Duration, err = d.positiveDuration(n, p, "a positive duration")
			return
		}},
		{"warmup", func(n *yaml.Node, p string) (err error) {
			sc.Warmup, err = d.nonNegativeDuration(n, p, "a duration >= 0")
			return
		}},
		{"sample", func(n *yaml.Node, p string) (err error) {
			sc.Sample, err = d.positiveDuration(n, p, "a positive duration")
			return
		}},
		{"pool", func(n *yaml.Node, p string) error { poolNode = n; return d.pool(n, p, sc, &pn) }},
		{"workload", func(n *yaml.Node, p string) error {
			workloadNode = n
			phasesSeen = true
			return d.workload(n, p, sc, dir)
		}},
		{"host", func(n *yaml.Node, p string) error { return d.host(n, p, &sc.Host) }},
		{"events", func(n *yaml.Node, p string) error { return d.events(n, p, sc) }},
		{"snapshots", func(n *yaml.Node, p string) (err error) {
			sc.Snapshots, err = d.durations(n, p, "a list of times", "a time within the run")
			return
		}},
		{"limits", func(n *yaml.Node, p string) error {
			return d.mapping(n, p, []field{
				{"maxThreads", func(n *yaml.Node, p string) error {
					v, err := d.size(n, p)
					if err == nil && v <= 0 {
						err = d.errAt(n, p, fmt.Sprintf("must be > 0, got %d", v), "the most threads the OS grants this pool")
					}
					sc.Pool.ThreadLimit = v
					return err
				}},
				{"maxQueued", func(n *yaml.Node, p string) error {
					v, err := d.size(n, p)
					if err == nil && v <= 0 {
						err = d.errAt(n, p, fmt.Sprintf("must be > 0, got %d", v), "queued tasks at which the run stops")
					}
					sc.Limits.MaxQueued = v
					return err
				}},
			})
		}},
	})
	if err != nil {
		return err
	}
	if poolNode == nil {
		return d.errAt(root, "pool", "missing", "a pool block, e.g. pool: {preset: fixed, core: 8}")
	}

	if sc.Name == "" {
		base := filepath.Base(sc.Path)
		sc.Name = strings.TrimSuffix(base, filepath.Ext(base))
		if sc.Name == "" || sc.Name == "." {
			sc.Name = "scenario"
		}
	}
	if err := d.finishPool(sc, &pn); err != nil {
		return err
	}
	if !phasesSeen {
		return d.errAt(root, "workload", "missing", "a workload block with arrivals and service, phases, or trace")
	}
	if sc.Duration == 0 {
		// A trace or a log runs until its last task could have ended and
		// idle workers had one keepAlive to expire.
		var lastEnd time.Duration
		var err error
		switch {
		case sc.Workload.Trace != "":
			_, lastEnd, err = workloads.CheckTrace(sc.Workload.Trace)
		case sc.Workload.AccessLog != nil:
			_, lastEnd, err = accessLogEnd(*sc.Workload.AccessLog)
		default:
			return d.errAt(root, "duration", "missing", "the virtual time to simulate, e.g. duration: 2h")
		}
		if err != nil {
			return err
		}
		sc.Duration = lastEnd + sc.Pool.KeepAlive + time.Second
	}
	if sc.Sample == 0 {
		sc.Sample = time.Second
		if sc.Duration < 100*time.Second {
			sc.Sample = sc.Duration / 100
		}
		if sc.Sample <= 0 {
			sc.Sample = time.Nanosecond
		}
	}
	if sc.Warmup >= sc.Duration {
		return d.errAt(child(root, "warmup"), "warmup", fmt.Sprintf("%v is not shorter than the duration %v", sc.Warmup, sc.Duration), "warmup < duration")
	}
	_ = durationNode
	_ = workloadNode
	for i, at := range sc.Snapshots {
		if at > sc.Duration {
			items, _ := d.sequence(child(root, "snapshots"), "snapshots", "")
			return d.errAt(items[i], fmt.Sprintf("snapshots[%d]", i), fmt.Sprintf("%v is after the end of the run (%v)", at, sc.Duration), "times within the duration")
		}
	}
	if err := d.checkPeriodic(root, sc); err != nil {
		return err
	}
	return d.checkEvents(root, sc)
}

// pool decodes the pool block into sc.Pool, starting from the preset.
func (d *decoder) pool(n *yaml.Node, path string, sc *Scenario, pn *poolNodes) error {
	pn.block = n
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
		return d.errAt(pn.capacity, "pool.queue.capacity", "does not apply to a SynchronousQueue, which holds no task: it hands each one to a waiting worker or refuses it (R49)", "leave it out, or use type linked or array for a bounded queue")
	case pn.capacity != nil && c.Queue == model.Priority:
		return d.errAt(pn.capacity, "pool.queue.capacity", "does not apply to a PriorityBlockingQueue, which is unbounded: its constructor's initialCapacity only sizes the first array (R53)", "leave it out, or use type linked or array for a bounded queue")
	case pn.fair != nil && c.Queue != model.Array && c.Queue != model.Synchronous:
		return d.errAt(pn.fair, "pool.queue.fair", fmt.Sprintf("does not apply to a %s, which has no fairness setting", name), "fair is for type array (R48) or synchronous (R50)")
	}
	return nil
}

// finishPool applies the preset's rules and the JDK constructor's checks.
func (d *decoder) finishPool(sc *Scenario, pn *poolNodes) error {
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
		return d.errAt(pn.block, "pool.core", fmt.Sprintf("missing: the %s preset needs the pool size", pre.Name), "core: N")
	}
	if pre.Name == "jdk" && pn.max == nil {
		return d.errAt(pn.block, "pool.max", "missing: a ThreadPoolExecutor needs maximumPoolSize", `max: N, or "unbounded"`)
	}
	if pre.MaxFollows {
		if pn.max != nil && c.Max != c.Core {
			return d.errAt(pn.max, "pool.max", fmt.Sprintf("newFixedThreadPool(n) has max == core; got core %d, max %d", c.Core, c.Max), "leave max out, or use preset jdk")
		}
		c.Max = c.Core
	}
	if pre.Fixed {
		for _, kv := range []struct {
			n    *yaml.Node
			key  string
			v, w int
		}{{pn.core, "pool.core", c.Core, 1}, {pn.max, "pool.max", c.Max, 1}} {
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
		return d.errAt(n, "pool."+ce.Field, ce.Msg, ce.Rule)
	}
	return nil
}

// workload decodes the workload block: phases, or one phase's arrivals and
// service at the top, or a trace.
func (d *decoder) workload(n *yaml.Node, path string, sc *Scenario, dir string) error {
	w := &sc.Workload
	var top workloads.Phase
	var topArr, topSvc, topPri, phasesNode, traceNode, logNode, periodicNode *yaml.Node
	err := d.mapping(n, path, []field{
		{"phases", func(n *yaml.Node, p string) error {
			phasesNode = n
			items, err := d.sequence(n, p, "a list of phases")
			if err != nil {
				return err
			}
			if len(items) == 0 {
				return d.errAt(n, p, "empty list", "at least one phase")
			}
			for i, it := range items {
				ph, err := d.phase(it, fmt.Sprintf("%s[%d]", p, i), dir, i == len(items)-1)
				if err != nil {
					return err
				}
				w.Phases = append(w.Phases, ph)
			}
			return nil
		}},
		{"arrivals", func(n *yaml.Node, p string) (err error) { topArr = n; top.Arrivals, err = d.arrivals(n, p); return }},
		{"service", func(n *yaml.Node, p string) (err error) {
			topSvc = n
			top.Service, top.Split, err = d.serviceOrSplit(n, p, dir)
			return
		}},
		{"priority", func(n *yaml.Node, p string) (err error) { topPri = n; top.Priority, err = d.priority(n, p); return }},
		{"trace", func(n *yaml.Node, p string) error {
			traceNode = n
			s, err := d.scalar(n, p, "a CSV file path")
			if err != nil {
				return err
			}
			w.Trace = resolvePath(dir, s)
			if _, _, err := workloads.CheckTrace(w.Trace); err != nil {
				if ie, ok := err.(*inputerr.Error); ok && ie.Line == 0 && strings.HasPrefix(ie.Msg, "cannot open") {
					return d.errAt(n, p, ie.Msg, "a CSV trace, relative to the scenario's folder")
				}
				return err
			}
			return nil
		}},
		{"accesslog", func(n *yaml.Node, p string) error {
			logNode = n
			a, err := d.accessLog(n, p, dir)
			w.AccessLog = a
			return err
		}},
		{"failure", func(n *yaml.Node, p string) error {
			v, err := d.float(n, p, "a probability between 0 and 1")
			if err == nil && (v < 0 || v > 1) {
				err = d.errAt(n, p, fmt.Sprintf("must be a probability, got %v", v), "0 <= failure <= 1")
			}
			w.Failure = v
			return err
		}},
		{"periodic", func(n *yaml.Node, p string) error { periodicNode = n; return d.periodic(n, p, dir, sc) }},
	})
	if err != nil {
		return err
	}
	forms := 0
	for _, used := range []bool{phasesNode != nil, topArr != nil || topSvc != nil, traceNode != nil, logNode != nil} {
		if used {
			forms++
		}
	}
	switch {
	case forms == 0 && periodicNode != nil:
		sc.WorkloadForm = "periodic" // periodic jobs only
	case forms == 0:
		return d.errAt(n, path, "no traffic", "arrivals and service, phases, trace, accesslog, or periodic")
	case forms > 1:
		return d.errAt(n, path, "give only one of: phases; arrivals and service; trace; accesslog", "one form of workload")
	case (traceNode != nil || logNode != nil) && topPri != nil:
		return d.errAt(topPri, join(path, "priority"), "a trace carries its own priority column", "a priority column in the trace")
	case phasesNode != nil && topPri != nil:
		return d.errAt(topPri, join(path, "priority"), "with phases, give priority inside each phase", "phases[i].priority")
	case topArr != nil || topSvc != nil:
		if topArr == nil {
			return d.errAt(n, join(path, "arrivals"), "missing", "an arrival process, e.g. {process: poisson, rate: 100}")
		}
		if topSvc == nil {
			return d.errAt(n, join(path, "service"), "missing", "a service law, e.g. {dist: exponential, mean: 50ms}")
		}
		w.Phases = []workloads.Phase{top}
		sc.WorkloadForm = "single"
	case phasesNode != nil:
		sc.WorkloadForm = "phases"
	case traceNode != nil:
		sc.WorkloadForm = "trace"
	case logNode != nil:
		sc.WorkloadForm = "accesslog"
	}
	return nil
}

// accessLog decodes workload.accesslog and reads the log once, so that a
// broken log is reported before the run.
func (d *decoder) accessLog(n *yaml.Node, path, dir string) (*workloads.AccessLogSpec, error) {
	a := &workloads.AccessLogSpec{}
	var fileNode *yaml.Node
	err := d.mapping(n, path, []field{
		{"file", func(n *yaml.Node, p string) error {
			fileNode = n
			s, err := d.scalar(n, p, "the access log file")
			a.File = resolvePath(dir, s)
			return err
		}},
		{"pattern", func(n *yaml.Node, p string) (err error) {
			a.Pattern, err = d.scalar(n, p, `the AccessLogValve pattern, e.g. '%h %l %u %t "%r" %s %b %D', or common / combined`)
			return
		}},
		{"durationUnit", func(n *yaml.Node, p string) (err error) {
			a.DurationUnit, err = d.enum(n, p, []string{"us", "ms"})
			return
		}},
		{"maxBadFraction", func(n *yaml.Node, p string) error {
			v, err := d.float(n, p, "a fraction between 0 and 1")
			if err == nil && (v < 0 || v > 1) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 0..1, got %v", v), "a fraction of the lines")
			}
			a.MaxBadFraction = v
			return err
		}},
		{"timezone", func(n *yaml.Node, p string) (err error) {
			a.Location, err = d.scalar(n, p, "an IANA time zone")
			return
		}},
	})
	if err != nil {
		return nil, err
	}
	if fileNode == nil {
		return nil, d.errAt(n, join(path, "file"), "missing", "the access log file, relative to the scenario's folder")
	}
	if a.Pattern == "" {
		return nil, d.errAt(n, join(path, "pattern"), "missing", "the pattern the log was written with (server.xml's AccessLogValve pattern), or common / combined")
	}
	if _, _, err := accessLogEnd(*a); err != nil {
		var pe *workloads.ParamError
		if errors.As(err, &pe) {
			return nil, d.errAt(child(n, pe.Field), join(path, pe.Field), pe.Msg, pe.Allowed)
		}
		if ie, ok := err.(*inputerr.Error); ok && ie.Line == 0 && strings.HasPrefix(ie.Msg, "cannot open") {
			return nil, d.errAt(fileNode, join(path, "file"), ie.Msg, "an access log, relative to the scenario's folder")
		}
		return nil, err
	}
	return a, nil
}

func accessLogEnd(a workloads.AccessLogSpec) (n int, lastEnd time.Duration, err error) {
	src, err := workloads.OpenAccessLog(a, 0, 0)
	if err != nil {
		return 0, 0, err
	}
	return workloads.Extent(src)
}

func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func (d *decoder) phase(n *yaml.Node, path, dir string, last bool) (workloads.Phase, error) {
	var ph workloads.Phase
	var arr, svc *yaml.Node
	err := d.mapping(n, path, []field{
		{"duration", func(n *yaml.Node, p string) (err error) {
			ph.Duration, err = d.positiveDuration(n, p, "a positive duration; leave it out on the last phase to run to the end")
			return
		}},
		{"arrivals", func(n *yaml.Node, p string) (err error) { arr = n; ph.Arrivals, err = d.arrivals(n, p); return }},
		{"service", func(n *yaml.Node, p string) (err error) {
			svc = n
			ph.Service, ph.Split, err = d.serviceOrSplit(n, p, dir)
			return
		}},
		{"priority", func(n *yaml.Node, p string) (err error) { ph.Priority, err = d.priority(n, p); return }},
	})
	if err != nil {
		return ph, err
	}
	if arr == nil {
		return ph, d.errAt(n, join(path, "arrivals"), "missing", "an arrival process")
	}
	if svc == nil {
		return ph, d.errAt(n, join(path, "service"), "missing", "a service law")
	}
	if ph.Duration == 0 && !last {
		return ph, d.errAt(n, join(path, "duration"), "missing: only the last phase may run to the end", "a duration")
	}
	return ph, nil
}

// The keys each arrival process and service law takes, and which of them
// are required. A key that exists elsewhere but not for the chosen kind is
// an error, so "cv" on an exponential law is never silently ignored.
var (
	processKeys = map[string][2][]string{
		"poisson":  {{"process", "rate"}, {"rate"}},
		"constant": {{"process", "rate"}, {"rate"}},
		"onoff":    {{"process", "rate", "on", "off"}, {"rate", "on", "off"}},
		"burst":    {{"process", "count", "at", "every"}, {"count"}},
	}
	distKeys = map[string][2][]string{
		"constant":    {{"dist", "mean", "value"}, nil},
		"exponential": {{"dist", "mean"}, {"mean"}},
		"uniform":     {{"dist", "min", "max"}, {"min", "max"}},
		"lognormal":   {{"dist", "mean", "cv"}, {"mean", "cv"}},
		"gamma":       {{"dist", "mean", "cv"}, {"mean", "cv"}},
		"weibull":     {{"dist", "mean", "cv"}, {"mean", "cv"}},
		"pareto":      {{"dist", "mean", "alpha"}, {"mean", "alpha"}},
		"empirical":   {{"dist", "file", "column"}, {"file"}},
	}
)

// checkKeys rejects keys that do not apply to the chosen kind and reports
// required ones that are missing.
func (d *decoder) checkKeys(n *yaml.Node, path, what, kind string, keys [2][]string) error {
	allowed, required := keys[0], keys[1]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		ok := false
		for _, a := range allowed {
			if a == k {
				ok = true
			}
		}
		if !ok {
			return d.errAt(n.Content[i], join(path, k), fmt.Sprintf("does not apply to the %s %s", what, kind), "keys: "+strings.Join(allowed, ", "))
		}
	}
	for _, r := range required {
		if !has(n, r) {
			return d.errAt(n, join(path, r), fmt.Sprintf("missing for the %s %s", what, kind), "keys: "+strings.Join(allowed, ", "))
		}
	}
	if what == "distribution" && kind == "constant" && !has(n, "mean") && !has(n, "value") {
		return d.errAt(n, join(path, "value"), "missing for the distribution constant", "value: 50ms (or mean)")
	}
	return nil
}

func (d *decoder) arrivals(n *yaml.Node, path string) (workloads.ArrivalSpec, error) {
	var a workloads.ArrivalSpec
	err := d.mapping(n, path, []field{
		{"process", func(n *yaml.Node, p string) (err error) {
			a.Process, err = d.enum(n, p, workloads.ProcessNames())
			return
		}},
		{"rate", func(n *yaml.Node, p string) (err error) { a.Rate, err = d.rate(n, p); return }},
		{"on", func(n *yaml.Node, p string) (err error) {
			a.On, err = d.positiveDuration(n, p, "a positive duration")
			return
		}},
		{"off", func(n *yaml.Node, p string) (err error) {
			a.Off, err = d.nonNegativeDuration(n, p, "a duration >= 0")
			return
		}},
		{"count", func(n *yaml.Node, p string) error {
			v, err := d.integer(n, p, "a number of tasks >= 0")
			if err == nil && (v < 0 || v > 1<<40) {
				err = d.errAt(n, p, fmt.Sprintf("must be in 0..2^40, got %d", v), "a number of tasks")
			}
			a.Count = int(v)
			return err
		}},
		{"at", func(n *yaml.Node, p string) (err error) {
			a.At, err = d.nonNegativeDuration(n, p, "an offset from the phase start")
			return
		}},
		{"every", func(n *yaml.Node, p string) (err error) {
			a.Every, err = d.nonNegativeDuration(n, p, "a repeat period")
			return
		}},
	})
	if err != nil {
		return a, err
	}
	if n.Kind != yaml.MappingNode || !has(n, "process") {
		return a, d.errAt(n, join(path, "process"), "missing", "one of "+strings.Join(workloads.ProcessNames(), ", "))
	}
	return a, d.checkKeys(n, path, "arrival process", a.Process, processKeys[a.Process])
}

func (d *decoder) service(n *yaml.Node, path, dir string) (workloads.ServiceSpec, error) {
	var s workloads.ServiceSpec
	var file, column string
	var fileNode *yaml.Node
	err := d.mapping(n, path, []field{
		{"dist", func(n *yaml.Node, p string) (err error) { s.Dist, err = d.enum(n, p, workloads.DistNames()); return }},
		{"mean", func(n *yaml.Node, p string) (err error) { s.Mean, err = d.duration(n, p); return }},
		{"value", func(n *yaml.Node, p string) (err error) { s.Mean, err = d.duration(n, p); return }},
		{"cv", func(n *yaml.Node, p string) (err error) {
			s.CV, err = d.float(n, p, "a coefficient of variation > 0")
			return
		}},
		{"min", func(n *yaml.Node, p string) (err error) { s.Min, err = d.duration(n, p); return }},
		{"max", func(n *yaml.Node, p string) (err error) { s.Max, err = d.duration(n, p); return }},
		{"alpha", func(n *yaml.Node, p string) (err error) { s.Alpha, err = d.float(n, p, "a tail index > 1"); return }},
		{"file", func(n *yaml.Node, p string) (err error) {
			fileNode = n
			file, err = d.scalar(n, p, "a CSV file path")
			return
		}},
		{"column", func(n *yaml.Node, p string) (err error) { column, err = d.scalar(n, p, "a CSV column name"); return }},
	})
	if err != nil {
		return s, err
	}
	if n.Kind != yaml.MappingNode || !has(n, "dist") {
		return s, d.errAt(n, join(path, "dist"), "missing", "one of "+strings.Join(workloads.DistNames(), ", "))
	}
	if has(n, "mean") && has(n, "value") {
		return s, d.errAt(child(n, "value"), join(path, "value"), "give mean or value, not both", "value (or mean) for a constant")
	}
	if err := d.checkKeys(n, path, "distribution", s.Dist, distKeys[s.Dist]); err != nil {
		return s, err
	}
	if s.Dist == "empirical" {
		if column == "" {
			column = "service_s"
		}
		if s.Samples, err = readSamples(resolvePath(dir, file), column); err != nil {
			if ie, ok := err.(*inputerr.Error); ok && ie.Line == 0 && strings.HasPrefix(ie.Msg, "cannot open") {
				return s, d.errAt(fileNode, join(path, "file"), ie.Msg, "a CSV file, relative to the scenario's folder")
			}
			return s, err
		}
	}
	// Check the parameters now, so the error points at this block.
	if _, err := workloads.NewDistribution(s, workloads.NewStream(0, "check")); err != nil {
		var pe *workloads.ParamError
		if errors.As(err, &pe) {
			at := child(n, pe.Field)
			if at == nil {
				at = n
			}
			return s, d.errAt(at, join(path, pe.Field), pe.Msg, pe.Allowed)
		}
		return s, err
	}
	return s, nil
}

// readSamples reads one column of service times (seconds) from a CSV file
// with a header.
func readSamples(path, column string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("cannot open samples: %v", err), "")
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, inputerr.New(path, 0, 0, "", "cannot open samples: is a directory", "")
	}
	r := csv.NewReader(textlimit.Lines(f, textlimit.MaxLine))
	r.Comment = '#'
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, inputerr.New(path, 1, 0, "", "no header", fmt.Sprintf("a CSV file with a %q column", column))
	}
	if err != nil {
		return nil, samplesError(path, err)
	}
	idx := -1
	for i, h := range header {
		if strings.TrimSpace(h) == column {
			idx = i
		}
	}
	if idx < 0 {
		return nil, inputerr.New(path, 1, 0, column, "column not found", "columns: "+strings.Join(header, ", "))
	}
	var out []float64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, samplesError(path, err)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[idx]), 64)
		line, col := r.FieldPos(idx)
		if err != nil || v < 0 || v != v || v > workloads.MaxSeconds {
			return nil, inputerr.New(path, line, col, column, fmt.Sprintf("not a service time: %q", clip(rec[idx])), "seconds from 0 to 3153600000 (100 years)")
		}
		if len(out) == maxSamples {
			return nil, inputerr.New(path, line, 0, column, fmt.Sprintf("more than %d samples", maxSamples), "a sample of the service times, not all of them")
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, inputerr.New(path, 0, 0, column, "no samples", "one service time in seconds per row")
	}
	return out, nil
}

// maxSamples bounds an empirical law's samples (128 MB of them).
const maxSamples = 1 << 24

// samplesError turns a failed read of a samples file into an input error.
func samplesError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return inputerr.New(path, pe.Line, pe.Column, "", "malformed CSV: "+pe.Err.Error(), "")
	}
	var le *textlimit.LineError
	if errors.As(err, &le) {
		return inputerr.New(path, le.Line, 0, "", fmt.Sprintf("line longer than %d bytes", le.Max), "a CSV column of service times")
	}
	return inputerr.New(path, 0, 0, "", fmt.Sprintf("cannot read samples: %v", unwrapPath(err)), "")
}

// clip shortens a value quoted in an error message to a readable length.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func (d *decoder) priority(n *yaml.Node, path string) (workloads.PrioritySpec, error) {
	var p workloads.PrioritySpec
	err := d.mapping(n, path, []field{
		{"min", func(n *yaml.Node, q string) error {
			v, err := d.integer(n, q, "an integer")
			p.Min = int32(v)
			return err
		}},
		{"max", func(n *yaml.Node, q string) error {
			v, err := d.integer(n, q, "an integer")
			p.Max = int32(v)
			return err
		}},
	})
	if err == nil && p.Max < p.Min {
		err = d.errAt(n, join(path, "max"), fmt.Sprintf("%d is below min %d", p.Max, p.Min), "min <= max")
	}
	return p, err
}

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

package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/internal/lazyre"
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
	keepBlockScalars(root)
	return yaml.Marshal(root)
}

// keepBlockScalars gives every literal (|) or folded (>) scalar under n a
// style the YAML encoder writes back to the same value. The encoder keeps
// a scalar's style, but does not write every value in it faithfully: a
// folded scalar with a more-indented line ("a\n b\n") comes back with an
// extra blank line. Such a scalar is written literal, else double-quoted,
// the style that always reads back the same.
func keepBlockScalars(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		for !readsBack(n) {
			if n.Style&yaml.FoldedStyle != 0 {
				n.Style = n.Style&^yaml.FoldedStyle | yaml.LiteralStyle
			} else {
				n.Style = n.Style&^yaml.LiteralStyle | yaml.DoubleQuotedStyle
				break
			}
		}
	}
	for _, c := range n.Content {
		keepBlockScalars(c)
	}
}

// readsBack reports whether the scalar n, written as a mapping's value,
// reads back as the same value.
func readsBack(n *yaml.Node) bool {
	v := *n
	v.Anchor, v.HeadComment, v.LineComment, v.FootComment = "", "", "", ""
	out, err := yaml.Marshal(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "k"}, &v}})
	if err != nil {
		return false
	}
	var back map[string]yaml.Node
	if err := yaml.Unmarshal(out, &back); err != nil {
		return false
	}
	b, ok := back["k"]
	return ok && b.Kind == yaml.ScalarNode && b.Value == n.Value
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

// unwrapPath drops the path an *os.PathError repeats, as the input error
// names the file already.
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

var yamlLineRE = lazyre.New(`line (\d+)(?:, column (\d+))?: (.*)`)

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

// scenario decodes the top-level keys into sc, then fills in what defaults
// to other blocks (name, duration, sample) and checks what spans blocks:
// times within the run, periodic jobs and runtime events.
func (d *decoder) scenario(root *yaml.Node, sc *Scenario, dir string) error {
	var pn poolNodes
	var poolNode, jvmNode *yaml.Node
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
		{"resources", func(n *yaml.Node, p string) error { return d.resources(n, p, sc) }},
		{"workload", func(n *yaml.Node, p string) error {
			phasesSeen = true
			return d.workload(n, p, sc, dir)
		}},
		{"host", func(n *yaml.Node, p string) error { return d.host(n, p, &sc.Host) }},
		{"jvm", func(n *yaml.Node, p string) error { jvmNode = n; return d.jvmKeys(n, p) }},
		{"events", func(n *yaml.Node, p string) error { return d.events(n, p, sc) }},
		{"snapshots", func(n *yaml.Node, p string) (err error) {
			sc.Snapshots, err = d.durations(n, p, "a list of times", "a time within the run")
			return
		}},
		{"limits", func(n *yaml.Node, p string) error { return d.limits(n, p, sc) }},
	})
	if err != nil {
		return err
	}
	if poolNode == nil {
		return d.errAt(root, "pool", "missing", "a pool block, e.g. pool: {preset: fixed, core: 8}")
	}

	if sc.Name == "" {
		sc.Name = nameFromPath(sc.Path)
	}
	if err := d.finishPool(sc, &pn); err != nil {
		return err
	}
	if !phasesSeen {
		return d.errAt(root, "workload", "missing", "a workload block with arrivals and service, phases, or trace")
	}
	if err := d.finishTimes(root, sc); err != nil {
		return err
	}
	if err := d.checkPeriodic(root, sc); err != nil {
		return err
	}
	if err := d.finishJVM(root, jvmNode, sc); err != nil {
		return err
	}
	if err := d.checkResources(root, sc); err != nil {
		return err
	}
	if err := d.checkClient(root, sc); err != nil {
		return err
	}
	if f := sc.Pool.Config.Flavor; sc.Host.Wakeup != nil && (f == model.Jetty || f == model.Scheduled) {
		return d.errAt(child(child(root, "host"), "wakeup"), "host.wakeup", fmt.Sprintf("a wake-up latency is not modelled for %s's queue", f),
			"§12 covers the JDK's and Tomcat's queues: leave host.wakeup out for this pool")
	}
	return d.checkEvents(root, sc)
}

// limits decodes the limits block: the most threads the OS grants the pool
// and the queue length at which the run stops.
func (d *decoder) limits(n *yaml.Node, path string, sc *Scenario) error {
	return d.mapping(n, path, []field{
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
}

// nameFromPath is the name of a scenario that gives none: its file name
// without the extension.
func nameFromPath(path string) string {
	base := filepath.Base(path)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "" || name == "." {
		name = "scenario"
	}
	return name
}

// finishTimes fills in the duration a trace or log implies and the sample
// interval, then checks that the warmup and the snapshots fall within the
// run. It runs after finishPool, as the implied duration needs keepAlive.
func (d *decoder) finishTimes(root *yaml.Node, sc *Scenario) error {
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
	for i, at := range sc.Snapshots {
		if at > sc.Duration {
			items, _ := d.sequence(child(root, "snapshots"), "snapshots", "")
			return d.errAt(items[i], fmt.Sprintf("snapshots[%d]", i), fmt.Sprintf("%v is after the end of the run (%v)", at, sc.Duration), "times within the duration")
		}
	}
	return nil
}

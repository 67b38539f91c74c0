package scenarios

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/model"
)

// decoder walks a YAML node tree, checking every key and value, and turns
// problems into input errors located at the offending node.
type decoder struct {
	file      string
	overrides map[*yaml.Node]string // nodes set by --set, and the flag that set them
	// resources are the names in the resources block, decoded before the
	// workload so that a hold step's resource is checked where it is written.
	resourceNames []string
	resourceTypes map[string]string // by name
}

// errAt returns an input error at node n (or at the --set flag that made it).
func (d *decoder) errAt(n *yaml.Node, key, msg, allowed string) error {
	if n != nil {
		if flag, ok := d.overrides[n]; ok {
			return inputerr.New("--set "+flag, 0, 0, key, msg, allowed)
		}
		return inputerr.New(d.file, n.Line, n.Column, key, msg, allowed)
	}
	return inputerr.New(d.file, 0, 0, key, msg, allowed)
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// field is one allowed key of a mapping.
type field struct {
	name string
	fn   func(n *yaml.Node, path string) error
}

// mapping checks that n is a mapping whose keys are all known (no
// duplicates), then calls each present key's handler in the order given.
func (d *decoder) mapping(n *yaml.Node, path string, fields []field) error {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return nil // an empty block: nothing set
		}
		return d.errAt(n, path, fmt.Sprintf("must be a mapping of keys, got %s", describeNode(n)), keysOf(fields))
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		name := k.Value
		if k.Kind != yaml.ScalarNode {
			return d.errAt(k, path, "keys must be plain names", keysOf(fields))
		}
		if name == "<<" {
			return d.errAt(k, path, "merge keys (<<) are not supported", "spell the keys out")
		}
		known := false
		for _, f := range fields {
			if f.name == name {
				known = true
			}
		}
		if !known {
			msg := fmt.Sprintf("unknown key %q", name)
			if s := inputerr.Suggest(name, namesOf(fields)); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return d.errAt(k, join(path, name), msg, keysOf(fields))
		}
		if prev, dup := seen[name]; dup {
			return d.errAt(k, join(path, name), fmt.Sprintf("key given twice (first at line %d)", prev.Line), "")
		}
		seen[name] = k
	}
	for _, f := range fields {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if resolve(n.Content[i]).Value == f.name {
				if err := f.fn(resolve(n.Content[i+1]), join(path, f.name)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// has reports whether mapping n has key.
func has(n *yaml.Node, key string) bool { return child(n, key) != nil }

// child returns the value of key in mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if resolve(n.Content[i]).Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func namesOf(fields []field) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.name)
	}
	return out
}

func keysOf(fields []field) string {
	names := namesOf(fields)
	sort.Strings(names)
	return "keys: " + strings.Join(names, ", ")
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func (d *decoder) scalar(n *yaml.Node, path, allowed string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.errAt(n, path, fmt.Sprintf("must be a single value, got %s", describeNode(n)), allowed)
	}
	return strings.TrimSpace(n.Value), nil
}

// size parses a pool size or capacity: an integer, or "unbounded"
// (Integer.MAX_VALUE).
func (d *decoder) size(n *yaml.Node, path string) (int, error) {
	const allowed = `an integer, or "unbounded" for Integer.MAX_VALUE`
	s, err := d.scalar(n, path, allowed)
	if err != nil {
		return 0, err
	}
	if s == "unbounded" || s == "Integer.MAX_VALUE" {
		return model.Unbounded, nil
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil {
		return 0, d.errAt(n, path, fmt.Sprintf("not an integer: %q", s), allowed)
	}
	if v > model.Unbounded || v < math.MinInt32 {
		return 0, d.errAt(n, path, fmt.Sprintf("%d does not fit a Java int", v), fmt.Sprintf("at most %d (Integer.MAX_VALUE)", model.Unbounded))
	}
	return int(v), nil
}

func (d *decoder) integer(n *yaml.Node, path, allowed string) (int64, error) {
	s, err := d.scalar(n, path, allowed)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil {
		return 0, d.errAt(n, path, fmt.Sprintf("not an integer: %q", s), allowed)
	}
	return v, nil
}

func (d *decoder) float(n *yaml.Node, path, allowed string) (float64, error) {
	s, err := d.scalar(n, path, allowed)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, d.errAt(n, path, fmt.Sprintf("not a finite number: %q", s), allowed)
	}
	return v, nil
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, error) {
	s, err := d.scalar(n, path, "true or false")
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, d.errAt(n, path, fmt.Sprintf("not a boolean: %q", s), "true or false")
}

// duration parses a Go duration string ("250ms", "1h30m") or a plain number
// of seconds.
func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, error) {
	const allowed = `a duration such as 250ms, 1h30m, or a number of seconds`
	s, err := d.scalar(n, path, allowed)
	if err != nil {
		return 0, err
	}
	v, err := ParseDuration(s)
	if err != nil {
		return 0, d.errAt(n, path, err.Error(), allowed)
	}
	return v, nil
}

// positiveDuration parses a duration that must be > 0; allowed says what
// the key means in the error.
func (d *decoder) positiveDuration(n *yaml.Node, path, allowed string) (time.Duration, error) {
	v, err := d.duration(n, path)
	if err == nil && v <= 0 {
		err = d.errAt(n, path, fmt.Sprintf("must be > 0, got %v", v), allowed)
	}
	return v, err
}

// nonNegativeDuration parses a duration that must be >= 0.
func (d *decoder) nonNegativeDuration(n *yaml.Node, path, allowed string) (time.Duration, error) {
	v, err := d.duration(n, path)
	if err == nil && v < 0 {
		err = d.errAt(n, path, fmt.Sprintf("must be >= 0, got %v", v), allowed)
	}
	return v, err
}

// durations parses a list of durations >= 0 (snapshot times, service times).
func (d *decoder) durations(n *yaml.Node, path, list, item string) ([]time.Duration, error) {
	items, err := d.sequence(n, path, list)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, len(items))
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		v, err := d.duration(it, p)
		if err != nil {
			return nil, err
		}
		if v < 0 {
			return nil, d.errAt(it, p, fmt.Sprintf("must be >= 0, got %v", v), item)
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseDuration parses a Go duration string or a plain number of seconds.
func ParseDuration(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt64/1e9 {
			return 0, fmt.Errorf("not a usable number of seconds: %q", s)
		}
		return time.Duration(math.Round(f * 1e9)), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	return v, nil
}

// rate parses tasks per second: a number, or N/s, N/min, N/h.
func (d *decoder) rate(n *yaml.Node, path string) (float64, error) {
	const allowed = "a number per second, or N/s, N/min, N/h; at most 1e9/s"
	s, err := d.scalar(n, path, allowed)
	if err != nil {
		return 0, err
	}
	v, err := ParseRate(s)
	if err != nil {
		return 0, d.errAt(n, path, err.Error(), allowed)
	}
	return v, nil
}

// MaxRate is the fastest arrival rate: one task per nanosecond, the
// virtual clock's resolution.
const MaxRate = 1e9

// ParseRate parses a rate: a number per second, or N/s, N/min, N/h, at
// most MaxRate.
func ParseRate(s string) (float64, error) {
	num, unit, ok := splitRate(s)
	if !ok {
		return 0, fmt.Errorf("not a rate: %q", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a rate: %q", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("must be >= 0, got %q", s)
	}
	switch unit {
	case "m", "min", "minute":
		v /= 60
	case "h", "hour":
		v /= 3600
	}
	if v > MaxRate {
		return 0, fmt.Errorf("%q is faster than the clock: more than one task per nanosecond", s)
	}
	return v, nil
}

// rateSpace is what \s matches in a regular expression: the spacing
// splitRate allows.
const rateSpace = " \t\n\f\r"

// splitRate splits a rate into its number (the characters 0-9 . e E + -,
// checked by the caller) and its unit (s, sec, second, m, min, minute, h,
// hour; "" if none), as
//
//	^\s*([0-9.eE+-]+)\s*(?:/\s*(s|sec|second|m|min|minute|h|hour))?\s*$
//
// would; ok is false where it would not match. Written out because that
// expression's compilation was most of what parsing a scenario's rates cost,
// paid by every poolsim run (issue 19); TestSplitRateIsTheRegexp holds the
// two equal.
func splitRate(s string) (num, unit string, ok bool) {
	rest := strings.TrimLeft(s, rateSpace)
	n := 0
	for n < len(rest) && strings.IndexByte("0123456789.eE+-", rest[n]) >= 0 {
		n++
	}
	if n == 0 {
		return "", "", false
	}
	num, rest = rest[:n], strings.Trim(rest[n:], rateSpace)
	if rest == "" {
		return num, "", true
	}
	if rest[0] != '/' {
		return "", "", false
	}
	switch unit = strings.TrimLeft(rest[1:], rateSpace); unit {
	case "s", "sec", "second", "m", "min", "minute", "h", "hour":
		return num, unit, true
	}
	return "", "", false
}

func (d *decoder) enum(n *yaml.Node, path string, names []string) (string, error) {
	allowed := "one of " + strings.Join(names, ", ")
	s, err := d.scalar(n, path, allowed)
	if err != nil {
		return "", err
	}
	for _, v := range names {
		if v == s {
			return s, nil
		}
	}
	msg := fmt.Sprintf("unknown value %q", s)
	if sug := inputerr.Suggest(s, names); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", sug)
	}
	return "", d.errAt(n, path, msg, allowed)
}

func (d *decoder) sequence(n *yaml.Node, path, allowed string) ([]*yaml.Node, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, d.errAt(n, path, fmt.Sprintf("must be a list, got %s", describeNode(n)), allowed)
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolve(c)
	}
	return out, nil
}

// applyOverride sets the value at a dotted path (pool.core, workload.phases.0.arrivals.rate
// or workload.phases[0].arrivals.rate) in the document's root mapping, creating
// mappings as needed. The value is parsed as YAML, so flow mappings work too.
func (d *decoder) applyOverride(root *yaml.Node, set string) error {
	key, value, ok := strings.Cut(set, "=")
	if !ok || strings.TrimSpace(key) == "" {
		return inputerr.New("--set "+set, 0, 0, "", "expected KEY=VALUE", "e.g. --set pool.core=20")
	}
	var v yaml.Node
	if err := yaml.Unmarshal([]byte(value), &v); err != nil {
		return inputerr.New("--set "+set, 0, 0, key, fmt.Sprintf("value is not valid YAML: %v", err), "")
	}
	val := &v
	if v.Kind == yaml.DocumentNode {
		if len(v.Content) == 0 {
			val = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
		} else {
			val = v.Content[0]
		}
	}
	markOverride(d, val, set)
	parts := strings.Split(strings.ReplaceAll(strings.ReplaceAll(key, "[", "."), "]", ""), ".")
	cur := root
	for i, p := range parts {
		last := i == len(parts)-1
		switch cur.Kind {
		case yaml.MappingNode:
			next := (*yaml.Node)(nil)
			for j := 0; j+1 < len(cur.Content); j += 2 {
				if cur.Content[j].Value == p {
					if last {
						cur.Content[j+1] = val
					}
					next = resolve(cur.Content[j+1])
				}
			}
			if next == nil {
				k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p}
				d.overrides[k] = set
				if last {
					cur.Content = append(cur.Content, k, val)
				} else {
					next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
					d.overrides[next] = set
					cur.Content = append(cur.Content, k, next)
				}
			}
			cur = next
		case yaml.SequenceNode:
			idx, err := strconv.Atoi(p)
			if err != nil || idx < 0 || idx >= len(cur.Content) {
				return inputerr.New("--set "+set, 0, 0, key, fmt.Sprintf("%q is not an index of this list (0..%d)", p, len(cur.Content)-1), "")
			}
			if last {
				cur.Content[idx] = val
			}
			cur = resolve(cur.Content[idx])
		default:
			return inputerr.New("--set "+set, 0, 0, key, fmt.Sprintf("%s is a single value, not a block", strings.Join(parts[:i], ".")), "")
		}
	}
	return nil
}

func markOverride(d *decoder, n *yaml.Node, set string) {
	d.overrides[n] = set
	for _, c := range n.Content {
		markOverride(d, c, set)
	}
}

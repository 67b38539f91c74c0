package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/internal/lazyre"
	"github.com/poolsim/poolsim/scenarios"
)

// Kind is what a parameter's values are. It decides how a range is spaced
// and written, and each value's canonical form (which feeds the seeds).
type Kind int

const (
	// Text values are passed to the scenario as written: queue types,
	// rejection policies, booleans, YAML blocks.
	Text Kind = iota
	// Integer values belong to an integer key (pool.core, pool.max,
	// pool.queue.capacity, ...; see IntegerKey); "unbounded" is allowed in
	// lists.
	Integer
	// Number values are plain numbers. A plain number given to a duration
	// key means seconds, to a rate key tasks per second (CONTRACT.md §1).
	Number
	// Duration values carry a Go duration unit (250ms, 1m30s).
	Duration
	// Rate values carry a rate unit (300/s, 2/min, 10/h).
	Rate
)

var kindNames = [...]string{"text", "integer", "number", "duration", "rate"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// parseKind is the inverse of Kind.String.
func parseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// Value is one value of a swept parameter.
type Value struct {
	// Text is what the scenario receives (as --set KEY=Text would give it)
	// and what the outputs print: "50", "10s", "31.62/s", "array".
	Text string
	// Canon is the value in base units, so that equal values written
	// differently are one value: integers in decimal ("unbounded" stays),
	// durations in seconds, rates in tasks per second, plain numbers in
	// Go's shortest form; text as written. Seeds hash it.
	Canon string
}

// Num is the value as a number in base units (seconds, tasks per second),
// or NaN when it is not a number ("unbounded", text), for plots and gates.
func (v Value) Num(k Kind) float64 {
	if k == Text {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(v.Canon, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// Param is one swept scenario key and its values, in the order they are
// swept.
type Param struct {
	// Key is the scenario key in dotted form, as for --set: pool.max,
	// workload.phases.0.arrivals.rate.
	Key string
	// Spec is the values as given: "8,16,32", "10:1000:12:log".
	Spec   string
	Kind   Kind
	Values []Value
	// Note says what expanding a range changed (rounding to integers,
	// duplicates dropped); "" when nothing.
	Note string
}

// Limits of a parameter's expansion.
const (
	// MaxRangePoints is the most points one range may ask for.
	MaxRangePoints = 100000
	// roundDigits is the significant digits range points are rounded to.
	roundDigits = 4
)

// integerKeys are the scenario keys whose values are integers ("*" is a
// list index). A test checks this table against the scenario loader.
var integerKeys = []string{
	"version",
	"seed",
	"pool.core",
	"pool.max",
	"pool.queue.capacity",
	"limits.maxThreads",
	"limits.maxQueued",
	"workload.arrivals.count",
	"workload.phases.*.arrivals.count",
	"workload.priority.min",
	"workload.priority.max",
	"workload.phases.*.priority.min",
	"workload.phases.*.priority.max",
	"events.*.set.core",
	"events.*.set.max",
}

// IntegerKey reports whether the scenario key (dotted form) takes integer
// values.
func IntegerKey(key string) bool {
	parts := strings.Split(key, ".")
	for _, pat := range integerKeys {
		pp := strings.Split(pat, ".")
		if len(pp) != len(parts) {
			continue
		}
		ok := true
		for i := range pp {
			if pp[i] == "*" {
				if _, err := strconv.Atoi(parts[i]); err != nil {
					ok = false
				}
			} else if pp[i] != parts[i] {
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// NormalizeKey writes a scenario key in dotted form: list indexes written
// as [i] become .i, as --set accepts both.
func NormalizeKey(key string) string {
	key = strings.TrimSpace(key)
	key = strings.ReplaceAll(key, "]", "")
	return strings.ReplaceAll(key, "[", ".")
}

// rangeRE matches A:B:N or A:B:N:lin|log, where A and B hold no colon,
// comma or bracket (so YAML blocks are never taken for ranges).
var rangeRE = lazyre.New(`^\s*([^:,{}\[\]]+?)\s*:\s*([^:,{}\[\]]+?)\s*:\s*([0-9]+)\s*(?::\s*(lin|log)\s*)?$`)

// rateUnitRE matches a rate written with a unit, capturing the number and
// the unit.
var rateUnitRE = lazyre.New(`^\s*([0-9.eE+-]+)\s*/\s*(s|sec|second|m|min|minute|h|hour)\s*$`)

const paramAllowed = "KEY=VALUES: a list 8,16,32, a linear range 10:1000:12, or a log range 10:1000:12:log"

// ParseParam parses one --param flag, KEY=VALUES. VALUES is
//
//   - a list, 8,16,32 or linked,array or 10s,30s,60s: the values as written,
//     in that order (commas inside {} or [] or quotes do not split);
//   - a linear range A:B:N: N points from A to B, evenly spaced;
//   - a log range A:B:N:log: N points from A to B, evenly spaced in log
//     (A and B > 0).
//
// Range ends are kept as written; the points between are rounded to 4
// significant digits, in the ends' unit: both ends plain numbers give
// numbers (rounded to whole numbers, duplicates dropped, for integer keys
// such as pool.max, and Param.Note says so); both ends durations with a
// unit (10s:60s) give durations, each written in s, ms, µs or ns — the
// largest that keeps it at least 1 (100ms:10s:5:log gives 100ms,
// 316.2ms, 1s, 3.162s, 10s); both ends rates with the same unit
// (10/s:1000/s) give rates in that unit (10/s, 31.62/s, 100/s, ...).
// The values written are exactly the values simulated.
func ParseParam(flag string) (Param, error) {
	bad := func(key, msg, allowed string) error {
		return inputerr.New("--param "+flag, 0, 0, key, msg, allowed)
	}
	rawKey, spec, ok := strings.Cut(flag, "=")
	key := NormalizeKey(rawKey)
	if !ok || key == "" {
		return Param{}, bad("", "expected KEY=VALUES", paramAllowed)
	}
	if strings.ContainsAny(key, " \t=") {
		return Param{}, bad(key, fmt.Sprintf("%q is not a scenario key", rawKey), "a dotted key as for --set, e.g. pool.max")
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Param{}, bad(key, "no values", paramAllowed)
	}
	p := Param{Key: key, Spec: spec}
	var err error
	if m := rangeRE.FindStringSubmatch(spec); m != nil {
		err = p.expandRange(m[1], m[2], m[3], m[4] == "log")
	} else {
		err = p.expandList()
	}
	if err != nil {
		return Param{}, bad(key, err.Error(), paramAllowed)
	}
	return p, nil
}

// classify reads one value written for key.
func classify(key, s string) (Value, Kind, error) {
	s = strings.TrimSpace(s)
	if IntegerKey(key) {
		if s == "unbounded" || s == "Integer.MAX_VALUE" {
			return Value{Text: s, Canon: "unbounded"}, Integer, nil
		}
		v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil {
			return Value{}, 0, fmt.Errorf("%s takes integers, not %q", key, s)
		}
		return Value{Text: s, Canon: strconv.FormatInt(v, 10)}, Integer, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return Value{}, 0, fmt.Errorf("%q is not a finite number", s)
		}
		return Value{Text: s, Canon: canonFloat(f)}, Number, nil
	}
	if rateUnitRE.MatchString(s) {
		v, err := scenarios.ParseRate(s)
		if err != nil {
			return Value{}, 0, err
		}
		return Value{Text: s, Canon: canonFloat(v)}, Rate, nil
	}
	if d, err := scenarios.ParseDuration(s); err == nil {
		return Value{Text: s, Canon: canonFloat(d.Seconds())}, Duration, nil
	}
	return Value{Text: s, Canon: s}, Text, nil
}

// canonFloat is the one canonical number format (-0 is 0).
func canonFloat(f float64) string {
	if f == 0 {
		f = 0
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// expandList fills p from a comma-separated list.
func (p *Param) expandList() error {
	items, err := splitList(p.Spec)
	if err != nil {
		return err
	}
	kinds := map[Kind]bool{}
	seen := map[string]string{}
	for _, it := range items {
		v, k, err := classify(p.Key, it)
		if err != nil {
			return err
		}
		if prev, dup := seen[v.Canon]; dup {
			if prev == v.Text {
				return fmt.Errorf("%q is listed twice", v.Text)
			}
			return fmt.Errorf("%q and %q are the same value", prev, v.Text)
		}
		seen[v.Canon] = v.Text
		kinds[k] = true
		p.Values = append(p.Values, v)
	}
	// The list's kind: one kind, or plain numbers mixed with durations
	// (seconds) or rates (per second), which read as the latter.
	switch {
	case len(kinds) == 1:
		for k := range kinds {
			p.Kind = k
		}
	case len(kinds) == 2 && kinds[Number] && kinds[Duration]:
		p.Kind = Duration
	case len(kinds) == 2 && kinds[Number] && kinds[Rate]:
		p.Kind = Rate
	default:
		p.Kind = Text
	}
	return nil
}

// splitList splits s at commas outside {}, [] and quotes.
func splitList(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '{' || r == '[':
			depth++
		case r == '}' || r == ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced %q", r)
			}
		case r == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if depth != 0 || quote != 0 {
		return nil, fmt.Errorf("unbalanced brackets or quotes in %q", s)
	}
	out = append(out, s[start:])
	for i, it := range out {
		out[i] = strings.TrimSpace(it)
		if out[i] == "" {
			return nil, fmt.Errorf("empty value in the list %q", s)
		}
	}
	return out, nil
}

// expandRange fills p from A:B:N[:log].
func (p *Param) expandRange(aText, bText, nText string, logScale bool) error {
	n, err := strconv.Atoi(nText)
	if err != nil || n < 2 || n > MaxRangePoints {
		return fmt.Errorf("a range needs 2 to %d points, got %s (for one value, write it alone)", MaxRangePoints, nText)
	}
	a, ka, err := classify(p.Key, aText)
	if err != nil {
		return err
	}
	b, kb, err := classify(p.Key, bText)
	if err != nil {
		return err
	}
	if a.Canon == "unbounded" || b.Canon == "unbounded" {
		return fmt.Errorf("a range needs numbers at both ends, not %q", "unbounded")
	}
	if ka != kb {
		return fmt.Errorf("both ends of a range need the same kind of value, got %s %q and %s %q", ka, aText, kb, bText)
	}
	// lo and hi are the ends in the unit the points are computed in.
	var lo, hi float64
	var unit string // rates: the unit written after the slash
	switch ka {
	case Text:
		return fmt.Errorf("a range needs numbers, durations or rates at both ends, got %q and %q", aText, bText)
	case Integer, Number:
		lo, hi = mustFloat(a.Canon), mustFloat(b.Canon)
	case Duration:
		da, _ := scenarios.ParseDuration(strings.TrimSpace(aText))
		db, _ := scenarios.ParseDuration(strings.TrimSpace(bText))
		lo, hi = float64(da), float64(db)
	case Rate:
		ma, mb := rateUnitRE.FindStringSubmatch(aText), rateUnitRE.FindStringSubmatch(bText)
		if ma[2] != mb[2] {
			return fmt.Errorf("both ends of a rate range need the same unit, got /%s and /%s", ma[2], mb[2])
		}
		lo, hi, unit = mustFloat(ma[1]), mustFloat(mb[1]), ma[2]
	}
	if lo == hi {
		return fmt.Errorf("the range's ends are equal (%s)", aText)
	}
	if logScale && (lo <= 0 || hi <= 0) {
		return fmt.Errorf("a log range needs both ends > 0, got %q and %q", aText, bText)
	}
	p.Kind = ka
	xs := spaced(lo, hi, n, logScale)
	seen := map[string]bool{}
	dups, rounded := 0, false
	for i, x := range xs {
		var v Value
		switch {
		case i == 0:
			v = a
		case i == n-1:
			v = b
		default:
			switch ka {
			case Integer:
				r := math.Round(x)
				rounded = rounded || r != x
				v = Value{Text: strconv.FormatFloat(r, 'f', -1, 64), Canon: strconv.FormatFloat(r, 'f', -1, 64)}
			case Number:
				r := roundSig(x)
				v = Value{Text: strconv.FormatFloat(r, 'f', -1, 64), Canon: canonFloat(r)}
			case Duration:
				v = durationValue(x)
			case Rate:
				t := strconv.FormatFloat(roundSig(x), 'f', -1, 64) + "/" + unit
				r, _ := scenarios.ParseRate(t)
				v = Value{Text: t, Canon: canonFloat(r)}
			}
		}
		if seen[v.Canon] {
			dups++
			continue
		}
		seen[v.Canon] = true
		p.Values = append(p.Values, v)
	}
	var notes []string
	if rounded {
		notes = append(notes, "rounded to integers")
	}
	if dups > 0 {
		notes = append(notes, fmt.Sprintf("%d duplicate values dropped", dups))
	}
	if len(notes) > 0 {
		texts := make([]string, len(p.Values))
		for i, v := range p.Values {
			texts[i] = v.Text
		}
		p.Note = fmt.Sprintf("%s=%s: %s: %d values %s", p.Key, p.Spec, strings.Join(notes, ", "), len(p.Values), strings.Join(texts, ","))
	}
	return nil
}

func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		panic("sweep: not a number after classification: " + s)
	}
	return f
}

// spaced returns n points from lo to hi, both exact, evenly spaced in
// value or in log.
func spaced(lo, hi float64, n int, logScale bool) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		f := float64(i) / float64(n-1)
		if logScale {
			xs[i] = math.Exp(math.Log(lo) + f*(math.Log(hi)-math.Log(lo)))
		} else {
			xs[i] = lo + f*(hi-lo)
		}
	}
	xs[0], xs[n-1] = lo, hi
	return xs
}

// roundSig rounds x to roundDigits significant digits.
func roundSig(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', roundDigits, 64), 64)
	return r
}

// durationUnits are the units range points are written in, largest first:
// decimal multiples of each other, so a rounded value is exact in each.
var durationUnits = []struct {
	name string
	ns   float64
}{{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}, {"ns", 1}}

// durationValue writes ns nanoseconds in the largest unit that keeps it at
// least 1, rounded to roundDigits significant digits (whole nanoseconds at
// most).
func durationValue(ns float64) Value {
	neg := ns < 0
	// Round first: the units are decimal multiples of each other, so 4
	// significant digits in ns are 4 in any unit, and 999.99…ms is 1s.
	a := roundSig(math.Abs(ns))
	u := durationUnits[len(durationUnits)-1]
	for _, c := range durationUnits {
		if a >= c.ns {
			u = c
			break
		}
	}
	x := roundSig(a / u.ns)
	if u.name == "ns" {
		x = math.Round(x)
	}
	t := strconv.FormatFloat(x, 'f', -1, 64) + u.name
	if neg {
		t = "-" + t
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		panic("sweep: formatted duration does not parse: " + t)
	}
	return Value{Text: t, Canon: canonFloat(d.Seconds())}
}

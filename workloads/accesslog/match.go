package accesslog

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// This file matches one line against the compiled pattern: where each field
// ends (backtracking, within a work budget), whether a value fits its
// field, and which point of the line to blame when nothing fits.

// Backtracking is bounded by a work budget per line, counted in bytes
// examined: workBase plus workPerByte per byte of the line. Real lines need
// a few passes over their bytes; a hostile line stops (as a bad line)
// instead of making the parse exponential or quadratic.
const (
	workBase    = 10000
	workPerByte = 64
)

// parseLine matches one line against the pattern.
func (p *Parser) parseLine(line string) (Record, *inputerr.Error) {
	p.steps, p.budget = 0, workBase+workPerByte*len(line)
	var fail failure
	if !p.match(line, 0, 0, &fail) {
		if p.steps > p.budget {
			return Record{}, &inputerr.Error{File: p.name, Line: p.line, Key: "pattern", Msg: "line too ambiguous to split into the pattern's fields"}
		}
		return Record{}, fail.err(p, line)
	}
	return p.record(line)
}

// failure remembers the furthest point a match attempt reached, which is
// the most useful place to point at.
type failure struct {
	pos  int
	elem int
	why  string
	set  bool
}

// note records a failure at pos in element elem if it is the furthest yet.
func (f *failure) note(pos, elem int, why string) {
	if !f.set || pos > f.pos || (pos == f.pos && elem > f.elem) {
		*f = failure{pos: pos, elem: elem, why: why, set: true}
	}
}

// err is the input error of the furthest failure, its column counted in
// characters.
func (f *failure) err(p *Parser, line string) *inputerr.Error {
	col := utf8.RuneCountInString(line[:min(f.pos, len(line))]) + 1
	key := ""
	if f.elem < len(p.elems) && p.elems[f.elem].kind != kLiteral {
		key = p.elems[f.elem].code
	}
	why := f.why
	if !f.set {
		why = "does not match the pattern"
	}
	return &inputerr.Error{File: p.name, Line: p.line, Col: col, Key: key, Msg: why}
}

// match tries to match elements ei.. at line[pos:], backtracking over where
// each field ends. Values of the fields go to p.vals.
func (p *Parser) match(line string, ei, pos int, fail *failure) bool {
	p.steps++
	if p.steps > p.budget {
		return false
	}
	if ei == len(p.elems) {
		if pos != len(line) {
			fail.note(pos, ei, fmt.Sprintf("unexpected %q after the last field", clip(line[pos:])))
			return false
		}
		return true
	}
	e := p.elems[ei]
	if e.kind == kLiteral {
		if !strings.HasPrefix(line[pos:], e.literal) {
			fail.note(pos, ei, fmt.Sprintf("expected %q", clip(e.literal)))
			return false
		}
		return p.match(line, ei+1, pos+len(e.literal), fail)
	}
	if selfDelimiting(e) {
		end := strings.IndexByte(line[pos:], ']')
		if !strings.HasPrefix(line[pos:], "[") || end < 0 {
			fail.note(pos, ei, "expected a [dd/MMM/yyyy:HH:mm:ss Z] timestamp")
			return false
		}
		v := line[pos : pos+end+1]
		if why := p.check(e, v); why != "" {
			fail.note(pos, ei, why)
			return false
		}
		p.vals[ei] = v
		return p.match(line, ei+1, pos+end+1, fail)
	}
	// The field runs to the next literal (or the end of the line); try each
	// occurrence of that literal in turn.
	if ei+1 == len(p.elems) {
		v := line[pos:]
		if why := p.check(e, v); why != "" {
			fail.note(pos, ei, why)
			return false
		}
		p.vals[ei] = v
		return true
	}
	if q := p.elems[ei+1]; q.kind == kQuery {
		return p.matchWithQuery(line, ei, pos, fail)
	}
	next := p.elems[ei+1].literal
	from := pos
	for {
		k := indexUnescaped(line, from, next, e.kind == kEscaped || e.escaped)
		if k < 0 {
			p.steps += len(line) - from
			fail.note(pos, ei, fmt.Sprintf("no %q after the field", clip(next)))
			return false
		}
		v := line[pos:k]
		p.steps += k - from + len(v)
		if p.steps > p.budget {
			return false
		}
		if why := p.check(e, v); why == "" {
			p.vals[ei] = v
			if p.match(line, ei+1, k, fail) {
				return true
			}
			if p.steps > p.budget {
				return false
			}
		} else {
			fail.note(pos, ei, why)
		}
		from = k + 1
	}
}

// matchWithQuery matches a field directly followed by %q (such as %U%q):
// the text up to the literal after %q splits at its first '?'.
func (p *Parser) matchWithQuery(line string, ei, pos int, fail *failure) bool {
	e := p.elems[ei]
	after := ""
	if ei+2 < len(p.elems) {
		after = p.elems[ei+2].literal
	}
	from := pos
	for {
		k := len(line)
		if after != "" {
			k = indexUnescaped(line, from, after, e.kind == kEscaped)
			if k < 0 {
				fail.note(pos, ei, fmt.Sprintf("no %q after the field", clip(after)))
				return false
			}
		}
		seg := line[pos:k]
		p.steps += k - from + 2*len(seg)
		if p.steps > p.budget {
			return false
		}
		split := strings.IndexByte(seg, '?')
		if split < 0 {
			split = len(seg)
		}
		v, q := seg[:split], seg[split:]
		if why := p.check(e, v); why != "" {
			fail.note(pos, ei, why)
		} else if why := p.check(p.elems[ei+1], q); why != "" {
			fail.note(pos+split, ei+1, why)
		} else {
			p.vals[ei], p.vals[ei+1] = v, q
			if p.match(line, ei+2, k, fail) {
				return true
			}
			if p.steps > p.budget {
				return false
			}
		}
		if after == "" {
			return false
		}
		from = k + 1
	}
}

// indexUnescaped finds lit in s at or after from; in escaped fields a
// backslash hides the next character.
func indexUnescaped(s string, from int, lit string, escaped bool) int {
	if !escaped {
		k := strings.Index(s[from:], lit)
		if k < 0 {
			return -1
		}
		return from + k
	}
	for i := from; i < len(s); i++ {
		if strings.HasPrefix(s[i:], lit) {
			return i
		}
		if s[i] == '\\' {
			i++
		}
	}
	return -1
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// check validates a field value by its kind; "" means valid.
func (p *Parser) check(e element, v string) string {
	switch e.kind {
	case kText:
		if strings.ContainsAny(v, "\n") {
			return "line break in a field"
		}
	case kEscaped:
		if strings.HasSuffix(v, `\`) && !strings.HasSuffix(v, `\\`) {
			return "ends in an escape"
		}
	case kQuery:
		if v != "" && (v[0] != '?' || strings.ContainsAny(v, " \t")) {
			return fmt.Sprintf("%q is not a query string", clip(v))
		}
	case kRequest:
		if v == "-" {
			return ""
		}
		sp := strings.IndexByte(v, ' ')
		if sp <= 0 || sp == len(v)-1 {
			return "not a request line (METHOD URI PROTOCOL)"
		}
		for i := 0; i < sp; i++ {
			c := v[i]
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
				return "not a request line (METHOD URI PROTOCOL)"
			}
		}
		if strings.Count(v[sp+1:], " ") > 1 {
			return "not a request line (METHOD URI PROTOCOL)"
		}
	case kStatus, kBytes, kCommit:
		if v != "-" && !isDigits(v) {
			return fmt.Sprintf("%q is not a number or -", clip(v))
		}
	case kPort:
		if !isDigits(strings.TrimPrefix(v, "-")) {
			return fmt.Sprintf("%q is not a port", clip(v))
		}
	case kConnStatus:
		if v != "X" && v != "+" && v != "-" && v != "?" {
			return fmt.Sprintf("%q is not a connection status (X, + or -)", clip(v))
		}
	case kDuration:
		if _, err := parseDuration(e, v, p.opt.DurationUnit); err != nil {
			return err.Error()
		}
	case kTime:
		if e.tt == ttMsecFrac {
			if len(v) != 3 || !isDigits(v) {
				return fmt.Sprintf("%q is not three digits of milliseconds", clip(v))
			}
			return ""
		}
		if _, err := p.parseTime(e, v); err != nil {
			return err.Error()
		}
	}
	return ""
}

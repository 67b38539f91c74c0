package importconf

import (
	"errors"
	"strings"
)

// matchProfiles evaluates a Spring profile condition (the value of
// spring.config.activate.on-profile) against the active profiles: a
// comma-separated list matches when any element does; an element is a
// profile expression as Spring's Profiles.of parses it: names, "!" (not),
// "&" (and), "|" (or) and parentheses, where "&" and "|" may not be mixed
// without parentheses.
func matchProfiles(cond string, active []string) (bool, error) {
	set := map[string]bool{}
	for _, a := range active {
		set[a] = true
	}
	any := false
	for _, part := range strings.Split(cond, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p := profParser{toks: tokenizeProfiles(part)}
		v, err := p.expr(0)
		if err != nil {
			return false, err
		}
		if p.pos != len(p.toks) {
			return false, errors.New("malformed profile expression " + part)
		}
		if v(set) {
			any = true
		}
	}
	return any, nil
}

func tokenizeProfiles(s string) []string {
	var toks []string
	cur := strings.Builder{}
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			toks = append(toks, t)
		}
		cur.Reset()
	}
	for _, r := range s {
		switch r {
		case '(', ')', '&', '|', '!':
			flush()
			toks = append(toks, string(r))
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return toks
}

type profParser struct {
	toks []string
	pos  int
}

type profFn func(map[string]bool) bool

const profMaxDepth = 64

func (p *profParser) expr(depth int) (profFn, error) {
	if depth > profMaxDepth {
		return nil, errors.New("profile expression nested too deeply")
	}
	left, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	op := ""
	for p.pos < len(p.toks) && (p.toks[p.pos] == "&" || p.toks[p.pos] == "|") {
		t := p.toks[p.pos]
		if op != "" && t != op {
			return nil, errors.New("malformed profile expression: & and | mixed without parentheses")
		}
		op = t
		p.pos++
		right, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		l, r := left, right
		if op == "&" {
			left = func(s map[string]bool) bool { return l(s) && r(s) }
		} else {
			left = func(s map[string]bool) bool { return l(s) || r(s) }
		}
	}
	return left, nil
}

func (p *profParser) unary(depth int) (profFn, error) {
	if depth > profMaxDepth {
		return nil, errors.New("profile expression nested too deeply")
	}
	if p.pos >= len(p.toks) {
		return nil, errors.New("malformed profile expression: missing a profile name")
	}
	t := p.toks[p.pos]
	p.pos++
	switch t {
	case "!":
		inner, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return func(s map[string]bool) bool { return !inner(s) }, nil
	case "(":
		inner, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.pos >= len(p.toks) || p.toks[p.pos] != ")" {
			return nil, errors.New("malformed profile expression: missing )")
		}
		p.pos++
		return inner, nil
	case ")", "&", "|":
		return nil, errors.New("malformed profile expression: unexpected " + t)
	}
	return func(s map[string]bool) bool { return s[t] }, nil
}

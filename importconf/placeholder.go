package importconf

import (
	"errors"
	"strings"
)

// tomcatMaxPasses is IntrospectionUtils.replaceProperties' limit on nested
// substitution passes (10.1.52: "introspectionUtils.tooManyIterations" after
// 20).
const tomcatMaxPasses = 20

// tomcatReplace substitutes ${name} and ${name:-default} the way Tomcat's
// Digester does for server.xml attribute values
// (IntrospectionUtils.replaceProperties, 10.1.52): a name without a value
// keeps its default after ":-", else stays as the literal "${name}"; "$" not
// followed by "{" and a "${" without "}" are copied; when a pass changed the
// text and it still contains "${", it runs again, at most 20 passes.
// unresolved lists the names that had neither value nor default.
func tomcatReplace(value string, lookup func(string) (string, bool)) (out string, unresolved []string) {
	for pass := 0; pass < tomcatMaxPasses; pass++ {
		if !strings.Contains(value, "${") {
			return value, nil
		}
		var b strings.Builder
		var missing []string
		prev := 0
		for {
			pos := strings.IndexByte(value[prev:], '$')
			if pos < 0 {
				break
			}
			pos += prev
			b.WriteString(value[prev:pos])
			switch {
			case pos == len(value)-1, value[pos+1] != '{':
				b.WriteByte('$')
				prev = pos + 1
			default:
				end := strings.IndexByte(value[pos:], '}')
				if end < 0 {
					b.WriteString(value[pos:])
					prev = len(value)
					break
				}
				end += pos
				name := value[pos+2 : end]
				v, ok := lookup(name)
				if !ok {
					if i := strings.Index(name, ":-"); i >= 0 {
						if v, ok = lookup(name[:i]); !ok {
							v, ok = name[i+2:], true
						}
					}
				}
				if !ok {
					missing = append(missing, name)
					v = "${" + name + "}"
				}
				b.WriteString(v)
				prev = end + 1
			}
			if prev >= len(value) {
				break
			}
		}
		b.WriteString(value[prev:])
		next := b.String()
		if !strings.Contains(next, "${") || next == value {
			return next, missing
		}
		value = next
	}
	return value, []string{value}
}

// errCircular reports a placeholder that refers to itself.
var errCircular = errors.New("circular placeholder reference")

// springResolve substitutes ${name} and ${name:default} like Spring's
// PropertyPlaceholderHelper: placeholders nest (in names and defaults), a
// value found is itself resolved, a self-reference is an error. unresolved
// lists the names with neither value nor default; they stay in the text as
// written (Spring Boot's binder is lenient here, and the conversion of the
// text then fails).
func springResolve(value string, lookup func(string) (string, bool)) (out string, unresolved []string, err error) {
	r := springResolver{lookup: lookup, visiting: map[string]bool{}}
	out, err = r.resolve(value, 0)
	return out, r.missing, err
}

type springResolver struct {
	lookup   func(string) (string, bool)
	visiting map[string]bool
	missing  []string
}

// springMaxDepth bounds nesting so hostile input cannot recurse without end.
const springMaxDepth = 64

func (r *springResolver) resolve(s string, depth int) (string, error) {
	if depth > springMaxDepth {
		return "", errors.New("placeholders nested too deeply")
	}
	start := strings.Index(s, "${")
	if start < 0 {
		return s, nil
	}
	var b strings.Builder
	for start >= 0 {
		end := findPlaceholderEnd(s, start)
		if end < 0 {
			break
		}
		b.WriteString(s[:start])
		inner := s[start+2 : end]
		name, err := r.resolve(inner, depth+1)
		if err != nil {
			return "", err
		}
		if r.visiting[name] {
			return "", errCircular
		}
		r.visiting[name] = true
		val, ok := r.lookup(name)
		if !ok {
			if i := strings.IndexByte(name, ':'); i >= 0 {
				if val, ok = r.lookup(name[:i]); !ok {
					val, ok = name[i+1:], true
				}
			}
		}
		if ok {
			val, err = r.resolve(val, depth+1)
			if err != nil {
				return "", err
			}
			b.WriteString(val)
		} else {
			r.missing = append(r.missing, name)
			b.WriteString("${" + inner + "}")
		}
		delete(r.visiting, name)
		s = s[end+1:]
		start = strings.Index(s, "${")
	}
	b.WriteString(s)
	return b.String(), nil
}

// findPlaceholderEnd returns the index of the "}" closing the "${" at start,
// counting nested "{" the way PropertyPlaceholderHelper does, or -1.
func findPlaceholderEnd(s string, start int) int {
	depth := 0
	for i := start + 2; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

package importconf

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/internal/lazyre"
)

// Limits against hostile YAML (alias "billion laughs", deep nesting): a
// Spring configuration has at most a few thousand keys.
const (
	yamlMaxEntries = 200000
	yamlMaxDepth   = 128
)

// parseYAML reads a multi-document YAML file into flat Spring property
// documents: nested keys joined with ".", sequence items as key[i], merge
// keys (<<) and aliases expanded. Scalars are turned into text the way
// Spring Boot sees them: Boot reads YAML with SnakeYAML, a YAML 1.1 parser,
// so a plain 010 is the octal integer 8, 1_000 is 1000, 0x1F is 31, 1:30 is
// 90 and yes/on are true; quoted scalars stay as written; null and ~ are
// empty.
func parseYAML(name string, data []byte) ([]document, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []document
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, yamlError(name, err)
		}
		f := flattener{name: name}
		doc := document{line: n.Line}
		if len(n.Content) > 0 {
			if err := f.walk(n.Content[0], "", 0); err != nil {
				return nil, err
			}
		}
		doc.props = f.props
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		docs = []document{{line: 1}}
	}
	return docs, nil
}

var yamlLineRE = lazyre.New(`^yaml: line (\d+): (.*)$`)

// yamlError turns a go-yaml error into an input error with its line.
func yamlError(name string, err error) error {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := javaInt(m[1])
		return &inputerr.Error{File: name, Line: line, Msg: "not valid YAML: " + m[2], Err: err}
	}
	return &inputerr.Error{File: name, Msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: "), Err: err}
}

type flattener struct {
	name    string
	props   []property
	entries int
}

func (f *flattener) add(key string, n *yaml.Node, value string) error {
	f.entries++
	if f.entries > yamlMaxEntries {
		return inputerr.New(f.name, n.Line, n.Column, key, "too many keys after expanding aliases", "at most 200000")
	}
	f.props = append(f.props, property{key: key, value: value, line: n.Line, col: n.Column})
	return nil
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func (f *flattener) walk(n *yaml.Node, prefix string, depth int) error {
	if depth > yamlMaxDepth {
		return inputerr.New(f.name, n.Line, n.Column, prefix, "nested too deeply", "at most 128 levels")
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil
		}
		return f.walk(n.Alias, prefix, depth+1)
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := f.walk(c, prefix, depth+1); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		// Merged mappings first, so that the mapping's own keys win.
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				if err := f.merge(n.Content[i+1], prefix, depth+1); err != nil {
					return err
				}
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				continue
			}
			if err := f.walk(v, join(prefix, k.Value), depth+1); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := f.walk(c, prefix+"["+itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if prefix == "" {
			return nil
		}
		return f.add(prefix, n, yaml11Text(n))
	}
	return nil
}

// merge applies a "<<" value: a mapping, or a sequence of mappings.
func (f *flattener) merge(n *yaml.Node, prefix string, depth int) error {
	if depth > yamlMaxDepth {
		return inputerr.New(f.name, n.Line, n.Column, prefix, "nested too deeply", "at most 128 levels")
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		return f.walk(n, prefix, depth+1)
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if err := f.merge(c, prefix, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

var (
	yaml11Bool  = lazyre.New(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yaml11Int   = lazyre.New(`^(?:[-+]?0b_*[0-1]+[0-1_]*|[-+]?0_*[0-7]+[0-7_]*|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x_*[0-9a-fA-F]+[0-9a-fA-F_]*|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yaml11Null  = lazyre.New(`^(?:~|null|Null|NULL)$`)
	yaml11Float = lazyre.New(`^(?:[-+]?(?:\.[0-9]+|[0-9_]+(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// yaml11Text is the text Spring Boot binds for a scalar read by SnakeYAML
// (YAML 1.1 resolver, SafeConstructor): plain booleans become "true" or
// "false", plain integers their decimal value, null the empty string;
// everything else, and every quoted or explicitly tagged scalar, is the text
// as written.
func yaml11Text(n *yaml.Node) string {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value
	}
	if n.Style&yaml.TaggedStyle != 0 && n.Tag == "!!str" {
		return n.Value
	}
	v := n.Value
	switch {
	case v == "" || yaml11Null.MatchString(v):
		return ""
	case yaml11Bool.MatchString(v):
		switch v[0] {
		case 'y', 'Y', 't', 'T':
			return "true"
		case 'o', 'O':
			if strings.EqualFold(v, "on") {
				return "true"
			}
		}
		return "false"
	case yaml11Int.MatchString(v):
		if s, ok := yaml11IntValue(v); ok {
			return s
		}
	case yaml11Float.MatchString(v):
		if s, ok := yaml11FloatValue(v); ok {
			return s
		}
	}
	return v
}

// yaml11FloatValue mirrors SnakeYAML's ConstructYamlFloat followed by
// Double.toString, which is what Spring Boot then binds: "08" is 8.0 and
// "1e3" is 1000.0.
func yaml11FloatValue(v string) (string, bool) {
	s := strings.ReplaceAll(v, "_", "")
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		if strings.HasPrefix(s, "-") {
			return "-Infinity", true
		}
		return "Infinity", true
	case ".nan":
		return "NaN", true
	}
	if strings.Contains(s, ":") {
		return "", false // sexagesimal floats: left as written
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", false
	}
	return javaDouble(f), true
}

// javaDouble formats like java.lang.Double.toString: the shortest digits
// that round-trip, as a plain decimal with at least one fraction digit when
// 1e-3 <= |f| < 1e7, else as d.dddE[-]n.
func javaDouble(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde+nn
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(n)
}

// yaml11IntValue mirrors SnakeYAML's ConstructYamlInt.
func yaml11IntValue(v string) (string, bool) {
	s := strings.ReplaceAll(v, "_", "")
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	var z big.Int
	var ok bool
	switch {
	case s == "0":
		return "0", true
	case strings.HasPrefix(s, "0b"):
		_, ok = z.SetString(s[2:], 2)
	case strings.HasPrefix(s, "0x"):
		_, ok = z.SetString(s[2:], 16)
	case strings.HasPrefix(s, "0"):
		_, ok = z.SetString(s[1:], 8)
	case strings.Contains(s, ":"):
		var acc big.Int
		for _, part := range strings.Split(s, ":") {
			var p big.Int
			if _, good := p.SetString(part, 10); !good {
				return "", false
			}
			acc.Mul(&acc, big.NewInt(60))
			acc.Add(&acc, &p)
		}
		z, ok = acc, true
	default:
		_, ok = z.SetString(s, 10)
	}
	if !ok {
		return "", false
	}
	if sign == "-" {
		z.Neg(&z)
	}
	return z.String(), true
}

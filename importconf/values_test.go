package importconf

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestJavaInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"200", 200, true},              // plain
		{"+5", 5, true},                 // Integer.valueOf accepts a plus sign
		{"-1", -1, true},                // and a minus
		{"007", 7, true},                // leading zeros are decimal, not octal
		{"2147483647", Unbounded, true}, // Integer.MAX_VALUE
		{"2147483648", 0, false},        // overflow
		{" 200", 0, false},              // no whitespace in Integer.valueOf
		{"0x10", 0, false},              // no hex
		{"2e2", 0, false},               // no exponent
		{"", 0, false},                  // empty
		{"-", 0, false},                 // sign only
	} {
		got, err := javaInt(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("javaInt(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestSpringInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"200", 200, true},              // plain
		{" 2 00 ", 200, true},           // NumberUtils.parseNumber removes all whitespace
		{"0x1F", 31, true},              // hexadecimal
		{"#ff", 255, true},              // # hexadecimal
		{"-0x10", -16, true},            // negative hexadecimal
		{"+0x10", 0, false},             // isHexNumber only knows '-': Integer.valueOf fails
		{"010", 10, true},               // decimal, not octal (Integer.valueOf)
		{"0x", 0, false},                // no digits
		{"0x80000000", 0, false},        // out of int range
		{"-0x80000000", -1 << 31, true}, // Integer.MIN_VALUE
		{"12abc", 0, false},             // garbage
		{"", 0, false},                  // empty
	} {
		got, err := springInt(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("springInt(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestSpringDuration(t *testing.T) {
	for _, tc := range []struct {
		in    string
		plain time.Duration
		want  time.Duration
		ok    bool
	}{
		{"60s", time.Millisecond, time.Minute, true},                  // simple with unit
		{"60", time.Millisecond, 60 * time.Millisecond, true},         // no unit: the property's unit (ms by default)
		{"60", time.Second, time.Minute, true},                        // @DurationUnit(SECONDS)
		{"500MS", time.Millisecond, 500 * time.Millisecond, true},     // units ignore case
		{"2m", time.Millisecond, 2 * time.Minute, true},               // minutes
		{"1d", time.Millisecond, 24 * time.Hour, true},                // days
		{"-5s", time.Millisecond, -5 * time.Second, true},             // sign
		{"10us", time.Millisecond, 10 * time.Microsecond, true},       // micros
		{"PT1M", time.Millisecond, time.Minute, true},                 // ISO-8601
		{"pt1m30s", time.Millisecond, 90 * time.Second, true},         // ISO, lower case
		{"PT0.5S", time.Millisecond, 500 * time.Millisecond, true},    // fractional seconds
		{"P1DT2H", time.Millisecond, 26 * time.Hour, true},            // days and hours
		{"-PT1M", time.Millisecond, -time.Minute, true},               // negative ISO
		{"PT-1.5S", time.Millisecond, -1500 * time.Millisecond, true}, // negative seconds with fraction
		{"PT", time.Millisecond, 0, false},                            // T without a part
		{"P", time.Millisecond, 0, false},                             // nothing
		{"5y", time.Millisecond, 0, false},                            // unknown unit
		{"1.5s", time.Millisecond, 0, false},                          // simple style has no fractions
		{"one minute", time.Millisecond, 0, false},                    // prose
		{"99999999999999999999s", time.Millisecond, 0, false},         // overflow
	} {
		got, err := springDuration(tc.in, tc.plain)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("springDuration(%q) = %s, %v; want %s ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestSpringBool(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
		ok   bool
	}{
		{"true", true, true}, {"ON", true, true}, {"yes", true, true}, {"1", true, true}, // Spring's true forms
		{"false", false, true}, {"Off", false, true}, {"no", false, true}, {" 0 ", false, true}, // false forms, trimmed
		{"y", false, false}, {"enabled", false, false}, // not booleans for Spring
	} {
		got, err := springBool(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("springBool(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestTomcatReplace(t *testing.T) {
	props := map[string]string{"a": "1", "b": "${a}2", "loop": "${loop}"}
	lookup := func(n string) (string, bool) { v, ok := props[n]; return v, ok }
	for _, tc := range []struct {
		in, want string
		missing  bool
	}{
		{"${a}", "1", false},      // plain
		{"x${a}y", "x1y", false},  // embedded
		{"${b}", "12", false},     // a value with a placeholder: second pass
		{"${c:-9}", "9", false},   // default after :-
		{"${a:-9}", "1", false},   // value wins over default
		{"${c}", "${c}", true},    // no value: kept literally, reported
		{"$a", "$a", false},       // $ without {
		{"cost$", "cost$", false}, // trailing $
		{"${a", "${a", false},     // no closing brace: copied
		{"no placeholders", "no placeholders", false},
		{"${loop}", "${loop}", false}, // unchanged after a pass: stops (Tomcat does too)
	} {
		got, missing := tomcatReplace(tc.in, lookup)
		if got != tc.want || (len(missing) > 0) != tc.missing {
			t.Errorf("tomcatReplace(%q) = %q, %v; want %q missing=%v", tc.in, got, missing, tc.want, tc.missing)
		}
	}
}

func TestSpringResolve(t *testing.T) {
	props := map[string]string{"a": "1", "b": "${a}2", "self": "${self}", "name": "a"}
	lookup := func(n string) (string, bool) { v, ok := props[n]; return v, ok }
	for _, tc := range []struct {
		in, want string
		missing  bool
		err      bool
	}{
		{"${a}", "1", false, false},          // plain
		{"${b}", "12", false, false},         // the value is resolved too
		{"${c:7}", "7", false, false},        // default after ':'
		{"${c:${a}}", "1", false, false},     // nested default
		{"${${name}}", "1", false, false},    // nested name
		{"${c}", "${c}", true, false},        // unresolved: reported
		{"${self}", "", false, true},         // circular
		{"${a", "${a", false, false},         // unclosed: left alone
		{"x${a}y${a}", "x1y1", false, false}, // several
	} {
		got, missing, err := springResolve(tc.in, lookup)
		if (err != nil) != tc.err || (!tc.err && (got != tc.want || (len(missing) > 0) != tc.missing)) {
			t.Errorf("springResolve(%q) = %q, %v, %v; want %q missing=%v err=%v", tc.in, got, missing, err, tc.want, tc.missing, tc.err)
		}
	}
}

func TestParseProperties(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string // key=value;... of the first document, then "|" and the next documents
	}{
		{"separators", "a=1\nb:2\nc 3\nd = 4\ne\t:\t5\n", "a=1;b=2;c=3;d=4;e=5"}, // =, :, space, with spaces around
		{"comments", "# x=1\n! y=2\n  # z=3\na=1\n", "a=1"},                      // # and ! comments, indented too
		{"trim", "  a  =  1  \n", "a=1"},                                         // keys and values trimmed
		{"escapes", `a=x\ty\nz\u0041\\` + "\n", "a=x\ty\nzA\\"},                  // \t \n \uXXXX \\
		{"escaped delimiters", `a\=b\:c=1` + "\n", "a=b:c=1"},                    // escaped = and : in keys
		{"continuation", "a=one,\\\n    two\n", "a=one,two"},                     // line continuation skips leading blanks
		{"continuation comment", "a=1\\\n#not a comment\n", "a=1#not a comment"}, // a wrapped line is not a comment
		{"crlf", "a=1\r\nb=2\r\n", "a=1;b=2"},                                    // Windows line ends
		{"list", "a[]=x,y\n", "a[0]=x;a[1]=y"},                                   // name[] expansion
		{"empty value", "a=\nb\n", "a=;b="},                                      // empty values
		{"documents", "a=1\n#---\nb=2\n!---\nc=3\n", "a=1|b=2|c=3"},              // #--- and !--- separate documents
		{"indented separator", "a=1\n #---\nb=2\n", "a=1;b=2"},                   // must start the line
		{"latin1", "a=Gr\xfc\xdfe\n", "a=Grüße"},                                 // not UTF-8: ISO-8859-1
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := parseProperties("p", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, d := range docs {
				var kv []string
				for _, p := range d.props {
					kv = append(kv, p.key+"="+p.value)
				}
				parts = append(parts, strings.Join(kv, ";"))
			}
			if got := strings.Join(parts, "|"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPropertyPositions(t *testing.T) {
	docs, err := parseProperties("p", []byte("# c\n\na = 1\n  b=two\\\n   lines\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(docs[0].props)
	want := "[{a 1 3 5} {b twolines 4 5}]"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestYAML11Text(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"v: 200", "200"},       // decimal
		{"v: 010", "8"},         // YAML 1.1 octal (SnakeYAML)
		{"v: 0x1F", "31"},       // hexadecimal
		{"v: 0b101", "5"},       // binary
		{"v: 1_000", "1000"},    // underscores
		{"v: 1:30", "90"},       // sexagesimal
		{"v: -0x10", "-16"},     // signed hex
		{"v: '010'", "010"},     // quoted: as written
		{"v: !!str 010", "010"}, // tagged string
		{"v: yes", "true"},      // YAML 1.1 boolean
		{"v: Off", "false"},     // YAML 1.1 boolean
		{"v: y", "y"},           // SnakeYAML does not treat y as a boolean
		{"v: ~", ""},            // null
		{"v:", ""},              // empty
		{"v: 1.5", "1.5"},       // float kept
		{"v: 60s", "60s"},       // plain string
		{"v: 08", "8.0"},        // not an octal int: SnakeYAML's float regex takes it
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(tc.in), &n); err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		v := n.Content[0].Content[1]
		if got := yaml11Text(v); got != tc.want {
			t.Errorf("%q -> %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseYAML(t *testing.T) {
	in := `
base: &b
  max: 5
  min: 1
server:
  tomcat:
    <<: *b
    min: 2
  list: [a, b]
"dotted.key":
  x: 1
---
second: doc
`
	docs, err := parseYAML("y", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		var kv []string
		for _, p := range d.props {
			kv = append(kv, p.key+"="+p.value)
		}
		got = append(got, strings.Join(kv, ";"))
	}
	// The merge comes first so the mapping's own key wins when merged.
	want := "base.max=5;base.min=1;server.tomcat.max=5;server.tomcat.min=1;server.tomcat.min=2;server.list[0]=a;server.list[1]=b;dotted.key.x=1|second=doc"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	// Billion laughs: aliases multiply; the entry limit stops it.
	bomb := "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
	if _, err := parseYAML("bomb.yml", []byte(bomb)); err == nil || !strings.Contains(err.Error(), "too many keys") {
		t.Errorf("alias bomb: %v", err)
	}
}

func TestVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [3]int
		ok   bool
	}{
		{"10.1.52", [3]int{10, 1, 52}, true}, // full
		{"9.0", [3]int{9, 0, 0}, true},       // missing patch
		{"3.3.0-M1", [3]int{3, 3, 0}, true},  // qualifier ignored
		{"11", [3]int{11, 0, 0}, true},       // major only
		{"", [3]int{}, false},                // unknown
		{"x", [3]int{}, false},               // not a version
	} {
		got, ok := parseVersion(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseVersion(%q) = %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

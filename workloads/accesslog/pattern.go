package accesslog

import (
	"fmt"
	"strings"
)

// The pattern aliases of AccessLogValve.setPattern (Constants.AccessLog).
const (
	CommonPattern   = `%h %l %u %t "%r" %s %b`
	CombinedPattern = `%h %l %u %t "%r" %s %b "%{Referer}i" "%{User-Agent}i"`
)

// kind is what a pattern element writes, as far as reading it back goes.
type kind int

const (
	kLiteral    kind = iota
	kText            // free text, never escaped by Tomcat (%h %a %A %v %m %U %q %H %S %I %L %l)
	kEscaped         // free text escaped by escapeAndAppend: \" \\ \n \uXXXX (%u %{}i %{}o %{}c %{}r %{}s)
	kRequest         // %r: "-" or METHOD SP URI [SP PROTOCOL]
	kStatus          // %s: digits or "-"
	kBytes           // %b: digits or "-"; %B digits
	kPort            // %p, %{local|remote}p: digits
	kConnStatus      // %X: one of X + - ?
	kDuration        // %D, %T, %{unit}T
	kCommit          // %F: milliseconds to commit, or "-"
	kTime            // %t and %{…}t
	kQuery           // %q: "" or "?query"
)

// durUnit is how a duration field is written.
type durUnit int

const (
	duNanos   durUnit = iota // %{ns}T
	duMicros                 // %{us}T, %D in Tomcat 10+
	duMillis                 // %{ms}T, %D in Tomcat 9-
	duFracSec                // %{fracsec}T: seconds with three decimals
	duSeconds                // %T, %{s}T: whole seconds (10+), seconds.millis (9-)
	duD                      // %D: unit given by Options.DurationUnit
)

// timeType is the format of a timestamp field (DateAndTimeElement.FormatType).
type timeType int

const (
	ttCLF timeType = iota
	ttSec
	ttMsec
	ttMsecFrac
	ttSDF
)

// element is one compiled piece of an access-log pattern.
type element struct {
	kind    kind
	literal string // kLiteral
	code    string // the pattern code, e.g. "%D" or "%{begin:msec}t", for messages
	dur     durUnit
	tt      timeType
	begin   bool // timestamp of the request start (begin: prefix)
	sdf     *sdfFormat
	escaped bool // kTime SDF with characters Tomcat escapes
}

// compilePattern turns an AccessLogValve pattern into elements, reading it
// exactly as AbstractAccessLogValve.createLogElements does: "%{name}X" needs
// a character after the "}" (otherwise the "%{" is written as "???{???" and
// the rest is literal text); an unknown code X becomes the literal
// "???X???"; an unknown code with a name becomes "???"; a trailing "%"
// writes nothing.
func compilePattern(p string) ([]element, error) {
	switch p {
	case "common":
		p = CommonPattern
	case "combined":
		p = CombinedPattern
	}
	var out []element
	var lit strings.Builder
	addLit := func(s string) { lit.WriteString(s) }
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, element{kind: kLiteral, literal: lit.String()})
			lit.Reset()
		}
	}
	add := func(e element) {
		if e.kind == kLiteral {
			addLit(e.literal)
			return
		}
		flush()
		out = append(out, e)
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			lit.WriteByte(c)
			continue
		}
		if i+1 >= len(p) {
			break // a trailing '%' writes nothing
		}
		i++
		c = p[i]
		if c == '{' {
			j := i + 1
			for j < len(p) && p[j] != '}' {
				j++
			}
			if j+1 < len(p) {
				e, err := namedElement(p[i+1:j], p[j+1])
				if err != nil {
					return nil, err
				}
				add(e)
				i = j + 1
				continue
			}
			add(element{kind: kLiteral, literal: "???{???"})
			continue
		}
		add(plainElement(c))
	}
	flush()
	return out, nil
}

func plainElement(c byte) element {
	code := "%" + string(c)
	switch c {
	case 'a', 'A', 'h', 'H', 'm', 'U', 'S', 'v', 'I', 'l':
		return element{kind: kText, code: code}
	case 'q':
		return element{kind: kQuery, code: code}
	case 'u':
		return element{kind: kEscaped, code: code}
	case 'r':
		return element{kind: kRequest, code: code}
	case 's':
		return element{kind: kStatus, code: code}
	case 'b', 'B':
		return element{kind: kBytes, code: code}
	case 'p':
		return element{kind: kPort, code: code}
	case 'X':
		return element{kind: kConnStatus, code: code}
	case 'D':
		return element{kind: kDuration, dur: duD, code: code}
	case 'T':
		return element{kind: kDuration, dur: duSeconds, code: code}
	case 'F':
		return element{kind: kCommit, code: code}
	case 't':
		return element{kind: kTime, tt: ttCLF, code: code}
	}
	return element{kind: kLiteral, literal: "???" + string(c) + "???"}
}

func namedElement(name string, c byte) (element, error) {
	code := "%{" + name + "}" + string(c)
	switch c {
	case 'a', 'L':
		return element{kind: kText, code: code}, nil
	case 'c', 'i', 'o', 'r', 's':
		return element{kind: kEscaped, code: code}, nil
	case 'p':
		return element{kind: kPort, code: code}, nil
	case 'T':
		e := element{kind: kDuration, code: code}
		switch name {
		case "ns":
			e.dur = duNanos
		case "us":
			e.dur = duMicros
		case "ms":
			e.dur = duMillis
		case "fracsec":
			e.dur = duFracSec
		default: // "s" and anything else: seconds (ElapsedTimeElement(false, false))
			e.dur = duSeconds
		}
		return e, nil
	case 't':
		return timeElement(name, code)
	}
	return element{kind: kLiteral, literal: "???"}, nil
}

// timeElement mirrors DateAndTimeElement(String): an optional "begin" /
// "end" prefix (alone, or followed by ":"), then CLF (empty), sec, msec,
// msec_frac, or a SimpleDateFormat pattern.
func timeElement(name, code string) (element, error) {
	e := element{kind: kTime, code: code}
	format := name
	switch {
	case format == "begin":
		e.begin, format = true, ""
	case strings.HasPrefix(format, "begin:"):
		e.begin, format = true, format[len("begin:"):]
	case format == "end":
		format = ""
	case strings.HasPrefix(format, "end:"):
		format = format[len("end:"):]
	}
	switch format {
	case "":
		e.tt = ttCLF
	case "sec":
		e.tt = ttSec
	case "msec":
		e.tt = ttMsec
	case "msec_frac":
		e.tt = ttMsecFrac
	default:
		f, err := compileSDF(format)
		if err != nil {
			return e, fmt.Errorf("%s: %v", code, err)
		}
		e.tt, e.sdf = ttSDF, f
		// DateAndTimeElement escapes the output when the pattern itself
		// holds characters escapeAndAppend would change.
		for _, r := range format {
			if r == '"' || r == '\\' || r < 32 || r >= 127 {
				e.escaped = true
			}
		}
	}
	return e, nil
}

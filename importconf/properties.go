package importconf

import (
	"strings"
	"unicode/utf8"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// property is one key=value of a Spring configuration file, with the
// position of its value.
type property struct {
	key   string // as written (escapes decoded)
	value string
	line  int
	col   int
}

// document is one document of a multi-document file (YAML "---", properties
// "#---"), with the line it starts on.
type document struct {
	props []property
	line  int
}

// parseProperties reads a .properties file the way Spring Boot's
// OriginTrackedPropertiesLoader does: "key=value", "key:value" or
// "key value"; leading whitespace skipped; "#" and "!" start comment lines;
// a backslash escapes the next character (\t \r \n \f and \uXXXX decoded),
// and at the end of a line continues the value on the next line, whose
// leading whitespace is skipped; keys and values are trimmed; "key[]=a,b"
// expands to key[0], key[1]. A line that is exactly "#---" or "!---"
// separates documents (Spring Boot 2.4 and later). The file is read as UTF-8
// when it is valid UTF-8, else as ISO-8859-1 (the java.util.Properties
// encoding).
func parseProperties(name string, data []byte) ([]document, error) {
	text := string(data)
	if !utf8.ValidString(text) {
		runes := make([]rune, len(data))
		for i, c := range data {
			runes[i] = rune(c)
		}
		text = string(runes)
	}
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	p := propReader{name: name, src: []rune(text), line: 1, col: 0}
	docs := []document{{line: 1}}
	for {
		p.skipBlankAndComments(&docs)
		if p.eof() {
			break
		}
		key, err := p.readKey()
		if err != nil {
			return nil, err
		}
		key = strings.TrimSpace(key)
		if strings.HasSuffix(key, "[]") {
			base := key[:len(key)-2]
			for i := 0; ; i++ {
				line, col := p.valuePos()
				v, more, err := p.readValue(true)
				if err != nil {
					return nil, err
				}
				if base != "" {
					d := &docs[len(docs)-1]
					d.props = append(d.props, property{key: base + "[" + itoa(i) + "]", value: strings.TrimSpace(v), line: line, col: col})
				}
				if !more {
					break
				}
			}
			continue
		}
		line, col := p.valuePos()
		v, _, err := p.readValue(false)
		if err != nil {
			return nil, err
		}
		if key == "" {
			continue
		}
		d := &docs[len(docs)-1]
		d.props = append(d.props, property{key: key, value: strings.TrimSpace(v), line: line, col: col})
	}
	return docs, nil
}

type propReader struct {
	name string
	src  []rune
	pos  int
	line int
	col  int // runes consumed on the current line
}

func (p *propReader) eof() bool { return p.pos >= len(p.src) }

func (p *propReader) peek() rune { return p.src[p.pos] }

func (p *propReader) advance() {
	if p.src[p.pos] == '\n' {
		p.line++
		p.col = 0
	} else {
		p.col++
	}
	p.pos++
}

func isPropSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\f' }

// skipBlankAndComments moves to the start of the next key, opening a new
// document at each "#---" / "!---" line.
func (p *propReader) skipBlankAndComments(docs *[]document) {
	for !p.eof() {
		for !p.eof() && isPropSpace(p.peek()) {
			p.advance()
		}
		if p.eof() {
			return
		}
		switch p.peek() {
		case '\n':
			p.advance()
		case '#', '!':
			startCol := p.col
			startLine := p.line
			begin := p.pos
			for !p.eof() && p.peek() != '\n' {
				p.advance()
			}
			comment := string(p.src[begin:p.pos])
			if startCol == 0 && (comment == "#---" || comment == "!---") {
				*docs = append(*docs, document{line: startLine + 1})
			}
		default:
			return
		}
	}
}

// readKey reads up to the delimiter ('=' or ':' not escaped, or the first
// whitespace followed by a non-whitespace character) and consumes it.
func (p *propReader) readKey() (string, error) {
	var b strings.Builder
	prevSpace := false
	for !p.eof() && p.peek() != '\n' {
		c := p.peek()
		if c == '\\' {
			r, escaped, err := p.readEscape()
			if err != nil {
				return "", err
			}
			if escaped {
				b.WriteRune(r)
				prevSpace = false
			}
			continue
		}
		if c == '=' || c == ':' {
			p.advance()
			return b.String(), nil
		}
		space := isPropSpace(c)
		if !space && prevSpace {
			return b.String(), nil
		}
		prevSpace = space
		b.WriteRune(c)
		p.advance()
	}
	return b.String(), nil
}

// valuePos skips the whitespace before a value and returns where it starts.
func (p *propReader) valuePos() (int, int) {
	for !p.eof() && isPropSpace(p.peek()) {
		p.advance()
	}
	return p.line, p.col + 1
}

// readValue reads to the end of the logical line (or, for list keys, to the
// next unescaped ','); more reports that a list continues.
func (p *propReader) readValue(list bool) (v string, more bool, err error) {
	var b strings.Builder
	for !p.eof() && p.peek() != '\n' {
		c := p.peek()
		if c == '\\' {
			r, escaped, err := p.readEscape()
			if err != nil {
				return "", false, err
			}
			if escaped {
				b.WriteRune(r)
			}
			continue
		}
		if list && c == ',' {
			p.advance()
			return b.String(), true, nil
		}
		b.WriteRune(c)
		p.advance()
	}
	return b.String(), false, nil
}

// readEscape consumes a backslash sequence. escaped is false for a line
// continuation, which yields no character.
func (p *propReader) readEscape() (r rune, escaped bool, err error) {
	line, col := p.line, p.col+1
	p.advance() // the backslash
	if p.eof() {
		return 0, false, nil
	}
	c := p.peek()
	switch c {
	case 't':
		p.advance()
		return '\t', true, nil
	case 'r':
		p.advance()
		return '\r', true, nil
	case 'n':
		p.advance()
		return '\n', true, nil
	case 'f':
		p.advance()
		return '\f', true, nil
	case '\n':
		p.advance()
		for !p.eof() && isPropSpace(p.peek()) {
			p.advance()
		}
		return 0, false, nil
	case 'u':
		p.advance()
		var v rune
		for i := 0; i < 4; i++ {
			if p.eof() {
				return 0, false, inputerr.New(p.name, line, col, "", `malformed \uxxxx escape`, `four hexadecimal digits after \u`)
			}
			d := p.peek()
			switch {
			case d >= '0' && d <= '9':
				v = v<<4 + d - '0'
			case d >= 'a' && d <= 'f':
				v = v<<4 + d - 'a' + 10
			case d >= 'A' && d <= 'F':
				v = v<<4 + d - 'A' + 10
			default:
				return 0, false, inputerr.New(p.name, line, col, "", `malformed \uxxxx escape`, `four hexadecimal digits after \u`)
			}
			p.advance()
		}
		return v, true, nil
	}
	p.advance()
	return c, true, nil
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var buf [20]byte
	n := len(buf)
	for i > 0 {
		n--
		buf[n] = byte('0' + i%10)
		i /= 10
	}
	return string(buf[n:])
}

// ReadProperties reads a Java .properties file (catalina.properties, a
// file of system properties) into a map, for Options.Properties: the
// values of ${name} placeholders. A later key wins, as in
// java.util.Properties.
func ReadProperties(path string) (map[string]string, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	docs, err := parseProperties(path, data)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, d := range docs {
		for _, p := range d.props {
			m[p.key] = p.value
		}
	}
	return m, nil
}

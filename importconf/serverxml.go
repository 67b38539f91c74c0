package importconf

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Sources of the Tomcat defaults. Every value was read from the Debian
// libtomcat10-java 10.1.52 bytecode (javap -c) and agrees with the Tomcat
// 10.1 documentation (webapps/docs/config/http.xml and executor.xml); the
// same defaults hold in Tomcat 9.0 and 11.0 (their docs). The label names
// the version the user gave, or says that a 10.1 was assumed.
func (r *xmlReader) srcEndpoint() string {
	return r.versionLabel() + " AbstractEndpoint (docs config/http.xml)"
}

func (r *xmlReader) srcExecutor() string {
	return r.versionLabel() + " StandardThreadExecutor (docs config/executor.xml)"
}

func (r *xmlReader) versionLabel() string {
	if r.tomcatKnown {
		return "Tomcat " + strings.TrimSpace(r.opts.TomcatVersion)
	}
	return "Tomcat 10.1 (assumed: no --tomcat-version)"
}

// remedyTomcat is how the user settles a version-dependent fact.
const remedyTomcat = "give --tomcat-version, e.g. 9.0.85"

// xmlAttr is an attribute with the position of its name.
type xmlAttr struct {
	name, value string
	line, col   int
}

// xmlElem is a start tag of interest.
type xmlElem struct {
	name  string
	attrs []xmlAttr
	line  int
	col   int
}

func (e *xmlElem) attr(name string) (xmlAttr, bool) {
	for _, a := range e.attrs {
		if a.name == name {
			return a, true
		}
	}
	return xmlAttr{}, false
}

// lineIndex maps byte offsets to 1-based line and column (in characters).
// It remembers the last answer so that increasing offsets on one long line
// cost only the distance between them.
type lineIndex struct {
	data   []byte
	starts []int

	lastOff, lastLine, lastCol int
}

func newLineIndex(data []byte) *lineIndex {
	li := &lineIndex{data: data, starts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			li.starts = append(li.starts, i+1)
		}
	}
	return li
}

func (li *lineIndex) pos(off int) (int, int) {
	if off > len(li.data) {
		off = len(li.data)
	}
	i := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	col := 0
	if li.lastLine == i+1 && off >= li.lastOff {
		col = li.lastCol + utf8.RuneCount(li.data[li.lastOff:off])
	} else {
		col = utf8.RuneCount(li.data[li.starts[i]:off]) + 1
	}
	li.lastOff, li.lastLine, li.lastCol = off, i+1, col
	return i + 1, col
}

// attrOffset finds where attribute name starts inside a raw start tag.
func attrOffset(raw []byte, name string) int {
	from := 0
	for {
		i := bytes.Index(raw[from:], []byte(name))
		if i < 0 {
			return -1
		}
		i += from
		j := i + len(name)
		before := i > 0 && (raw[i-1] == ' ' || raw[i-1] == '\t' || raw[i-1] == '\n' || raw[i-1] == '\r')
		k := j
		for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\n' || raw[k] == '\r') {
			k++
		}
		if before && k < len(raw) && raw[k] == '=' {
			return i
		}
		from = j
	}
}

// normalizeAttr applies XML attribute-value normalization as a SAX parser
// does for CDATA attributes: tab, newline and carriage return become spaces.
func normalizeAttr(v string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, v)
}

// ParseServerXML reads a Tomcat server.xml from data (a file named name).
//
// It mirrors how Catalina's Digester builds the server: the root must be
// <Server>; every <Service> holds <Executor> and <Connector> elements
// (paths Server/Service/Executor and Server/Service/Connector, case
// sensitive); attribute values get ${name} / ${name:-default} substitution
// (IntrospectionUtils.replaceProperties); a Connector's executor="name" is
// looked up among the Executors declared before it in the same Service
// (ConnectorCreateRule.begin), and when found the Connector's own thread
// attributes are ignored (R74).
func ParseServerXML(name string, data []byte, opts Options) (*Settings, error) {
	s := &Settings{File: name, Format: FormatServerXML, Files: []string{name}}
	tomcatVer, verKnown := parseVersion(opts.TomcatVersion)
	if opts.TomcatVersion != "" && !verKnown {
		return nil, inputerr.New(name, 0, 0, "", fmt.Sprintf("Tomcat version %q: not a version", opts.TomcatVersion), "e.g. 10.1.52 or 9.0.85")
	}
	if verKnown && !versionAtLeast(tomcatVer, [3]int{9, 0, 0}) {
		s.Warnings = append(s.Warnings, Warning{File: name, Msg: fmt.Sprintf("Tomcat %s is older than the versions poolsim's defaults were checked against (9.0 to 11.0): Tomcat 9.0's defaults and rules are used", opts.TomcatVersion) +
			map[bool]string{true: "; Tomcat 7 runs HTTP/1.1 on the BIO connector (threads http-bio-PORT-exec-N, maxConnections = maxThreads)", false: "; Tomcat 8.5's NIO connector defaults maxConnections to 10000"}[tomcatVer[0] < 8]})
	}
	r := xmlReader{name: name, data: data, li: newLineIndex(data), opts: opts, tomcat: tomcatVer, tomcatKnown: verKnown, s: s}
	if err := r.run(); err != nil {
		return nil, err
	}
	return s, nil
}

type xmlReader struct {
	name        string
	data        []byte
	li          *lineIndex
	opts        Options
	tomcat      [3]int
	tomcatKnown bool
	s           *Settings

	portOffset  int
	aprListener bool
	// per Service: executor name -> pool index
	executors map[string]int
}

func (r *xmlReader) run() error {
	d := xml.NewDecoder(bytes.NewReader(r.data))
	d.Strict = true
	var stack []string
	rootSeen := false
	for {
		off := int(d.InputOffset())
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 0
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				line = se.Line
				return &inputerr.Error{File: r.name, Line: line, Msg: "not well-formed XML: " + se.Msg, Err: err}
			}
			return &inputerr.Error{File: r.name, Msg: "not well-formed XML: " + err.Error(), Err: err}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			end := int(d.InputOffset())
			el, err := r.element(t, off, end)
			if err != nil {
				return err
			}
			if len(stack) == 0 {
				if rootSeen {
					return inputerr.New(r.name, el.line, el.col, "", "more than one root element", "one <Server> element")
				}
				rootSeen = true
				if t.Name.Local != "Server" || t.Name.Space != "" {
					return inputerr.New(r.name, el.line, el.col, "", fmt.Sprintf("the root element is <%s>, not <Server>: not a Tomcat server.xml", t.Name.Local), "conf/server.xml, whose root is <Server>")
				}
				if err := r.server(el); err != nil {
					return err
				}
			}
			stack = append(stack, t.Name.Local)
			// The Digester matches exact paths; only the first three levels
			// and the last name matter here (no string building per
			// element, so deep nesting stays linear).
			at := func(names ...string) bool {
				if len(stack) != len(names) {
					return false
				}
				for i, n := range names {
					if stack[i] != n {
						return false
					}
				}
				return true
			}
			switch {
			case at("Server", "Service"):
				r.executors = map[string]int{}
			case at("Server", "Service", "Executor"):
				if err := r.executor(el); err != nil {
					return err
				}
			case at("Server", "Service", "Connector"):
				if err := r.connector(el); err != nil {
					return err
				}
			case at("Server", "Listener"):
				if a, ok := el.attr("className"); ok && strings.HasSuffix(a.value, ".AprLifecycleListener") {
					r.aprListener = true
				}
			case len(stack) >= 4 && stack[1] == "Service" && stack[2] == "Engine" && t.Name.Local == "Valve":
				if a, ok := el.attr("className"); ok && strings.HasSuffix(a.value, "AccessLogValve") {
					pat := xmlAttr{name: "pattern", value: "", line: el.line, col: el.col}
					if p, ok := el.attr("pattern"); ok {
						pat = p
					}
					if r.soft(pat, "the access log's pattern", &r.s.Notes) {
						continue
					}
					v, err := r.resolve(pat)
					if err != nil {
						return err
					}
					if _, ok := el.attr("pattern"); !ok {
						r.s.Notes = append(r.s.Notes, fmt.Sprintf("%s:%d: %s has no pattern: AccessLogValve then logs nothing (pattern defaults to empty)", r.name, el.line, a.value))
						continue
					}
					r.s.AccessLogPatterns = append(r.s.AccessLogPatterns, Origin{Key: "pattern", Value: v, File: r.name, Line: pat.line, Col: pat.col})
				}
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if !rootSeen {
		return inputerr.New(r.name, 0, 0, "", "no <Server> element: not a Tomcat server.xml", "conf/server.xml, whose root is <Server>")
	}
	r.finish()
	return nil
}

// element collects a start tag's attributes with their positions and
// rejects duplicates, as an XML parser must.
func (r *xmlReader) element(t xml.StartElement, off, end int) (*xmlElem, error) {
	line, col := r.li.pos(off)
	el := &xmlElem{name: t.Name.Local, line: line, col: col}
	if off < 0 || end > len(r.data) || off > end {
		off, end = 0, 0
	}
	raw := r.data[off:end]
	seen := map[string]bool{}
	for _, a := range t.Attr {
		n := a.Name.Local
		if a.Name.Space != "" {
			continue // xmlns and prefixed attributes are not Tomcat properties
		}
		if seen[n] {
			return nil, inputerr.New(r.name, line, col, n, "attribute given twice", "each attribute once")
		}
		seen[n] = true
		al, ac := line, col
		if i := attrOffset(raw, n); i >= 0 {
			al, ac = r.li.pos(off + i)
		}
		el.attrs = append(el.attrs, xmlAttr{name: n, value: normalizeAttr(a.Value), line: al, col: ac})
	}
	return el, nil
}

// resolve applies Tomcat's ${...} substitution to an attribute value.
func (r *xmlReader) resolve(a xmlAttr) (string, error) {
	v, missing := r.substitute(a)
	if missing != "" {
		return "", inputerr.New(r.name, a.line, a.col, a.name,
			fmt.Sprintf("unresolved placeholder ${%s}", missing),
			"give its value with -D "+missing+"=VALUE or --properties catalina.properties, or a default as ${"+missing+":-value}")
	}
	return v, nil
}

// substitute applies Tomcat's ${...} substitution; missing names the first
// placeholder without a value ("" when none).
func (r *xmlReader) substitute(a xmlAttr) (v, missing string) {
	v, m := tomcatReplace(a.value, func(n string) (string, bool) {
		v, ok := r.opts.Properties[n]
		return v, ok
	})
	if len(m) > 0 {
		return v, clip(m[0])
	}
	return v, ""
}

// soft reports an attribute that does not change the pool (a port, an
// address, an access-log pattern) whose placeholder has no value: it is
// noted, not refused, and the caller leaves the value unknown.
func (r *xmlReader) soft(a xmlAttr, what string, notes *[]string) bool {
	if _, missing := r.substitute(a); missing != "" {
		*notes = append(*notes, fmt.Sprintf("%s:%d: %s=%q: ${%s} has no value, so %s is unknown; the pool's numbers do not depend on it (-D %s=VALUE or --properties catalina.properties gives it)",
			r.name, a.line, a.name, a.value, missing, what, missing))
		return true
	}
	return false
}

func (r *xmlReader) origin(a xmlAttr, v string) Origin {
	return Origin{Key: a.name, Value: v, File: r.name, Line: a.line, Col: a.col}
}

func (r *xmlReader) server(el *xmlElem) error {
	if a, ok := el.attr("portOffset"); ok {
		v, err := r.resolve(a)
		if err != nil {
			return err
		}
		n, perr := javaInt(v)
		if perr != nil {
			return inputerr.New(r.name, a.line, a.col, a.name, fmt.Sprintf("%s is not an integer (%v)", quote(v), perr), "a decimal int")
		}
		r.portOffset = n
	}
	return nil
}

// intAttr reads an int attribute; ok is false when it is absent.
func (r *xmlReader) intAttr(el *xmlElem, name string) (n int, o Origin, ok bool, err error) {
	a, ok := el.attr(name)
	if !ok {
		return 0, Origin{}, false, nil
	}
	v, err := r.resolve(a)
	if err != nil {
		return 0, Origin{}, true, err
	}
	n, perr := javaInt(v)
	if perr != nil {
		return 0, Origin{}, true, inputerr.New(r.name, a.line, a.col, a.name,
			fmt.Sprintf("%s is not an integer (%v); Tomcat would log a warning and keep its default", quote(v), perr), "a decimal int, as java.lang.Integer.valueOf reads it")
	}
	return n, r.origin(a, v), true, nil
}

func (r *xmlReader) strAttr(el *xmlElem, name string) (string, Origin, bool, error) {
	a, ok := el.attr(name)
	if !ok {
		return "", Origin{}, false, nil
	}
	v, err := r.resolve(a)
	if err != nil {
		return "", Origin{}, true, err
	}
	return v, r.origin(a, v), true, nil
}

// intSetting reads an int attribute into *dst, recording its origin or its
// default.
func (r *xmlReader) intSetting(p *Pool, el *xmlElem, name string, dst *int, def int, src string) error {
	n, o, ok, err := r.intAttr(el, name)
	if err != nil {
		return err
	}
	if ok {
		*dst = n
		p.Found = append(p.Found, o)
		return nil
	}
	*dst = def
	p.Defaulted = append(p.Defaulted, Default{Key: name, Value: formatInt(def), Reason: src})
	return nil
}

func (r *xmlReader) executor(el *xmlElem) error {
	p := Pool{Kind: KindTomcatExecutor, File: r.name, Line: el.line, Prestart: true}
	name, o, ok, err := r.strAttr(el, "name")
	if err != nil {
		return err
	}
	if !ok || name == "" {
		return inputerr.New(r.name, el.line, el.col, "name", "<Executor> without a name", "a name that Connectors refer to with executor=\"…\"")
	}
	p.Name = name
	p.Found = append(p.Found, o)
	if cls, o, ok, err := r.strAttr(el, "className"); err != nil {
		return err
	} else if ok && cls != "org.apache.catalina.core.StandardThreadExecutor" {
		p.Found = append(p.Found, o)
		if strings.HasSuffix(cls, "VirtualThreadExecutor") {
			p.VirtualThreads = true
			p.Notes = append(p.Notes, cls+" runs each task on a new virtual thread: the pool numbers have no effect")
		} else {
			p.Notes = append(p.Notes, "className "+cls+" is not StandardThreadExecutor: its attributes were read as StandardThreadExecutor's")
		}
	}
	var keepMS int
	var maxThreads, minSpare int
	src := r.srcExecutor()
	if err := r.intSetting(&p, el, "maxThreads", &maxThreads, 200, src); err != nil {
		return err
	}
	if err := r.intSetting(&p, el, "minSpareThreads", &minSpare, 25, src); err != nil {
		return err
	}
	if err := r.intSetting(&p, el, "maxIdleTime", &keepMS, 60000, src); err != nil {
		return err
	}
	if err := r.intSetting(&p, el, "maxQueueSize", &p.MaxQueueSize, Unbounded, src); err != nil {
		return err
	}
	p.Max, p.Core = maxThreads, minSpare
	p.KeepAlive = time.Duration(keepMS) * time.Millisecond
	prefix, o, ok, err := r.strAttr(el, "namePrefix")
	if err != nil {
		return err
	}
	if ok {
		p.ThreadNamePrefix = prefix
		p.Found = append(p.Found, o)
	} else {
		p.ThreadNamePrefix = "tomcat-exec-"
		p.Defaulted = append(p.Defaulted, Default{Key: "namePrefix", Value: "tomcat-exec-", Reason: src})
	}
	if a, ok := el.attr("prestartminSpareThreads"); ok {
		v, _ := r.resolve(a)
		if r.tomcatKnown && !versionAtLeast(r.tomcat, [3]int{10, 1, 0}) {
			p.Prestart = javaBool(v)
			p.Found = append(p.Found, r.origin(a, v))
			p.Notes = append(p.Notes, "Tomcat before 10.1 prestarts an Executor's minSpareThreads only with prestartminSpareThreads=\"true\" (default false); unverified for late 9.0.x releases, whose pool constructor may prestart anyway")
		} else {
			p.Ignored = append(p.Ignored, Ignored{Origin: r.origin(a, v), Reason: "Tomcat 10.1 has no prestartminSpareThreads (StandardThreadExecutor 10.1.52); its pool constructor prestarts minSpareThreads anyway (R65)"})
			if !r.tomcatKnown && !javaBool(v) {
				p.Warnings = append(p.Warnings, Warning{File: r.name, Line: a.line, Key: a.name,
					Msg:    "ignored, as Tomcat 10.1 and later ignore it (assumed: no version given): all minSpareThreads start at once; on Tomcat 9 and earlier they would not be prestarted",
					Remedy: remedyTomcat})
			}
		}
	} else {
		if r.tomcatKnown && !versionAtLeast(r.tomcat, [3]int{10, 1, 0}) {
			p.Prestart = false
			p.Defaulted = append(p.Defaulted, Default{Key: "prestartminSpareThreads", Value: "false", Reason: "Tomcat 9 StandardThreadExecutor (unverified for late 9.0.x releases)"})
		} else {
			p.Defaulted = append(p.Defaulted, Default{Key: "prestart", Value: "true", Reason: "Tomcat 10.1 ThreadPoolExecutor constructor calls prestartAllCoreThreads() (R65)"})
		}
	}
	// Read for the record; they do not change the model's numbers.
	for _, n := range []string{"threadRenewalDelay", "threadPriority", "daemon"} {
		if _, o, ok, err := r.strAttr(el, n); err != nil {
			return err
		} else if ok {
			p.Found = append(p.Found, o)
		}
	}
	if err := checkPool(r.name, el, &p, "minSpareThreads", "maxThreads", "maxIdleTime", "maxQueueSize", "StandardThreadExecutor fails to start"); err != nil {
		return err
	}
	r.noteCaseTypos(&p, el, []string{"name", "namePrefix", "maxThreads", "minSpareThreads", "maxIdleTime", "maxQueueSize", "threadPriority", "daemon", "threadRenewalDelay", "className", "prestartminSpareThreads"})
	if _, dup := r.executors[name]; dup {
		p.Notes = append(p.Notes, fmt.Sprintf("another <Executor name=%q> precedes this one in the Service: Connectors use that first one (StandardService.getExecutor returns the first match), so this pool is never used", name))
	}
	r.s.Pools = append(r.s.Pools, p)
	if _, dup := r.executors[name]; !dup {
		r.executors[name] = len(r.s.Pools) - 1
	}
	return nil
}

// checkPool rejects settings the pool constructor would refuse (R2).
func checkPool(file string, el *xmlElem, p *Pool, coreKey, maxKey, keepKey, queueKey, consequence string) error {
	at := func(k string) (int, int) {
		if a, ok := el.attr(k); ok {
			return a.line, a.col
		}
		return el.line, el.col
	}
	// def marks a value that is the documented default, not written.
	def := func(k string) string {
		if _, ok := el.attr(k); ok {
			return ""
		}
		return " (the default)"
	}
	switch {
	case p.VirtualThreads:
		return nil
	case p.Max <= 0:
		l, c := at(maxKey)
		return inputerr.New(file, l, c, maxKey, fmt.Sprintf("%d <= 0: the pool constructor throws IllegalArgumentException (R2) and %s", p.Max, consequence), "> 0")
	case p.Core < 0:
		l, c := at(coreKey)
		return inputerr.New(file, l, c, coreKey, fmt.Sprintf("%d < 0: the pool constructor throws IllegalArgumentException (R2) and %s", p.Core, consequence), ">= 0")
	case p.Core > p.Max:
		l, c := at(coreKey)
		return inputerr.New(file, l, c, coreKey, fmt.Sprintf("%d%s > %s %d%s: the pool constructor throws IllegalArgumentException (R2) and %s", p.Core, def(coreKey), maxKey, p.Max, def(maxKey), consequence), "<= "+maxKey)
	case p.KeepAlive < 0:
		l, c := at(keepKey)
		return inputerr.New(file, l, c, keepKey, fmt.Sprintf("negative: the pool constructor throws IllegalArgumentException (R2) and %s", consequence), ">= 0")
	case p.MaxQueueSize <= 0:
		l, c := at(queueKey)
		return inputerr.New(file, l, c, queueKey, fmt.Sprintf("%d <= 0: TaskQueue (a LinkedBlockingQueue) throws IllegalArgumentException and %s", p.MaxQueueSize, consequence), "> 0")
	}
	return nil
}

// noteCaseTypos notes attributes that differ from a known one only in case:
// Tomcat's IntrospectionUtils matches setter names exactly, so
// maxthreads="800" is silently ignored.
func (r *xmlReader) noteCaseTypos(p *Pool, el *xmlElem, known []string) {
	for _, a := range el.attrs {
		for _, k := range known {
			if a.name != k && strings.EqualFold(a.name, k) {
				p.Ignored = append(p.Ignored, Ignored{Origin: r.origin(a, a.value), Reason: fmt.Sprintf("attribute names are case-sensitive: Tomcat ignores %s (did you mean %s?)", a.name, k)})
			}
		}
	}
}

// finish adds notes that need the whole file.
func (r *xmlReader) finish() {
	for i := range r.s.Pools {
		p := &r.s.Pools[i]
		if p.Kind == KindTomcatExecutor && len(p.UsedBy) == 0 {
			p.Notes = append(p.Notes, "no Connector uses this executor (a Connector must name it with executor=\"…\" after its declaration)")
		}
	}
	if len(r.s.Pools) == 0 {
		r.s.Notes = append(r.s.Notes, "no <Connector> or <Executor> under Server/Service: no pool found")
	}
}

package importconf

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file reads a server.xml <Connector>: the name Tomcat gives it (and so
// its threads), its connection limits, and its pool, its own or a shared
// <Executor>'s.

// connector protocol handlers: protocol attribute -> name prefix
// (getNamePrefix of each ProtocolHandler, 10.1.52; Tomcat 9 APR ones from
// its documentation).
type protoInfo struct {
	plain, sslFmt string // sslFmt has %s for the SSL implementation short name
	ajp           bool
	apr           bool
}

// protocolInfo looks up the handler of a protocol attribute; false for a
// class importconf does not know.
func protocolInfo(protocol string) (protoInfo, bool) {
	switch protocol {
	case "", "HTTP/1.1", "org.apache.coyote.http11.Http11NioProtocol":
		return protoInfo{plain: "http-nio", sslFmt: "https-%s-nio"}, true
	case "org.apache.coyote.http11.Http11Nio2Protocol":
		return protoInfo{plain: "http-nio2", sslFmt: "https-%s-nio2"}, true
	case "AJP/1.3", "org.apache.coyote.ajp.AjpNioProtocol":
		return protoInfo{plain: "ajp-nio", ajp: true}, true
	case "org.apache.coyote.ajp.AjpNio2Protocol":
		return protoInfo{plain: "ajp-nio2", ajp: true}, true
	case "org.apache.coyote.http11.Http11AprProtocol":
		return protoInfo{plain: "http-apr", sslFmt: "https-openssl-apr", apr: true}, true
	case "org.apache.coyote.ajp.AjpAprProtocol":
		return protoInfo{plain: "ajp-apr", ajp: true, apr: true}, true
	}
	return protoInfo{}, false
}

// threadAttrs are the Connector attributes that configure its own pool; with
// a shared Executor they do nothing (R74).
var threadAttrs = []string{"maxThreads", "minSpareThreads", "threadsMaxIdleTime", "maxQueueSize", "threadPriority", "useVirtualThreads"}

// connector reads a <Connector>: the name Tomcat gives it and its threads,
// its connection limits, and the pool it runs on: a shared <Executor>
// declared before it (R74), or its own.
func (r *xmlReader) connector(el *xmlElem) error {
	protocol, po, pok, err := r.strAttr(el, "protocol")
	if err != nil {
		return err
	}
	if !pok {
		protocol = "HTTP/1.1"
	}
	info, known := protocolInfo(protocol)
	var notes []string
	if r.tomcatKnown && !versionAtLeast(r.tomcat, [3]int{10, 1, 0}) && (protocol == "HTTP/1.1" || protocol == "AJP/1.3") {
		notes = append(notes, "Tomcat 9 picks the APR/native connector for "+protocol+" when the Tomcat Native library is installed: the name is then http-apr-/ajp-apr-… instead")
	}

	// Name: getNamePrefix() + "-" + (id | address "-" + port) (AbstractProtocol.getNameInternal).
	prefix, err := r.connectorPrefix(el, protocol, info, known, &notes)
	if err != nil {
		return err
	}
	id, err := r.connectorID(el)
	if err != nil {
		return err
	}
	var port int
	var portO Origin
	portOK, portUnknown := false, ""
	if a, ok := el.attr("port"); ok && r.soft(a, "the connector's name (and its threads' name prefix)", &notes) {
		portUnknown = a.value
	} else if port, portO, portOK, err = r.intAttr(el, "port"); err != nil {
		return err
	}
	if !portOK && portUnknown == "" {
		port = -1
		notes = append(notes, "no port attribute: Tomcat uses -1")
	}
	name, portStr, err := r.connectorName(el, prefix, id, port, info.ajp, &notes)
	if err != nil {
		return err
	}
	if portUnknown != "" && id == "" {
		name = strings.TrimSuffix(name, portStr) + portUnknown
		portStr = portUnknown
	}

	conn := Connector{Name: name, Port: portStr, Protocol: protocol, Pool: -1, File: r.name, Line: el.line}
	execName, eo, eok, err := r.strAttr(el, "executor")
	if err != nil {
		return err
	}
	var lim connLimits
	if pok {
		lim.found = append(lim.found, po)
	}
	if portOK {
		lim.found = append(lim.found, portO)
	}
	if err := r.connectionLimits(el, &lim); err != nil {
		return err
	}
	conn.AcceptCount, conn.MaxConnections = lim.accept, lim.maxConn
	if eok {
		if idx, found := r.executors[execName]; found {
			r.shareExecutor(el, conn, execName, idx, eo, lim, notes)
			return nil
		}
		notes = append(notes, fmt.Sprintf("executor=%q names no <Executor> declared before this Connector in its Service: Tomcat then gives the Connector its own pool (ConnectorCreateRule)", execName))
	}
	return r.ownPool(el, conn, known, lim, notes)
}

// connectorPrefix is the protocol handler's getNamePrefix(): its name, and
// with SSL the name with the SSL implementation's short name in it.
func (r *xmlReader) connectorPrefix(el *xmlElem, protocol string, info protoInfo, known bool, notes *[]string) (string, error) {
	sslOn := false
	if v, _, ok, err := r.strAttr(el, "SSLEnabled"); err != nil {
		return "", err
	} else if ok {
		sslOn = javaBool(v)
	}
	prefix := info.plain
	if !known {
		prefix = protocol
		*notes = append(*notes, "protocol "+protocol+" is not a protocol handler importconf knows: the pool is named after the class, and its thread names are unknown")
	}
	if sslOn && info.sslFmt != "" {
		short := "jsse"
		impl, _, implOK, err := r.strAttr(el, "sslImplementationName")
		if err != nil {
			return "", err
		}
		switch {
		case implOK && impl == "org.apache.tomcat.util.net.openssl.OpenSSLImplementation":
			short = "openssl"
		case implOK && strings.HasSuffix(impl, ".panama.OpenSSLImplementation"):
			short = "opensslffm"
		case !implOK && r.aprListener:
			*notes = append(*notes, "with the Tomcat Native library installed, the AprLifecycleListener switches this connector to OpenSSL: its name is then https-openssl-nio-…")
		}
		if strings.Contains(info.sslFmt, "%s") {
			prefix = fmt.Sprintf(info.sslFmt, short)
		} else {
			prefix = info.sslFmt
		}
	}
	return prefix, nil
}

// connectorID is the id that replaces address and port in the name: an
// inherited channel's, or a Unix domain socket's path; "" for neither.
func (r *xmlReader) connectorID(el *xmlElem) (string, error) {
	id := ""
	if v, _, ok, err := r.strAttr(el, "useInheritedChannel"); err != nil {
		return "", err
	} else if ok && javaBool(v) {
		id = "JVMInheritedChannel"
	} else if v, _, ok, err := r.strAttr(el, "unixDomainSocketPath"); err != nil {
		return "", err
	} else if ok && v != "" {
		id = v
	}
	return id, nil
}

// connectorName is AbstractProtocol.getNameInternal(): prefix "-" then the
// id, or the address (for AJP the loopback by default) "-" and the port
// after portOffset, which is also returned.
func (r *xmlReader) connectorName(el *xmlElem, prefix, id string, port int, ajp bool, notes *[]string) (name, portStr string, err error) {
	portStr = strconv.Itoa(port + r.portOffset)
	name = prefix + "-"
	if id != "" {
		name += id
	} else {
		if a, ok := el.attr("address"); ok && r.soft(a, "the connector's name (and its threads' name prefix)", notes) {
			name += a.value + "-"
		} else if ok {
			v, err := r.resolve(a)
			if err != nil {
				return "", "", err
			}
			ha, note := javaHostAddress(v)
			name += ha + "-"
			if note != "" {
				*notes = append(*notes, note)
			}
		} else if ajp && (!r.tomcatKnown || versionAtLeast(r.tomcat, [3]int{9, 0, 31})) {
			// AbstractAjpProtocol binds to the loopback address unless told
			// otherwise (since 9.0.31 / 8.5.51, the "Ghostcat" fix), and the
			// address is part of the name: ajp-nio-127.0.0.1-8009.
			name += "127.0.0.1-"
		}
		if port+r.portOffset == 0 {
			portStr = "auto-1"
			*notes = append(*notes, "port 0 binds a free port at run time: Tomcat names the connector <prefix>-auto-N-<port> (N counts such connectors)")
		}
		name += portStr
	}
	return name, portStr, nil
}

// connLimits are a Connector's connection settings (R75) and where they
// came from (with the protocol and port attributes): they go to the pool
// that serves the Connector.
type connLimits struct {
	accept, maxConn int
	found           []Origin
	defaults        []Default
}

// connectionLimits reads acceptCount and maxConnections into lim.
func (r *xmlReader) connectionLimits(el *xmlElem, lim *connLimits) error {
	lim.accept, lim.maxConn = 100, 8192
	if n, o, ok, err := r.intAttr(el, "acceptCount"); err != nil {
		return err
	} else if ok {
		lim.accept = n
		lim.found = append(lim.found, o)
	} else {
		lim.defaults = append(lim.defaults, Default{Key: "acceptCount", Value: "100", Reason: r.srcEndpoint()})
	}
	if n, o, ok, err := r.intAttr(el, "maxConnections"); err != nil {
		return err
	} else if ok {
		lim.maxConn = n
		lim.found = append(lim.found, o)
	} else {
		lim.defaults = append(lim.defaults, Default{Key: "maxConnections", Value: "8192", Reason: r.srcEndpoint() + "; NIO/NIO2 (APR in Tomcat 9: 8192 as well)"})
	}
	return nil
}

// shareExecutor puts the Connector on the shared Executor at index idx:
// the first Connector to use it gives the pool its connection limits, and
// the Connector's own thread attributes are ignored (R74).
func (r *xmlReader) shareExecutor(el *xmlElem, conn Connector, execName string, idx int, eo Origin, lim connLimits, notes []string) {
	conn.Executor = execName
	conn.Pool = idx
	p := &r.s.Pools[idx]
	p.UsedBy = append(p.UsedBy, conn.Name)
	eo.Key = "executor"
	if len(p.UsedBy) == 1 {
		p.AcceptCount, p.MaxConnections = lim.accept, lim.maxConn
		p.Found = append(p.Found, eo)
		p.Found = append(p.Found, lim.found...)
		p.Defaulted = append(p.Defaulted, lim.defaults...)
	} else {
		p.Notes = append(p.Notes, fmt.Sprintf("connector %s (line %d) also uses this executor, with acceptCount %d and maxConnections %d", conn.Name, el.line, lim.accept, lim.maxConn))
	}
	for _, n := range threadAttrs {
		if a, ok := el.attr(n); ok {
			p.Ignored = append(p.Ignored, Ignored{Origin: r.origin(a, a.value), Reason: fmt.Sprintf("connector %s uses executor %q, so its own thread attributes are ignored (R74)", conn.Name, execName)})
		}
	}
	p.Notes = append(p.Notes, notes...)
	r.s.Connectors = append(r.s.Connectors, conn)
}

// ownPool gives the Connector its own pool, from its thread attributes
// and AbstractEndpoint's defaults.
func (r *xmlReader) ownPool(el *xmlElem, conn Connector, known bool, lim connLimits, notes []string) error {
	p := Pool{Kind: KindTomcatConnector, Name: conn.Name, File: r.name, Line: el.line, Prestart: true,
		AcceptCount: lim.accept, MaxConnections: lim.maxConn, Notes: notes}
	if known {
		p.ThreadNamePrefix = conn.Name + "-exec-"
	}
	p.Found = append(p.Found, lim.found...)
	p.Defaulted = append(p.Defaulted, lim.defaults...)
	var maxThreads, minSpare, keepMS int
	if err := r.intSetting(&p, el, "maxThreads", &maxThreads, 200, r.srcEndpoint()); err != nil {
		return err
	}
	if err := r.intSetting(&p, el, "minSpareThreads", &minSpare, 10, r.srcEndpoint()); err != nil {
		return err
	}
	if err := r.idleSetting(&p, el, &keepMS); err != nil {
		return err
	}
	if err := r.intSetting(&p, el, "maxQueueSize", &p.MaxQueueSize, Unbounded, r.srcEndpoint()); err != nil {
		return err
	}
	p.Max = maxThreads
	// AbstractEndpoint.getMinSpareThreads() = min(minSpareThreads, maxThreads) (R73).
	p.Core = min(minSpare, maxThreads)
	if minSpare > maxThreads {
		p.Notes = append(p.Notes, fmt.Sprintf("minSpareThreads %d > maxThreads %d: Tomcat uses core = min(minSpareThreads, maxThreads) = %d (R73)", minSpare, maxThreads, p.Core))
	}
	p.KeepAlive = time.Duration(keepMS) * time.Millisecond
	p.Defaulted = append(p.Defaulted, Default{Key: "prestart", Value: "true", Reason: "Tomcat's ThreadPoolExecutor constructor calls prestartAllCoreThreads() (R65)"})
	if v, o, ok, err := r.strAttr(el, "useVirtualThreads"); err != nil {
		return err
	} else if ok && javaBool(v) {
		p.VirtualThreads = true
		p.Found = append(p.Found, o)
		p.Notes = append(p.Notes, "useVirtualThreads=\"true\": the connector runs each request on a new virtual thread (VirtualThreadExecutor); the pool numbers have no effect")
	}
	if err := checkPool(r.name, el, &p, "minSpareThreads", "maxThreads", "threadsMaxIdleTime", "maxQueueSize", "the connector fails to start"); err != nil {
		return err
	}
	r.noteCaseTypos(&p, el, append([]string{"executor", "port", "protocol", "acceptCount", "maxConnections", "address"}, threadAttrs...))
	r.s.Pools = append(r.s.Pools, p)
	conn.Pool = len(r.s.Pools) - 1
	if p.VirtualThreads {
		conn.Pool = -1
	}
	r.s.Connectors = append(r.s.Connectors, conn)
	return nil
}

// idleSetting reads threadsMaxIdleTime, which exists from Tomcat 9.0.88 and
// 10.1.20; earlier versions keep idle connector threads 60 s (R73).
func (r *xmlReader) idleSetting(p *Pool, el *xmlElem, keepMS *int) error {
	n, o, ok, err := r.intAttr(el, "threadsMaxIdleTime")
	if err != nil {
		return err
	}
	supported := !r.tomcatKnown || versionAtLeast(r.tomcat, [3]int{10, 1, 20}) ||
		(r.tomcat[0] == 9 && versionAtLeast(r.tomcat, [3]int{9, 0, 88}))
	switch {
	case ok && supported:
		*keepMS = n
		p.Found = append(p.Found, o)
		if !r.tomcatKnown {
			p.Warnings = append(p.Warnings, Warning{File: r.name, Line: o.Line, Key: o.Key,
				Msg:    "read as a current Tomcat reads it (assumed: no version given); Tomcat before 9.0.88 / 10.1.20 ignores threadsMaxIdleTime and keeps idle threads 60 s",
				Remedy: remedyTomcat})
		}
	case ok:
		*keepMS = 60000
		p.Ignored = append(p.Ignored, Ignored{Origin: o, Reason: "threadsMaxIdleTime exists from Tomcat 9.0.88 and 10.1.20; this version keeps idle connector threads 60 s"})
		p.Defaulted = append(p.Defaulted, Default{Key: "threadsMaxIdleTime", Value: "60000", Reason: "fixed 60 s in AbstractEndpoint.createExecutor before 9.0.88 / 10.1.20 (R73)"})
	default:
		*keepMS = 60000
		p.Defaulted = append(p.Defaulted, Default{Key: "threadsMaxIdleTime", Value: "60000", Reason: r.srcEndpoint()})
	}
	return nil
}

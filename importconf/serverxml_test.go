package importconf

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// serverXML wraps connector and executor elements in a minimal server.xml.
// serverAttrs go on <Server>.
func serverXML(serverAttrs, body string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<Server port="8005" shutdown="SHUTDOWN"` + serverAttrs + `>
  <Service name="Catalina">
    ` + body + `
    <Engine name="Catalina" defaultHost="localhost"/>
  </Service>
</Server>
`)
}

func found(p Pool, key string) bool {
	return slices.ContainsFunc(p.Found, func(o Origin) bool { return o.Key == key })
}

func defaulted(p Pool, key string) bool {
	return slices.ContainsFunc(p.Defaulted, func(d Default) bool { return d.Key == key })
}

func ignored(p Pool, key string) bool {
	return slices.ContainsFunc(p.Ignored, func(i Ignored) bool { return i.Key == key })
}

// want is the part of a Pool a table row checks.
type want struct {
	name, prefix              string
	core, max                 int
	keepAlive                 time.Duration
	queue, accept, maxConn    int
	prestart, virtual         bool
	found, defaulted, ignored []string
}

func assertPool(t *testing.T, p Pool, w want) {
	t.Helper()
	if p.Name != w.name || p.ThreadNamePrefix != w.prefix {
		t.Errorf("name %q prefix %q, want %q %q", p.Name, p.ThreadNamePrefix, w.name, w.prefix)
	}
	if p.Core != w.core || p.Max != w.max || p.KeepAlive != w.keepAlive || p.MaxQueueSize != w.queue {
		t.Errorf("core %d max %d keepAlive %s queue %d, want %d %d %s %d", p.Core, p.Max, p.KeepAlive, p.MaxQueueSize, w.core, w.max, w.keepAlive, w.queue)
	}
	if p.AcceptCount != w.accept || p.MaxConnections != w.maxConn {
		t.Errorf("acceptCount %d maxConnections %d, want %d %d", p.AcceptCount, p.MaxConnections, w.accept, w.maxConn)
	}
	if p.Prestart != w.prestart || p.VirtualThreads != w.virtual {
		t.Errorf("prestart %v virtual %v, want %v %v", p.Prestart, p.VirtualThreads, w.prestart, w.virtual)
	}
	for _, k := range w.found {
		if !found(p, k) {
			t.Errorf("%s not in Found %+v", k, p.Found)
		}
	}
	for _, k := range w.defaulted {
		if !defaulted(p, k) {
			t.Errorf("%s not in Defaulted %+v", k, p.Defaulted)
		}
	}
	for _, k := range w.ignored {
		if !ignored(p, k) {
			t.Errorf("%s not in Ignored %+v", k, p.Ignored)
		}
	}
}

// Connector defaults: Tomcat 10.1 AbstractEndpoint (javap of 10.1.52):
// minSpareThreads 10, maxThreads 200, threadsMaxIdleTime 60000,
// maxQueueSize Integer.MAX_VALUE, acceptCount 100, maxConnections 8192.
var connDefaults = want{name: "http-nio-8080", prefix: "http-nio-8080-exec-", core: 10, max: 200, keepAlive: time.Minute,
	queue: Unbounded, accept: 100, maxConn: 8192, prestart: true}

func with(w want, f func(*want)) want { f(&w); return w }

func TestServerXMLConnector(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server string // attributes of <Server>
		attrs  string // attributes of the <Connector>
		opts   Options
		want   want
	}{
		// Nothing but a port: every thread setting is a documented default (R73).
		{"defaults", "", `port="8080"`, Options{},
			with(connDefaults, func(w *want) {
				w.defaulted = []string{"maxThreads", "minSpareThreads", "threadsMaxIdleTime", "maxQueueSize", "acceptCount", "maxConnections", "prestart"}
			})},
		// maxThreads is maximumPoolSize.
		{"maxThreads", "", `port="8080" maxThreads="800"`, Options{},
			with(connDefaults, func(w *want) { w.max = 800; w.found = []string{"maxThreads"} })},
		// core = min(minSpareThreads, maxThreads) (R73, AbstractEndpoint.getMinSpareThreads).
		{"minSpare above max", "", `port="8080" minSpareThreads="300" maxThreads="200"`, Options{},
			with(connDefaults, func(w *want) { w.core = 200; w.max = 200 })},
		// minSpareThreads 0 is legal: a pool that starts empty.
		{"minSpare zero", "", `port="8080" minSpareThreads="0"`, Options{},
			with(connDefaults, func(w *want) { w.core = 0 })},
		// threadsMaxIdleTime is K in milliseconds; version unknown: accepted with a note.
		{"threadsMaxIdleTime", "", `port="8080" threadsMaxIdleTime="15000"`, Options{},
			with(connDefaults, func(w *want) { w.keepAlive = 15 * time.Second; w.found = []string{"threadsMaxIdleTime"} })},
		// 10.1.20 is the first 10.1 release with the attribute.
		{"threadsMaxIdleTime 10.1.20", "", `port="8080" threadsMaxIdleTime="15000"`, Options{TomcatVersion: "10.1.20"},
			with(connDefaults, func(w *want) { w.keepAlive = 15 * time.Second })},
		// 10.1.19 ignores it: fixed 60 s.
		{"threadsMaxIdleTime 10.1.19", "", `port="8080" threadsMaxIdleTime="15000"`, Options{TomcatVersion: "10.1.19"},
			with(connDefaults, func(w *want) {
				w.ignored = []string{"threadsMaxIdleTime"}
				w.defaulted = []string{"threadsMaxIdleTime"}
			})},
		// 9.0.88 is the first 9.0 release with it.
		{"threadsMaxIdleTime 9.0.88", "", `port="8080" threadsMaxIdleTime="15000"`, Options{TomcatVersion: "9.0.88"},
			with(connDefaults, func(w *want) { w.keepAlive = 15 * time.Second })},
		// 9.0.87 ignores it.
		{"threadsMaxIdleTime 9.0.87", "", `port="8080" threadsMaxIdleTime="15000"`, Options{TomcatVersion: "9.0.87"},
			with(connDefaults, func(w *want) { w.ignored = []string{"threadsMaxIdleTime"} })},
		// Tomcat 11 has it.
		{"threadsMaxIdleTime 11", "", `port="8080" threadsMaxIdleTime="15000"`, Options{TomcatVersion: "11.0.2"},
			with(connDefaults, func(w *want) { w.keepAlive = 15 * time.Second })},
		// maxQueueSize bounds the TaskQueue.
		{"maxQueueSize", "", `port="8080" maxQueueSize="100"`, Options{},
			with(connDefaults, func(w *want) { w.queue = 100; w.found = []string{"maxQueueSize"} })},
		// acceptCount and maxConnections are connector settings (R75); -1 disables maxConnections.
		{"acceptCount maxConnections", "", `port="8080" acceptCount="10" maxConnections="-1"`, Options{},
			with(connDefaults, func(w *want) { w.accept = 10; w.maxConn = -1; w.found = []string{"acceptCount", "maxConnections"} })},
		// AJP/1.3 is AjpNioProtocol: prefix ajp-nio, and it listens on the
		// loopback address by default, which joins the name (found by the
		// differential test against Tomcat's Digester).
		{"ajp", "", `port="8009" protocol="AJP/1.3"`, Options{},
			with(connDefaults, func(w *want) { w.name = "ajp-nio-127.0.0.1-8009"; w.prefix = "ajp-nio-127.0.0.1-8009-exec-" })},
		// Before 9.0.31 AJP listened on all addresses.
		{"ajp 9.0.30", "", `port="8009" protocol="AJP/1.3"`, Options{TomcatVersion: "9.0.30"},
			with(connDefaults, func(w *want) { w.name = "ajp-nio-8009"; w.prefix = "ajp-nio-8009-exec-" })},
		// NIO2: http-nio2.
		{"nio2", "", `port="8080" protocol="org.apache.coyote.http11.Http11Nio2Protocol"`, Options{},
			with(connDefaults, func(w *want) { w.name = "http-nio2-8080"; w.prefix = "http-nio2-8080-exec-" })},
		// TLS with JSSE: https-jsse-nio (Http11NioProtocol.getNamePrefix).
		{"https jsse", "", `port="8443" SSLEnabled="true"`, Options{},
			with(connDefaults, func(w *want) { w.name = "https-jsse-nio-8443"; w.prefix = "https-jsse-nio-8443-exec-" })},
		// Boolean.valueOf ignores case.
		{"https TRUE", "", `port="8443" SSLEnabled="TRUE"`, Options{},
			with(connDefaults, func(w *want) { w.name = "https-jsse-nio-8443"; w.prefix = "https-jsse-nio-8443-exec-" })},
		// OpenSSL through tomcat-native.
		{"https openssl", "", `port="8443" SSLEnabled="true" sslImplementationName="org.apache.tomcat.util.net.openssl.OpenSSLImplementation"`, Options{},
			with(connDefaults, func(w *want) { w.name = "https-openssl-nio-8443"; w.prefix = "https-openssl-nio-8443-exec-" })},
		// OpenSSL through the FFM API (panama).
		{"https panama", "", `port="8443" SSLEnabled="true" sslImplementationName="org.apache.tomcat.util.net.openssl.panama.OpenSSLImplementation"`, Options{},
			with(connDefaults, func(w *want) { w.name = "https-opensslffm-nio-8443"; w.prefix = "https-opensslffm-nio-8443-exec-" })},
		// An IPv4 address joins the name.
		{"address v4", "", `port="8080" address="0.0.0.0"`, Options{},
			with(connDefaults, func(w *want) { w.name = "http-nio-0.0.0.0-8080"; w.prefix = "http-nio-0.0.0.0-8080-exec-" })},
		// IPv6 as Inet6Address.getHostAddress prints it: no zero compression.
		{"address v6", "", `port="8080" address="::1"`, Options{},
			with(connDefaults, func(w *want) {
				w.name = "http-nio-0:0:0:0:0:0:0:1-8080"
				w.prefix = "http-nio-0:0:0:0:0:0:0:1-8080-exec-"
			})},
		// An IPv4-mapped IPv6 literal is an Inet4Address in Java.
		{"address mapped", "", `port="8080" address="::ffff:10.0.0.1"`, Options{},
			with(connDefaults, func(w *want) { w.name = "http-nio-10.0.0.1-8080"; w.prefix = "http-nio-10.0.0.1-8080-exec-" })},
		// Server portOffset shifts the port in the name (getPortWithOffset).
		{"portOffset", ` portOffset="100"`, `port="8080"`, Options{},
			with(connDefaults, func(w *want) { w.name = "http-nio-8180"; w.prefix = "http-nio-8180-exec-" })},
		// Port 0: auto-N.
		{"port zero", "", `port="0"`, Options{},
			with(connDefaults, func(w *want) { w.name = "http-nio-auto-1"; w.prefix = "http-nio-auto-1-exec-" })},
		// A Unix domain socket path replaces address and port (NioEndpoint.getId).
		{"unix socket", "", `port="8080" unixDomainSocketPath="/run/tomcat.sock"`, Options{},
			with(connDefaults, func(w *want) { w.name = "http-nio-/run/tomcat.sock"; w.prefix = "http-nio-/run/tomcat.sock-exec-" })},
		// Virtual threads replace the pool.
		{"virtual threads", "", `port="8080" useVirtualThreads="true"`, Options{},
			with(connDefaults, func(w *want) { w.virtual = true; w.found = []string{"useVirtualThreads"} })},
		// ${name} from Options.Properties.
		{"placeholder", "", `port="${http.port}" maxThreads="${threads}"`, Options{Properties: map[string]string{"http.port": "9000", "threads": "64"}},
			with(connDefaults, func(w *want) { w.name = "http-nio-9000"; w.prefix = "http-nio-9000-exec-"; w.max = 64 })},
		// ${name:-default} when no value is given.
		{"placeholder default", "", `port="8080" maxThreads="${threads:-150}"`, Options{},
			with(connDefaults, func(w *want) { w.max = 150 })},
		// Attribute names are case-sensitive: maxthreads does nothing.
		{"case typo", "", `port="8080" maxthreads="800"`, Options{},
			with(connDefaults, func(w *want) { w.ignored = []string{"maxthreads"} })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseServerXML("server.xml", serverXML(tc.server, "<Connector "+tc.attrs+"/>"), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Pools) != 1 || len(s.Connectors) != 1 {
				t.Fatalf("%d pools %d connectors, want 1 and 1", len(s.Pools), len(s.Connectors))
			}
			if s.Pools[0].Kind != KindTomcatConnector {
				t.Errorf("kind %s", s.Pools[0].Kind)
			}
			assertPool(t, s.Pools[0], tc.want)
			if s.Connectors[0].Name != tc.want.name {
				t.Errorf("connector name %q, want %q", s.Connectors[0].Name, tc.want.name)
			}
		})
	}
}

// Executor defaults: StandardThreadExecutor 10.1.52: namePrefix
// "tomcat-exec-", maxThreads 200, minSpareThreads 25, maxIdleTime 60000,
// maxQueueSize Integer.MAX_VALUE; the pool prestarts (R65).
var execDefaults = want{name: "pool", prefix: "tomcat-exec-", core: 25, max: 200, keepAlive: time.Minute, queue: Unbounded, prestart: true}

func TestServerXMLExecutor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs string
		opts  Options
		want  want
	}{
		// Only a name: documented defaults.
		{"defaults", `name="pool"`, Options{},
			with(execDefaults, func(w *want) {
				w.defaulted = []string{"maxThreads", "minSpareThreads", "maxIdleTime", "maxQueueSize", "namePrefix", "prestart"}
			})},
		// Every attribute set; the executor's minSpareThreads is its core, not min'ed with max (R74).
		{"all", `name="pool" namePrefix="catalina-exec-" maxThreads="150" minSpareThreads="4" maxIdleTime="10000" maxQueueSize="50"`, Options{},
			with(execDefaults, func(w *want) {
				w.prefix, w.core, w.max, w.keepAlive, w.queue = "catalina-exec-", 4, 150, 10*time.Second, 50
				w.found = []string{"namePrefix", "maxThreads", "minSpareThreads", "maxIdleTime", "maxQueueSize"}
			})},
		// Tomcat 10.1 has no prestartminSpareThreads: ignored, and it prestarts anyway.
		{"prestart attr 10.1", `name="pool" prestartminSpareThreads="false"`, Options{},
			with(execDefaults, func(w *want) { w.ignored = []string{"prestartminSpareThreads"} })},
		// Tomcat 9: prestart only on request (default false).
		{"tomcat 9 default", `name="pool"`, Options{TomcatVersion: "9.0.80"},
			with(execDefaults, func(w *want) { w.prestart = false; w.defaulted = []string{"prestartminSpareThreads"} })},
		// Tomcat 9 with prestartminSpareThreads="true".
		{"tomcat 9 prestart", `name="pool" prestartminSpareThreads="true"`, Options{TomcatVersion: "9.0.80"},
			with(execDefaults, func(w *want) { w.found = []string{"prestartminSpareThreads"} })},
		// The virtual-thread executor has no pool.
		{"virtual", `name="pool" className="org.apache.catalina.core.StandardVirtualThreadExecutor"`, Options{},
			with(execDefaults, func(w *want) { w.virtual = true })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseServerXML("server.xml", serverXML("", "<Executor "+tc.attrs+"/>"), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Pools) != 1 || s.Pools[0].Kind != KindTomcatExecutor {
				t.Fatalf("pools %+v", s.Pools)
			}
			assertPool(t, s.Pools[0], tc.want)
		})
	}
}

func TestServerXMLExecutorReference(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      string
		pools     []Kind // kinds of the pools, in order
		connPool  int    // pool index the connector uses
		ignored   []string
		noteMatch string
	}{
		// Executor before the Connector: the Connector uses it and its maxThreads is ignored (R74).
		{"executor used", `<Executor name="ex" maxThreads="50"/><Connector port="8080" executor="ex" maxThreads="800" minSpareThreads="5"/>`,
			[]Kind{KindTomcatExecutor}, 0, []string{"maxThreads", "minSpareThreads"}, ""},
		// Executor after the Connector: ConnectorCreateRule finds nothing; the Connector makes its own pool.
		{"executor after", `<Connector port="8080" executor="ex"/><Executor name="ex"/>`,
			[]Kind{KindTomcatConnector, KindTomcatExecutor}, 0, nil, "names no <Executor> declared before"},
		// Unknown executor name: own pool.
		{"executor unknown", `<Executor name="ex"/><Connector port="8080" executor="nope"/>`,
			[]Kind{KindTomcatExecutor, KindTomcatConnector}, 1, nil, "names no <Executor>"},
		// Two connectors share one executor.
		{"shared", `<Executor name="ex"/><Connector port="8080" executor="ex"/><Connector port="8009" protocol="AJP/1.3" executor="ex"/>`,
			[]Kind{KindTomcatExecutor}, 0, nil, "also uses this executor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseServerXML("server.xml", serverXML("", tc.body), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []Kind
			for _, p := range s.Pools {
				kinds = append(kinds, p.Kind)
			}
			if !slices.Equal(kinds, tc.pools) {
				t.Fatalf("pool kinds %v, want %v", kinds, tc.pools)
			}
			if s.Connectors[0].Pool != tc.connPool {
				t.Errorf("connector uses pool %d, want %d", s.Connectors[0].Pool, tc.connPool)
			}
			p := s.Pools[s.Connectors[0].Pool]
			for _, k := range tc.ignored {
				if !ignored(p, k) {
					t.Errorf("%s not ignored: %+v", k, p.Ignored)
				}
			}
			if tc.noteMatch != "" {
				all := strings.Join(append(p.Notes, s.Pools[0].Notes...), "\n")
				if !strings.Contains(all, tc.noteMatch) {
					t.Errorf("notes %q do not mention %q", all, tc.noteMatch)
				}
			}
		})
	}
}

func TestServerXMLErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		line int
		key  string
		msg  string
	}{
		// Integer.valueOf rejects "200 " and "2e2": an error, not a silent default.
		{"not an int", string(serverXML("", `<Connector port="8080"
            maxThreads="2e2"/>`)), 5, "maxThreads", "not an integer"},
		// A placeholder without value or default.
		{"unresolved", string(serverXML("", `<Connector port="8080" maxThreads="${threads}"/>`)), 4, "maxThreads", "unresolved placeholder ${threads}"},
		// maxThreads 0: JDK pool constructor IAE (R2).
		{"max zero", string(serverXML("", `<Connector port="8080" maxThreads="0"/>`)), 4, "maxThreads", "IllegalArgumentException"},
		// Executor: core above max is an IAE (no min() as for connectors).
		{"executor core above max", string(serverXML("", `<Executor name="e" minSpareThreads="300"/>`)), 4, "minSpareThreads", "IllegalArgumentException"},
		// maxThreads below the default minSpareThreads 25: StandardThreadExecutor fails to start.
		{"executor max below default core", string(serverXML("", `<Executor name="e" maxThreads="10"/>`)), 4, "minSpareThreads", "25 (the default) > maxThreads 10"},
		// Negative idle time.
		{"negative idle", string(serverXML("", `<Executor name="e" maxIdleTime="-1"/>`)), 4, "maxIdleTime", "negative"},
		// LinkedBlockingQueue(0) throws.
		{"queue zero", string(serverXML("", `<Connector port="8080" maxQueueSize="0"/>`)), 4, "maxQueueSize", "LinkedBlockingQueue"},
		// An executor needs a name.
		{"executor without name", string(serverXML("", `<Executor maxThreads="5"/>`)), 4, "name", "without a name"},
		// Duplicate attributes are not well-formed XML.
		{"duplicate attribute", string(serverXML("", `<Connector port="8080" port="8081"/>`)), 4, "port", "twice"},
		// Not XML at all.
		{"not xml", "<Server><Service></Server>", 1, "", "not well-formed"},
		// Some other Tomcat file.
		{"context.xml", `<Context><Manager pathname=""/></Context>`, 1, "", "not <Server>"},
		// Server portOffset must be an int.
		{"portOffset", string(serverXML(` portOffset="x"`, "")), 2, "portOffset", "not an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseServerXML("conf/server.xml", []byte(tc.data), Options{})
			var ie *inputerr.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want *inputerr.Error", err, err)
			}
			if ie.File != "conf/server.xml" || ie.Line != tc.line || ie.Key != tc.key || !strings.Contains(ie.Msg, tc.msg) {
				t.Errorf("got %s (line %d key %q), want line %d key %q containing %q", err, ie.Line, ie.Key, tc.line, tc.key, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "conf/server.xml:") {
				t.Errorf("%q does not start with the file name", err)
			}
		})
	}
}

// The stock conf/server.xml of Debian's tomcat10 10.1.52 package (copied
// verbatim into testdata, Apache License 2.0): one HTTP/1.1 connector on
// 8080 with every thread setting at its default, and the "common" access
// log pattern written out.
func TestDebianStockServerXML(t *testing.T) {
	s, err := LoadServerXML("testdata/server-debian-tomcat10.xml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pools) != 1 {
		t.Fatalf("%d pools, want 1", len(s.Pools))
	}
	assertPool(t, s.Pools[0], with(connDefaults, func(w *want) {
		w.found = []string{"port", "protocol"}
		w.defaulted = []string{"maxThreads", "minSpareThreads", "threadsMaxIdleTime", "maxQueueSize", "acceptCount", "maxConnections"}
	}))
	// The commented-out Executor and Connectors must not count.
	if len(s.Connectors) != 1 || s.Connectors[0].Line != 70 {
		t.Errorf("connectors %+v", s.Connectors)
	}
	if len(s.AccessLogPatterns) != 1 || s.AccessLogPatterns[0].Value != `%h %l %u %t "%r" %s %b` {
		t.Errorf("access log patterns %+v", s.AccessLogPatterns)
	}
	// If Debian's tomcat10 package is installed here, its file is the same.
	if b, err := os.ReadFile("/usr/share/tomcat10/etc/server.xml"); err == nil {
		mine, _ := os.ReadFile("testdata/server-debian-tomcat10.xml")
		if string(b) != string(mine) {
			t.Log("the installed tomcat10 server.xml differs from testdata (another package version); not an error")
		}
	}
}

func TestServerExecutorSample(t *testing.T) {
	s, err := LoadServerXML("testdata/server-executor.xml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pools) != 3 || len(s.Connectors) != 3 {
		t.Fatalf("%d pools %d connectors, want 3 and 3", len(s.Pools), len(s.Connectors))
	}
	// The shared executor: maxThreads from ${http.maxThreads:-400}, the
	// connector's acceptCount and maxConnections, its maxThreads ignored.
	assertPool(t, s.Pools[0], want{name: "tomcatThreadPool", prefix: "catalina-exec-", core: 20, max: 400, keepAlive: 30 * time.Second,
		queue: Unbounded, accept: 200, maxConn: 10000, prestart: true,
		found:   []string{"maxThreads", "minSpareThreads", "maxIdleTime", "namePrefix", "executor", "acceptCount", "maxConnections"},
		ignored: []string{"maxThreads"}})
	if !slices.Equal(s.Pools[0].UsedBy, []string{"http-nio-8080"}) {
		t.Errorf("UsedBy %v", s.Pools[0].UsedBy)
	}
	// TLS connector with its own pool and threadsMaxIdleTime.
	assertPool(t, s.Pools[1], with(connDefaults, func(w *want) {
		w.name, w.prefix, w.max, w.keepAlive = "https-jsse-nio-127.0.0.1-8443", "https-jsse-nio-127.0.0.1-8443-exec-", 150, 15*time.Second
	}))
	// AJP on ::1 with minSpareThreads above maxThreads.
	assertPool(t, s.Pools[2], with(connDefaults, func(w *want) {
		w.name, w.prefix, w.core = "ajp-nio-0:0:0:0:0:0:0:1-8009", "ajp-nio-0:0:0:0:0:0:0:1-8009-exec-", 200
	}))
	// With the system property set, the placeholder takes it.
	s, err = LoadServerXML("testdata/server-executor.xml", Options{Properties: map[string]string{"http.maxThreads": "800"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Pools[0].Max != 800 {
		t.Errorf("max %d with http.maxThreads=800", s.Pools[0].Max)
	}
	if len(s.AccessLogPatterns) != 1 || s.AccessLogPatterns[0].Value != `%h %l %u %t "%r" %s %b %D` {
		t.Errorf("access log %+v", s.AccessLogPatterns)
	}
}

func TestJavaHostAddress(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"127.0.0.1", "127.0.0.1"},                         // IPv4 unchanged
		{"::1", "0:0:0:0:0:0:0:1"},                         // Java prints IPv6 in full
		{"2001:db8::1:0:0:1", "2001:db8:0:0:1:0:0:1"},      // no zero compression, lower case
		{"FE80::A%eth0", "fe80:0:0:0:0:0:0:a%eth0"},        // scope kept
		{"::ffff:192.168.1.2", "192.168.1.2"},              // mapped address is an Inet4Address
		{"app.example.com", "app.example.com"},             // host names are not resolved here
		{"[::1]", "0:0:0:0:0:0:0:1"},                       // brackets tolerated
		{"0:0:0:0:0:0:0:0", "0:0:0:0:0:0:0:0"},             // all zeros
		{"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"},             // already full
		{"fd00:ffff:0:0:0:0:0:1", "fd00:ffff:0:0:0:0:0:1"}, // groups printed without leading zeros
	} {
		if got, _ := javaHostAddress(tc.in); got != tc.want {
			t.Errorf("javaHostAddress(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

package importconf

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCorpus reads the real-world configurations in testdata/corpus
// (sources and licences in testdata/corpus/SOURCES). The expected values
// were read from the files by hand: the active (uncommented) <Connector>
// elements and their attributes, the Spring keys, the starters of the
// build.gradle beside a Spring file; every other number is the documented
// default. A file poolsim cannot simulate must say why (Pool.Unsupported).
func TestCorpus(t *testing.T) {
	for _, tc := range []struct {
		file        string
		kind        Kind
		name        string // the first pool's name
		core, max   int
		connectors  int    // active <Connector>s (server.xml)
		unsupported string // a substring of the reason; "" when simulated
	}{
		// Tomcat's own conf/server.xml, one active HTTP connector, no attributes
		// touching the pool: Tomcat's defaults (10, 200).
		{file: "tomcat-main-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 1},
		{file: "tomcat-11.0.x-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 1},
		{file: "tomcat-10.1.x-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 1},
		{file: "tomcat-10.0.x-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 1},
		{file: "tomcat-9.0.x-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 1},
		{file: "tomcat-8.5.x-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 1},
		{file: "tomcat-7.0.x-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 1},
		// Older revisions: an active AJP connector too.
		{file: "tomcat-c3758603-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 2},
		{file: "tomcat-405b17a2-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200, connectors: 2},
		// 2006: maxThreads="150" on the HTTP connector.
		{file: "tomcat-d9ba113a-server.xml", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 150, connectors: 2},
		// Spring Boot's smoke tests.
		{file: "spring/tomcat/src/main/resources/application.properties", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200},
		{file: "spring/tomcat-jsp/src/main/resources/application.properties", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200},
		{file: "spring/simple/src/main/resources/application.properties", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200},
		{file: "spring/actuator/src/main/resources/application.properties", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200},
		{file: "spring/web-ui/src/main/resources/application.properties", kind: KindTomcatConnector, name: "http-nio-8080", core: 10, max: 200},
		// server.port=8443 and server.ssl.bundle: the JSSE connector's name.
		{file: "spring/tomcat-ssl/src/main/resources/application.properties", kind: KindTomcatConnector, name: "https-jsse-nio-8443", core: 10, max: 200},
		// server.jetty.acceptors only: Jetty's pool with Spring Boot's defaults (8, 200).
		{file: "spring/jetty/src/main/resources/application.properties", kind: KindJetty, name: "jetty", core: 8, max: 200},
		// No server key; the build.gradle beside it has the Jetty starter and excludes Tomcat.
		{file: "spring/jetty-jsp/src/main/resources/application.properties", kind: KindJetty, name: "jetty", core: 8, max: 200},
		{file: "spring/undertow/src/main/resources/application.properties", kind: KindUndertow, name: "undertow", unsupported: "Undertow"},
		// No server key; the build.gradle beside it has only the WebFlux starter.
		{file: "spring/webflux/src/main/resources/application.properties", kind: KindNetty, name: "reactor-netty", unsupported: "Reactor Netty"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, err := Load(filepath.Join("testdata", "corpus", tc.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := s.Pools[0]
			if p.Kind != tc.kind || p.Name != tc.name {
				t.Fatalf("first pool %s %q, want %s %q", p.Kind, p.Name, tc.kind, tc.name)
			}
			if tc.unsupported != "" {
				if !strings.Contains(p.Unsupported, tc.unsupported) {
					t.Errorf("unsupported %q, want it to name %q", p.Unsupported, tc.unsupported)
				}
				return
			}
			if p.Unsupported != "" || p.Core != tc.core || p.Max != tc.max || p.KeepAlive != time.Minute {
				t.Errorf("core %d max %d keepAlive %v (unsupported %q), want %d %d 1m", p.Core, p.Max, p.KeepAlive, p.Unsupported, tc.core, tc.max)
			}
			if strings.HasSuffix(tc.file, ".xml") && len(s.Connectors) != tc.connectors {
				t.Errorf("%d connectors, want %d", len(s.Connectors), tc.connectors)
			}
		})
	}
}

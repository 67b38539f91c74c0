package importconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpringServer checks which embedded server a Spring file is read as,
// and the pool read for it.
func TestSpringServer(t *testing.T) {
	for _, tc := range []struct {
		name        string
		props       string
		opts        Options
		kind        Kind
		core, max   int
		keepAlive   time.Duration
		unsupported bool
		warning     string // a substring of the first warning; "" for none
	}{
		// Jetty keys and no Tomcat key: Jetty's pool, with a warning that the classpath decides.
		{"jetty", "server.jetty.threads.min=4\nserver.jetty.threads.max=50\nserver.jetty.threads.idle-timeout=30s\n", Options{SpringBootVersion: "2.7.18"},
			KindJetty, 4, 50, 30 * time.Second, false, "configures Jetty and not Tomcat"},
		// Jetty defaults (ServerProperties.Jetty.Threads): min 8, max 200, 60000 ms.
		{"jetty defaults", "server.jetty.connection-idle-timeout=5s\n", Options{SpringBootVersion: "2.7.18"},
			KindJetty, 8, 200, time.Minute, false, "configures Jetty and not Tomcat"},
		// Spring Boot 3 runs Jetty 12: the shrink rule differs, a warning says so.
		{"jetty boot 3", "server.jetty.threads.max=50\n", Options{SpringBootVersion: "3.2.0"},
			KindJetty, 8, 50, time.Minute, false, "configures Jetty"},
		// The pre-2.3 name on Boot 2.2.
		{"jetty old name 2.2", "server.jetty.max-threads=70\n", Options{SpringBootVersion: "2.2.13"},
			KindJetty, 8, 70, time.Minute, false, "configures Jetty"},
		// A bounded Jetty queue is not modelled: refused by the CLI.
		{"jetty bounded queue", "server.jetty.threads.max-queue-capacity=100\n", Options{SpringBootVersion: "2.7.18"},
			KindJetty, 8, 200, time.Minute, true, "configures Jetty"},
		// Undertow: read, refused by the CLI.
		{"undertow", "server.undertow.threads.worker=64\nserver.undertow.threads.io=4\n", Options{},
			KindUndertow, 0, 0, 0, true, "configures Undertow and not Tomcat"},
		// Reactor Netty.
		{"netty", "server.netty.connection-timeout=5s\n", Options{},
			KindNetty, 0, 0, 0, true, "configures Reactor Netty and not Tomcat"},
		// Both Tomcat and Jetty keys: Tomcat, with a warning.
		{"tomcat and jetty", "server.tomcat.threads.max=300\nserver.jetty.threads.max=50\n", Options{},
			KindTomcatConnector, 10, 300, time.Minute, false, "another embedded server (Jetty)"},
		// A legacy Tomcat key, no version: ignored, with a warning.
		{"legacy unknown version", "server.tomcat.max-threads=300\n", Options{},
			KindTomcatConnector, 10, 200, time.Minute, false, "ignored: Spring Boot 2.5 and later read only server.tomcat.threads.max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseProperties("application.properties", []byte(tc.props), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			p := s.Pools[0]
			if p.Kind != tc.kind || (p.Unsupported != "") != tc.unsupported {
				t.Fatalf("pool %s (unsupported %q), want %s (unsupported %v)", p.Kind, p.Unsupported, tc.kind, tc.unsupported)
			}
			if !tc.unsupported || tc.kind == KindJetty {
				if p.Core != tc.core || p.Max != tc.max || p.KeepAlive != tc.keepAlive {
					t.Errorf("core %d max %d keepAlive %v, want %d %d %v", p.Core, p.Max, p.KeepAlive, tc.core, tc.max, tc.keepAlive)
				}
			}
			switch {
			case tc.warning == "" && len(p.Warnings) > 0:
				t.Errorf("unexpected warning %v", p.Warnings[0])
			case tc.warning != "" && (len(p.Warnings) == 0 || !strings.Contains(p.Warnings[0].String(), tc.warning)):
				t.Errorf("warnings %v, want one containing %q", p.Warnings, tc.warning)
			}
			for _, w := range p.Warnings {
				if strings.Contains(w.String(), "Options") {
					t.Errorf("a warning names a Go identifier: %v", w)
				}
			}
		})
	}
}

// TestFindBuild reads the Spring Boot version and the server from the
// build file at a module's root, as Load does for a file under
// src/main/resources.
func TestFindBuild(t *testing.T) {
	for _, tc := range []struct {
		name, file, text string
		version, server  string
	}{
		{"pom parent", "pom.xml", `<project><parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>2.7.18</version></parent>
<dependencies><dependency><artifactId>spring-boot-starter-web</artifactId><exclusions><exclusion><artifactId>spring-boot-starter-tomcat</artifactId></exclusion></exclusions></dependency>
<dependency><artifactId>spring-boot-starter-jetty</artifactId></dependency></dependencies></project>`, "2.7.18", "jetty"},
		{"pom bom property", "pom.xml", `<project><properties><spring-boot.version>3.2.5</spring-boot.version></properties>
<dependencyManagement><dependencies><dependency><artifactId>spring-boot-dependencies</artifactId><version>${spring-boot.version}</version></dependency></dependencies></dependencyManagement>
<dependencies><dependency><artifactId>spring-boot-starter-webflux</artifactId></dependency></dependencies></project>`, "3.2.5", "netty"},
		{"gradle plugin", "build.gradle", "plugins {\n id 'org.springframework.boot' version '3.3.1'\n}\ndependencies {\n implementation 'org.springframework.boot:spring-boot-starter-web'\n}\n", "3.3.1", "tomcat"},
		{"gradle kts undertow", "build.gradle.kts", "plugins { id(\"org.springframework.boot\") version \"2.6.3\" }\ndependencies { implementation(\"org.springframework.boot:spring-boot-starter-undertow\") }\n", "2.6.3", "undertow"},
		{"gradle buildscript", "build.gradle", "buildscript { ext { springBootVersion = '2.1.4.RELEASE' } }\n", "2.1.4.RELEASE", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			res := filepath.Join(root, "src", "main", "resources")
			if err := os.MkdirAll(res, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, tc.file), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := FindBuild(filepath.Join(res, "application.yml"))
			if err != nil {
				t.Fatal(err)
			}
			if b.SpringBootVersion != tc.version || b.Server != tc.server {
				t.Errorf("version %q server %q, want %q %q (notes %v)", b.SpringBootVersion, b.Server, tc.version, tc.server, b.Notes)
			}
		})
	}
}

// FuzzParseBuild: any bytes as a pom.xml or a build.gradle never panic.
func FuzzParseBuild(f *testing.F) {
	f.Add([]byte(`<project><parent><artifactId>spring-boot-starter-parent</artifactId><version>3.2.0</version></parent></project>`))
	f.Add([]byte("plugins { id 'org.springframework.boot' version '3.3.1' }\n"))
	f.Add([]byte("<project><properties><a>${b}</a></properties></project>"))
	// CI's fuzzing found an escaped quote kept inside a version.
	f.Add([]byte(`<project><parent><artifactId>spring-boot-starter-parent</artifactId><version>000000000&quot;00000000</version></parent></project>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := ParseBuild("pom.xml", data)
		if v := b.SpringBootVersion; v != "" && !versionLike.MatchString(v) {
			t.Fatalf("version %q", v)
		}
	})
}

// TestParseBuildNotAVersion: a build file whose Spring Boot version is
// not a version (an escaped quote, a line break, a space) leaves the
// version unknown and says what the file names, instead of passing it on.
func TestParseBuildNotAVersion(t *testing.T) {
	for _, text := range []string{
		`<project><parent><artifactId>spring-boot-starter-parent</artifactId><version>3.2&quot;5</version></parent></project>`,
		"<project><parent><artifactId>spring-boot-starter-parent</artifactId><version>3.2\n.5</version></parent></project>",
		`<project><properties><spring-boot.version>3.2 5</spring-boot.version></properties></project>`,
		`<project><properties><v>3.2'5</v></properties><dependencyManagement><dependencies><dependency><artifactId>spring-boot-dependencies</artifactId><version>${v}</version></dependency></dependencies></dependencyManagement></project>`,
	} {
		b := ParseBuild("pom.xml", []byte(text))
		if b.SpringBootVersion != "" {
			t.Errorf("%s: version %q, want none", text, b.SpringBootVersion)
		}
		if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "which is not a version") {
			t.Errorf("%s: notes %q, want one saying it is not a version", text, b.Notes)
		}
	}
	if b := ParseBuild("pom.xml", []byte(`<project><parent><artifactId>spring-boot-starter-parent</artifactId><version>3.4.0-M1</version></parent></project>`)); b.SpringBootVersion != "3.4.0-M1" || len(b.Notes) != 0 {
		t.Errorf("milestone version: %q %q", b.SpringBootVersion, b.Notes)
	}
}

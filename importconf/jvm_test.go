package importconf

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// tomcatClasspath is where Debian's libtomcat10-java puts the jars;
// TOMCAT_CLASSPATH overrides it.
func tomcatClasspath() string {
	if cp := os.Getenv("TOMCAT_CLASSPATH"); cp != "" {
		return cp
	}
	var jars []string
	for _, j := range []string{"catalina", "util", "coyote", "servlet-api", "juli", "api", "jni", "util-scan"} {
		jars = append(jars, "/usr/share/java/tomcat10-"+j+".jar")
	}
	return strings.Join(jars, string(os.PathListSeparator))
}

// needTomcat compiles DumpServerXML against the Tomcat jars and returns the
// class path to run it. Without Java or the jars the test is skipped on a
// developer's machine and fails when CI=true.
func needTomcat(t *testing.T) string {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s (CI installs a JDK and libtomcat10-java)", why)
		}
		t.Skipf("skipping: %s (install a JDK and Debian's libtomcat10-java, or set TOMCAT_CLASSPATH)", why)
	}
	if _, err := exec.LookPath("javac"); err != nil {
		missing("no javac on PATH")
	}
	cp := tomcatClasspath()
	for _, j := range filepath.SplitList(cp) {
		if _, err := os.Stat(j); err != nil {
			missing("no " + j)
		}
	}
	dir := t.TempDir()
	src, err := filepath.Abs("testdata/jvm/DumpServerXML.java")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("javac", "-nowarn", "-cp", cp, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac DumpServerXML: %v\n%s", err, out)
	}
	return cp + string(os.PathListSeparator) + dir
}

// tomcatView is what Tomcat's Digester made of a server.xml, one line per
// executor and connector, sorted.
func tomcatView(t *testing.T, cp, path string, props map[string]string) []string {
	t.Helper()
	args := []string{}
	for k, v := range props {
		args = append(args, "-D"+k+"="+v)
	}
	args = append(args, "-cp", cp, "DumpServerXML", path)
	cmd := exec.Command("java", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DumpServerXML %s: %v\n%s", path, err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(out), `"`, "")), "\n")
	sort.Strings(lines)
	return lines
}

// ourView prints importconf's reading in DumpServerXML's format.
func ourView(s *Settings) []string {
	var lines []string
	for _, p := range s.Pools {
		if p.Kind == KindTomcatExecutor {
			lines = append(lines, fmt.Sprintf("executor %s core=%d max=%d keepAliveMs=%d queue=%d prefix=%s",
				p.Name, p.Core, p.Max, p.KeepAlive/time.Millisecond, p.MaxQueueSize, p.ThreadNamePrefix))
		}
	}
	for _, c := range s.Connectors {
		if c.Executor != "" {
			// Tomcat's endpoint reports -1 for every thread setting when the pool is external.
			lines = append(lines, fmt.Sprintf("connector %s pool=%s core=-1 max=-1 keepAliveMs=-1 queue=-1 accept=%d maxConn=%d",
				c.Name, c.Executor, c.AcceptCount, c.MaxConnections))
			continue
		}
		p := s.Pools[c.Pool]
		lines = append(lines, fmt.Sprintf("connector %s pool=internal core=%d max=%d keepAliveMs=%d queue=%d accept=%d maxConn=%d",
			c.Name, p.Core, p.Max, p.KeepAlive/time.Millisecond, p.MaxQueueSize, c.AcceptCount, c.MaxConnections))
	}
	sort.Strings(lines)
	return lines
}

// TestAgainstTomcatDigester is the differential test: Tomcat 10.1.52's own
// Digester rules read each server.xml, and importconf must agree on every
// pool number, connector name and executor assignment. Rows cover the
// rules importconf implements: defaults (R73, R74), min(minSpare, max),
// executor lookup order, placeholders, names from protocol, SSL, address
// and port offset.
func TestAgainstTomcatDigester(t *testing.T) {
	cp := needTomcat(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		file  string // a testdata file, or
		body  string // the inside of <Service> (with serverAttrs on <Server>)
		attrs string
		props map[string]string
	}{
		{name: "debian stock", file: "testdata/server-debian-tomcat10.xml"},
		{name: "executor sample", file: "testdata/server-executor.xml"},
		{name: "executor sample with property", file: "testdata/server-executor.xml", props: map[string]string{"http.maxThreads": "800"}},
		{name: "connector settings", body: `<Connector port="8080" maxThreads="800" minSpareThreads="25" threadsMaxIdleTime="5000" maxQueueSize="100" acceptCount="10" maxConnections="-1"/>`},
		{name: "min above max", body: `<Connector port="8080" minSpareThreads="300" maxThreads="50"/>`},
		{name: "executor defaults", body: `<Executor name="ex"/><Connector port="8080" executor="ex" maxThreads="9"/>`},
		{name: "executor after connector", body: `<Connector port="8080" executor="ex"/><Executor name="ex" maxThreads="5" minSpareThreads="1"/>`},
		{name: "unknown executor", body: `<Executor name="ex"/><Connector port="8080" executor="nope"/>`},
		{name: "duplicate executor names", body: `<Executor name="ex" maxThreads="7" minSpareThreads="1"/><Executor name="ex" maxThreads="9" minSpareThreads="2"/><Connector port="8080" executor="ex"/>`},
		{name: "protocols", body: `<Connector port="8009" protocol="AJP/1.3" secretRequired="false"/><Connector port="8081" protocol="org.apache.coyote.http11.Http11Nio2Protocol"/><Connector port="8010" protocol="org.apache.coyote.ajp.AjpNio2Protocol" secretRequired="false"/>`},
		{name: "ssl names", body: `<Connector port="8443" SSLEnabled="true"/><Connector port="8444" SSLEnabled="true" sslImplementationName="org.apache.tomcat.util.net.openssl.OpenSSLImplementation"/>`},
		{name: "addresses", body: `<Connector port="8080" address="127.0.0.1"/><Connector port="8081" address="::1"/><Connector port="8082" address="2001:db8::1:0:0:1"/>`},
		{name: "port offset", attrs: ` portOffset="100"`, body: `<Connector port="8080"/>`},
		{name: "placeholders", body: `<Connector port="${p}" maxThreads="${t:-77}" minSpareThreads="${m:-3}"/>`, props: map[string]string{"p": "9000", "m": "4"}},
		{name: "case typo ignored", body: `<Connector port="8080" maxthreads="800"/>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.file
			if path == "" {
				path = filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".xml")
				if err := os.WriteFile(path, serverXML(tc.attrs, tc.body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := tomcatView(t, cp, path, tc.props)
			s, err := LoadServerXML(path, Options{Properties: tc.props})
			if err != nil {
				t.Fatal(err)
			}
			got := ourView(s)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("importconf:\n  %s\nTomcat:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

package importconf

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Spring Boot's embedded Tomcat with no server.* keys: Boot's
// ServerProperties defaults, which equal Tomcat 10.1's.
var bootTomcat = want{name: "http-nio-8080", prefix: "http-nio-8080-exec-", core: 10, max: 200, keepAlive: time.Minute,
	queue: Unbounded, accept: 100, maxConn: 8192, prestart: true}

func TestSpringTomcat(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props string
		opts  Options
		want  want
	}{
		// No key at all: Boot defaults (ServerProperties / TomcatServerProperties).
		{"defaults", "spring.application.name=x\n", Options{},
			with(bootTomcat, func(w *want) {
				w.defaulted = []string{"server.port", "server.tomcat.threads.max", "server.tomcat.threads.min-spare", "server.tomcat.threads.max-queue-capacity",
					"server.tomcat.accept-count", "server.tomcat.max-connections", "threadsMaxIdleTime", "prestart"}
			})},
		// The current names (Boot 2.3+).
		{"threads", "server.tomcat.threads.max=800\nserver.tomcat.threads.min-spare=20\n", Options{},
			with(bootTomcat, func(w *want) {
				w.max, w.core = 800, 20
				w.found = []string{"server.tomcat.threads.max", "server.tomcat.threads.min-spare"}
			})},
		// Relaxed binding: camelCase.
		{"camel case", "server.tomcat.threads.minSpare=20\n", Options{},
			with(bootTomcat, func(w *want) { w.core = 20; w.found = []string{"server.tomcat.threads.minSpare"} })},
		// Relaxed binding: underscores and upper case.
		{"underscore upper", "SERVER.TOMCAT.THREADS.MIN_SPARE=20\n", Options{},
			with(bootTomcat, func(w *want) { w.core = 20 })},
		// core = min(min-spare, max) (R73): Tomcat does it when it creates the executor.
		{"min-spare above max", "server.tomcat.threads.max=5\n", Options{},
			with(bootTomcat, func(w *want) { w.max, w.core = 5, 5 })},
		// Values <= 0 are not applied (TomcatWebServerFactoryCustomizer isPositive): Tomcat's default stays.
		{"min-spare zero ignored", "server.tomcat.threads.min-spare=0\n", Options{},
			with(bootTomcat, func(w *want) { w.ignored = []string{"server.tomcat.threads.min-spare"} })},
		// max-connections=-1 would disable the limit in Tomcat, but Boot never passes it.
		{"max-connections -1 ignored", "server.tomcat.max-connections=-1\n", Options{},
			with(bootTomcat, func(w *want) { w.ignored = []string{"server.tomcat.max-connections"} })},
		// accept-count and max-connections.
		{"accept max-connections", "server.tomcat.accept-count=10\nserver.tomcat.max-connections=20000\n", Options{},
			with(bootTomcat, func(w *want) { w.accept, w.maxConn = 10, 20000 })},
		// max-queue-capacity (Boot 3.3+).
		{"max-queue-capacity", "server.tomcat.threads.max-queue-capacity=100\n", Options{},
			with(bootTomcat, func(w *want) { w.queue = 100; w.found = []string{"server.tomcat.threads.max-queue-capacity"} })},
		// ...which Boot 3.2 does not know.
		{"max-queue-capacity 3.2", "server.tomcat.threads.max-queue-capacity=100\n", Options{SpringBootVersion: "3.2.5"},
			with(bootTomcat, func(w *want) { w.ignored = []string{"server.tomcat.threads.max-queue-capacity"} })},
		// 0 is not applied (spring-boot#42726).
		{"max-queue-capacity zero", "server.tomcat.threads.max-queue-capacity=0\n", Options{},
			with(bootTomcat, func(w *want) { w.ignored = []string{"server.tomcat.threads.max-queue-capacity"} })},
		// Old name, version unknown: applied, with a note.
		// No version known: a current Boot, which ignores the old name (issue 13:
		// never headline a key current Spring Boot ignores); a warning says so.
		{"old name unknown version", "server.tomcat.max-threads=300\n", Options{},
			with(bootTomcat, func(w *want) { w.ignored = []string{"server.tomcat.max-threads"} })},
		// Old name on Boot 2.2: the only name there is.
		{"old name 2.2", "server.tomcat.max-threads=300\nserver.tomcat.min-spare-threads=30\n", Options{SpringBootVersion: "2.2.13"},
			with(bootTomcat, func(w *want) { w.max, w.core = 300, 30; w.maxConn = 10000 })},
		// Old name on Boot 3: removed in 2.5, ignored.
		{"old name 3.x", "server.tomcat.max-threads=300\n", Options{SpringBootVersion: "3.1.0"},
			with(bootTomcat, func(w *want) { w.ignored = []string{"server.tomcat.max-threads"} })},
		// New name on Boot 2.2: did not exist.
		{"new name 2.2", "server.tomcat.threads.max=300\n", Options{SpringBootVersion: "2.2.0"},
			with(bootTomcat, func(w *want) { w.maxConn = 10000; w.ignored = []string{"server.tomcat.threads.max"} })},
		// Both names: the new one wins, the old one is reported.
		{"both names", "server.tomcat.max-threads=300\nserver.tomcat.threads.max=400\n", Options{SpringBootVersion: "2.4.0"},
			with(bootTomcat, func(w *want) { w.max = 400; w.ignored = []string{"server.tomcat.max-threads"} })},
		// server.port names the connector.
		{"port", "server.port=9000\n", Options{},
			with(bootTomcat, func(w *want) { w.name, w.prefix = "http-nio-9000", "http-nio-9000-exec-" })},
		// A placeholder with a default.
		{"port placeholder", "server.port=${PORT:8081}\n", Options{},
			with(bootTomcat, func(w *want) { w.name, w.prefix = "http-nio-8081", "http-nio-8081-exec-" })},
		// The placeholder's value from Options.Properties (like an environment variable).
		{"port env", "server.port=${PORT:8081}\n", Options{Properties: map[string]string{"PORT": "7000"}},
			with(bootTomcat, func(w *want) { w.name, w.prefix = "http-nio-7000", "http-nio-7000-exec-" })},
		// A placeholder naming another key of the file.
		{"placeholder to key", "app.threads=123\nserver.tomcat.threads.max=${app.threads}\n", Options{},
			with(bootTomcat, func(w *want) { w.max = 123 })},
		// TLS: Boot's connector with JSSE.
		{"ssl", "server.port=8443\nserver.ssl.key-store=classpath:ks.p12\n", Options{},
			with(bootTomcat, func(w *want) { w.name, w.prefix = "https-jsse-nio-8443", "https-jsse-nio-8443-exec-" })},
		// server.ssl.enabled=false turns it off.
		{"ssl disabled", "server.ssl.enabled=false\nserver.ssl.key-store=x\n", Options{}, bootTomcat},
		// An address joins the name, IPv6 printed in full.
		{"address", "server.address=::1\n", Options{},
			with(bootTomcat, func(w *want) {
				w.name, w.prefix = "http-nio-0:0:0:0:0:0:0:1-8080", "http-nio-0:0:0:0:0:0:0:1-8080-exec-"
			})},
		// Hexadecimal ints are accepted by Spring's NumberUtils.
		{"hex", "server.tomcat.threads.max=0x100\n", Options{},
			with(bootTomcat, func(w *want) { w.max = 256 })},
		// Virtual threads (Boot 3.2+).
		{"virtual", "spring.threads.virtual.enabled=true\n", Options{},
			with(bootTomcat, func(w *want) { w.virtual = true })},
		// ...ignored on Boot 3.1.
		{"virtual 3.1", "spring.threads.virtual.enabled=true\n", Options{SpringBootVersion: "3.1.0"},
			with(bootTomcat, func(w *want) { w.ignored = []string{"spring.threads.virtual.enabled"} })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseProperties("application.properties", []byte(tc.props), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Pools) != 2 || s.Pools[0].Kind != KindTomcatConnector || s.Pools[1].Kind != KindSpringTask {
				t.Fatalf("pools %+v", s.Pools)
			}
			assertPool(t, s.Pools[0], tc.want)
		})
	}
}

// Spring Boot's task executor with no keys: TaskExecutionProperties.Pool
// defaults (P2).
var bootTask = want{name: "applicationTaskExecutor", prefix: "task-", core: 8, max: Unbounded, keepAlive: time.Minute, queue: Unbounded}

func TestSpringTask(t *testing.T) {
	for _, tc := range []struct {
		name      string
		props     string
		want      want
		allowCore bool
	}{
		// Defaults: core 8, unbounded max and queue, 60 s, core timeout on, prefix task-.
		{"defaults", "x=1\n", with(bootTask, func(w *want) {
			w.defaulted = []string{"spring.task.execution.pool.core-size", "spring.task.execution.pool.max-size", "spring.task.execution.pool.queue-capacity",
				"spring.task.execution.pool.keep-alive", "spring.task.execution.pool.allow-core-thread-timeout", "spring.task.execution.thread-name-prefix"}
		}), true},
		// Every key.
		{"all", "spring.task.execution.pool.core-size=2\nspring.task.execution.pool.max-size=10\nspring.task.execution.pool.queue-capacity=100\n" +
			"spring.task.execution.pool.keep-alive=30s\nspring.task.execution.pool.allow-core-thread-timeout=false\nspring.task.execution.thread-name-prefix=async-\n",
			with(bootTask, func(w *want) {
				w.core, w.max, w.queue, w.keepAlive, w.prefix = 2, 10, 100, 30*time.Second, "async-"
				w.found = []string{"spring.task.execution.pool.core-size", "spring.task.execution.thread-name-prefix"}
			}), false},
		// keep-alive without unit is milliseconds, then truncated to whole seconds.
		{"keep-alive plain ms", "spring.task.execution.pool.keep-alive=1500\n", with(bootTask, func(w *want) { w.keepAlive = time.Second }), true},
		// ISO-8601.
		{"keep-alive ISO", "spring.task.execution.pool.keep-alive=PT2M\n", with(bootTask, func(w *want) { w.keepAlive = 2 * time.Minute }), true},
		// Sub-second parts are dropped (keepAlive.getSeconds()).
		{"keep-alive fraction", "spring.task.execution.pool.keep-alive=PT2.9S\n", with(bootTask, func(w *want) { w.keepAlive = 2 * time.Second }), true},
		// queue-capacity <= 0 means SynchronousQueue.
		{"synchronous", "spring.task.execution.pool.queue-capacity=0\nspring.task.execution.pool.max-size=50\n",
			with(bootTask, func(w *want) { w.queue, w.max = 0, 50 }), true},
		// Negative capacity: also SynchronousQueue.
		{"negative capacity", "spring.task.execution.pool.queue-capacity=-1\n", with(bootTask, func(w *want) { w.queue = 0 }), true},
		// Spring's boolean converter: on/off.
		{"bool off", "spring.task.execution.pool.allow-core-thread-timeout=off\n", bootTask, false},
		// Empty prefix: not applied, the bean name is used.
		{"empty prefix", "spring.task.execution.thread-name-prefix=\n", with(bootTask, func(w *want) { w.prefix = "applicationTaskExecutor-" }), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseProperties("application.properties", []byte(tc.props), Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := s.Pools[1]
			assertPool(t, p, tc.want)
			if p.AllowCoreThreadTimeOut != tc.allowCore {
				t.Errorf("allowCoreThreadTimeOut %v, want %v", p.AllowCoreThreadTimeOut, tc.allowCore)
			}
		})
	}
}

func TestSpringErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props string
		line  int
		key   string
		msg   string
	}{
		// Not an int.
		{"bad int", "a=1\nserver.tomcat.threads.max=lots\n", 2, "server.tomcat.threads.max", "not an integer"},
		// Overflows int.
		{"overflow", "server.tomcat.threads.max=3000000000\n", 1, "server.tomcat.threads.max", "range"},
		// Placeholder with no value.
		{"unresolved", "server.tomcat.threads.max=${THREADS}\n", 1, "server.tomcat.threads.max", "unresolved placeholder ${THREADS}"},
		// A placeholder referring to itself.
		{"circular", "a=${b}\nb=${a}\nserver.tomcat.threads.max=${a}\n", 3, "server.tomcat.threads.max", "circular"},
		// Not a duration.
		{"bad duration", "spring.task.execution.pool.keep-alive=one minute\n", 1, "spring.task.execution.pool.keep-alive", "not a duration"},
		// Unknown unit.
		{"bad unit", "spring.task.execution.pool.keep-alive=5y\n", 1, "spring.task.execution.pool.keep-alive", "unknown unit"},
		// 60 (ms) truncates to 0 s, and core timeout needs K > 0 (R24).
		{"keep-alive zero", "spring.task.execution.pool.keep-alive=60\n", 1, "spring.task.execution.pool.keep-alive", "allowCoreThreadTimeOut"},
		// max-size below core-size (R2).
		{"max below core", "spring.task.execution.pool.core-size=10\nspring.task.execution.pool.max-size=5\n", 2, "spring.task.execution.pool.max-size", "core-size"},
		// Not a boolean.
		{"bad bool", "spring.task.execution.pool.allow-core-thread-timeout=maybe\n", 1, "spring.task.execution.pool.allow-core-thread-timeout", "not a boolean"},
		// Malformed profile expression.
		{"bad profile", "#---\nspring.config.activate.on-profile=a & | b\nserver.port=1\n", 2, "spring.config.activate.on-profile", "malformed"},
		// A broken \u escape.
		{"bad escape", "greeting=\\u00zz\n", 1, "", `\uxxxx`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseProperties("app.properties", []byte(tc.props), Options{})
			var ie *inputerr.Error
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want *inputerr.Error", err, err)
			}
			if ie.Line != tc.line || ie.Key != tc.key || !strings.Contains(ie.Msg, tc.msg) {
				t.Errorf("got %q (line %d key %q), want line %d key %q containing %q", err, ie.Line, ie.Key, tc.line, tc.key, tc.msg)
			}
		})
	}
}

func TestSpringPropertiesSample(t *testing.T) {
	for _, tc := range []struct {
		name      string
		profiles  []string
		max       int
		keepAlive time.Duration
	}{
		// Default profile: the first document only.
		{"default", nil, 800, 30 * time.Second},
		// prod: the "#---" document for prod overrides.
		{"prod", []string{"prod"}, 400, 90 * time.Second},
		// dev.
		{"dev", []string{"dev"}, 20, 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadProperties("testdata/application.properties", Options{Profiles: tc.profiles})
			if err != nil {
				t.Fatal(err)
			}
			tomcat, task := s.Pools[0], s.Pools[1]
			if tomcat.Name != "http-nio-8081" || tomcat.Max != tc.max || tomcat.Core != 10 || tomcat.MaxConnections != 10000 {
				t.Errorf("tomcat %s core %d max %d maxConnections %d", tomcat.Name, tomcat.Core, tomcat.Max, tomcat.MaxConnections)
			}
			if task.Core != 16 || task.Max != 64 || task.MaxQueueSize != 500 || task.KeepAlive != tc.keepAlive || task.ThreadNamePrefix != "orders-async-" {
				t.Errorf("task %+v", task)
			}
			if len(s.AccessLogPatterns) != 1 || s.AccessLogPatterns[0].Value != `%h %l %u %t "%r" %s %b %D` {
				t.Errorf("access log %+v", s.AccessLogPatterns)
			}
		})
	}
}

func TestSpringYAMLSample(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      Options
		max       int
		queue     int
		keepAlive time.Duration
	}{
		// spring.profiles.active: ${ACTIVE_PROFILES:default} -> default: the first document.
		{"default", Options{}, 250, Unbounded, 10 * time.Second},
		// prod & !eu.
		{"prod", Options{Profiles: []string{"prod"}}, 1000, 2000, 10 * time.Second},
		// prod & eu: the third document, after the second did not match.
		{"prod eu", Options{Profiles: []string{"prod", "eu"}}, 600, Unbounded, 10 * time.Second},
		// The placeholder in spring.profiles.active resolved from the environment.
		{"env profiles", Options{Properties: map[string]string{"ACTIVE_PROFILES": "prod,eu"}}, 600, Unbounded, 10 * time.Second},
		// test: SnakeYAML reads the plain 010 as octal 8; keep-alive 1500 ms -> 1 s.
		{"test octal", Options{Profiles: []string{"test"}}, 8, Unbounded, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadSpringYAML("testdata/application.yml", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			tomcat, task := s.Pools[0], s.Pools[1]
			if tomcat.Name != "http-nio-9090" || tomcat.Max != tc.max || tomcat.Core != min(25, tc.max) || tomcat.MaxQueueSize != tc.queue {
				t.Errorf("tomcat %s core %d max %d queue %d, want max %d queue %d", tomcat.Name, tomcat.Core, tomcat.Max, tomcat.MaxQueueSize, tc.max, tc.queue)
			}
			// max-connections: -1 is not applied by Boot.
			if tomcat.MaxConnections != 8192 || tomcat.AcceptCount != 50 || !ignored(tomcat, "server.tomcat.max-connections") {
				t.Errorf("maxConnections %d acceptCount %d ignored %+v", tomcat.MaxConnections, tomcat.AcceptCount, tomcat.Ignored)
			}
			if task.Core != 4 || task.Max != 32 || task.MaxQueueSize != 0 || task.KeepAlive != tc.keepAlive || task.AllowCoreThreadTimeOut {
				t.Errorf("task %+v", task)
			}
		})
	}
}

func TestSpringProfileSiblings(t *testing.T) {
	s, err := Load("testdata/siblings/application.yml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// spring.profiles.active=prod pulls in application-prod.properties, which wins.
	if s.Pools[0].Max != 800 || s.Pools[0].Core != 50 {
		t.Errorf("core %d max %d, want 50 800", s.Pools[0].Core, s.Pools[0].Max)
	}
	if !slices.Equal(s.Files, []string{"testdata/siblings/application.yml", "testdata/siblings/application-prod.properties"}) {
		t.Errorf("files %v", s.Files)
	}
	if o := s.Pools[0].Found[0]; o.File != "testdata/siblings/application-prod.properties" || o.Line != 3 {
		t.Errorf("origin %+v", o)
	}
	s, err = Load("testdata/siblings/application.yml", Options{NoProfileSiblings: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Pools[0].Max != 200 || s.Pools[0].Core != 10 {
		t.Errorf("without siblings: core %d max %d, want 10 200", s.Pools[0].Core, s.Pools[0].Max)
	}
}

func TestMatchProfiles(t *testing.T) {
	for _, tc := range []struct {
		cond   string
		active []string
		want   bool
	}{
		{"prod", []string{"prod"}, true},            // plain name
		{"prod", []string{"dev"}, false},            // not active
		{"!prod", []string{"dev"}, true},            // negation
		{"prod & eu", []string{"prod", "eu"}, true}, // and
		{"prod & eu", []string{"prod"}, false},      // and, one missing
		{"prod | eu", []string{"eu"}, true},         // or
		{"dev, prod", []string{"prod"}, true},       // comma list: any
		{"(prod | qa) & !eu", []string{"qa"}, true}, // parentheses
		{"(prod | qa) & !eu", []string{"qa", "eu"}, false},
		{"!!prod", []string{"prod"}, true}, // double negation
	} {
		got, err := matchProfiles(tc.cond, tc.active)
		if err != nil || got != tc.want {
			t.Errorf("matchProfiles(%q, %v) = %v, %v; want %v", tc.cond, tc.active, got, err, tc.want)
		}
	}
	for _, bad := range []string{"a & b | c", "(a", "a &", "&", ")"} {
		if _, err := matchProfiles(bad, nil); err == nil {
			t.Errorf("matchProfiles(%q) accepted a malformed expression", bad)
		}
	}
}

func TestLoadDetect(t *testing.T) {
	for _, tc := range []struct {
		path string
		data string
		want Format
	}{
		{"conf/server.xml", "", FormatServerXML},                        // by extension
		{"application.properties", "", FormatProperties},                // by extension
		{"application.YML", "", FormatYAML},                             // extension, any case
		{"config", "  <?xml version='1.0'?><Server/>", FormatServerXML}, // content: XML
		{"config", "# c\nserver.port=1\n", FormatProperties},            // content: key=value
		{"config", "server:\n  port: 1\n", FormatYAML},                  // content: YAML mapping
		{"config", "---\na: 1\n", FormatYAML},                           // content: YAML document marker
		{"config", "", ""},                                              // nothing to go on
	} {
		if got := detect(tc.path, []byte(tc.data)); got != tc.want {
			t.Errorf("detect(%q, %q) = %q, want %q", tc.path, tc.data, got, tc.want)
		}
	}
}

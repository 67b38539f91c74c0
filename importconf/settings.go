package importconf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// errText is an os error without the path the message already names.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Kind says which implementation a Pool is.
type Kind string

const (
	// KindTomcatConnector is the pool a Tomcat Connector creates for itself
	// when it names no shared Executor (AbstractEndpoint.createExecutor, R73).
	KindTomcatConnector Kind = "tomcat-connector"
	// KindTomcatExecutor is a shared <Executor> (StandardThreadExecutor, R74).
	KindTomcatExecutor Kind = "tomcat-executor"
	// KindSpringTask is Spring Boot's auto-configured ThreadPoolTaskExecutor
	// (bean "applicationTaskExecutor", spring.task.execution.*, P2).
	KindSpringTask Kind = "spring-task"
	// KindJetty is Spring Boot's embedded Jetty QueuedThreadPool
	// (server.jetty.threads.*, R100–R108).
	KindJetty Kind = "jetty"
	// KindUndertow is Spring Boot's embedded Undertow worker pool
	// (server.undertow.threads.*): read, but not modelled (Pool.Unsupported).
	KindUndertow Kind = "undertow"
	// KindNetty is Spring WebFlux's Reactor Netty server: event loops, not
	// a pool of request threads (Pool.Unsupported).
	KindNetty Kind = "netty"
)

// Warning is a finding that changes the meaning of the answer: another
// embedded server configured, a key the assumed version ignores, defaults
// assumed for a version that was not given. A CLI prints warnings before
// the answer, and can make them errors (poolsim's --strict).
type Warning struct {
	File string
	Line int // 0 when the warning is about the file as a whole
	Key  string
	Msg  string
	// Remedy names what the user can give to settle it: a command-line
	// flag or a file, never a Go identifier.
	Remedy string
}

func (w Warning) String() string {
	var b strings.Builder
	b.WriteString(w.File)
	if w.Line > 0 {
		fmt.Fprintf(&b, ":%d", w.Line)
	}
	b.WriteString(": ")
	if w.Key != "" {
		b.WriteString(w.Key + ": ")
	}
	b.WriteString(w.Msg)
	if w.Remedy != "" {
		b.WriteString(" (" + w.Remedy + ")")
	}
	return b.String()
}

// Format is the kind of file a Settings value was read from.
type Format string

const (
	FormatServerXML  Format = "server.xml"
	FormatProperties Format = "properties"
	FormatYAML       Format = "yaml"
)

// Unbounded is Java's Integer.MAX_VALUE, the value Tomcat and Spring use for
// "no limit" in maxQueueSize, queue-capacity and max-size.
const Unbounded = math.MaxInt32

// Origin is a key found in a file, with its raw value (placeholders already
// resolved) and its position.
type Origin struct {
	Key   string // as written in the file, e.g. "maxThreads" or "server.tomcat.threads.max"
	Value string
	File  string
	Line  int // 1-based
	Col   int // 1-based; 0 when unknown
}

// Default is a documented default used because the key was absent.
type Default struct {
	Key    string // the documented name of the key
	Value  string // the default, as the documentation writes it
	Reason string // where the default is documented
}

// Ignored is a key that was present in the file but does not change the pool,
// and why.
type Ignored struct {
	Origin
	Reason string
}

// Pool is one thread pool found in a configuration file. The fields mirror
// the constructor arguments of java.util.concurrent.ThreadPoolExecutor (R2)
// and Tomcat's variant of it (R63–R75).
type Pool struct {
	Kind Kind
	// Name identifies the pool: a Tomcat connector's protocol-handler name
	// ("http-nio-8080"), an <Executor>'s name attribute, or the Spring bean
	// name "applicationTaskExecutor".
	Name string
	// ThreadNamePrefix is what the pool's threads are called before their
	// number: "http-nio-8080-exec-", "tomcat-exec-", "task-" (R62).
	ThreadNamePrefix string

	Core int // corePoolSize; for a Connector min(minSpareThreads, maxThreads) (R73)
	Max  int // maximumPoolSize; Unbounded for Integer.MAX_VALUE
	// KeepAlive is the idle time after which a worker above core exits (R15).
	KeepAlive              time.Duration
	AllowCoreThreadTimeOut bool
	// MaxQueueSize is the queue capacity; Unbounded for Integer.MAX_VALUE; 0
	// means a SynchronousQueue (Spring's queue-capacity <= 0).
	MaxQueueSize int
	// AcceptCount and MaxConnections are connector settings (R75): for a
	// connector's own pool they are its values, for an <Executor> those of
	// the first Connector that uses it (Notes say when several do), and 0
	// for a Spring task pool or an Executor no Connector uses.
	AcceptCount    int
	MaxConnections int // -1 disables the limit
	// Prestart is true when all core threads exist from the start (R19, R65).
	Prestart bool
	// VirtualThreads is true when the configuration replaces the pool by a
	// virtual-thread-per-task executor: the pool numbers then have no effect.
	VirtualThreads bool
	// ConcurrencyLimit and RejectWhenLimited: with VirtualThreads on a
	// Spring task executor, spring.task.execution.simple.concurrency-limit
	// (-1, the default: unbounded) and reject-tasks-when-limit-reached
	// (R142, R143).
	ConcurrencyLimit  int
	RejectWhenLimited bool
	// Unsupported, when not empty, says why poolsim cannot simulate this
	// pool (Undertow's XNIO workers, Reactor Netty's event loops, a bounded
	// Jetty queue): a CLI refuses it with that reason.
	Unsupported string
	// UsedBy lists, for an <Executor>, the names of the Connectors using it.
	UsedBy []string

	File string // where the pool is defined; for Spring the main file
	Line int    // 0 when the pool exists only through defaults

	Found     []Origin
	Defaulted []Default
	Ignored   []Ignored
	Notes     []string
	// Warnings change the meaning of this pool's numbers (see Warning).
	Warnings []Warning
}

// Connector is a Tomcat connector (from server.xml, or Spring Boot's embedded
// one) and the pool that runs its requests.
type Connector struct {
	Name     string // protocol handler name, e.g. "http-nio-8080"
	Port     string // the port as used in Name (after portOffset); "auto-N" for port 0
	Protocol string // the protocol attribute as written, or the default "HTTP/1.1"
	Executor string // the name of the shared Executor it uses, "" for its own pool
	Pool     int    // index in Settings.Pools of the pool it uses; -1 if none (virtual threads)
	// AcceptCount and MaxConnections are this connector's own (R75).
	AcceptCount    int
	MaxConnections int
	File           string
	Line           int
}

// Settings is everything importconf read from one configuration (one file, or
// a Spring Boot file plus its profile-specific siblings).
type Settings struct {
	File       string
	Format     Format
	Pools      []Pool
	Connectors []Connector
	// DataSources are the connection pools configured (Spring Boot's
	// auto-configured HikariCP DataSource, spring.datasource.*).
	DataSources []DataSource
	// AccessLogPatterns lists the access-log patterns configured: the
	// pattern attribute of each AccessLogValve in server.xml, or
	// server.tomcat.accesslog.pattern. They feed workloads/accesslog.
	AccessLogPatterns []Origin
	// Profiles are the Spring profiles that were active while reading.
	Profiles []string
	// Files are all files read, in order (a Spring Boot file may pull in
	// application-{profile} siblings).
	Files []string
	Notes []string
	// Warnings change the meaning of every pool's numbers (see Warning).
	Warnings []Warning
	// Build is what a pom.xml or build.gradle beside a Spring file says
	// (Spring Boot version, embedded server); zero when none was read.
	Build Build
}

// Options tune how files are read.
type Options struct {
	// Properties gives values for placeholders: Tomcat's ${name} in
	// server.xml (system properties, catalina.properties) and Spring's
	// ${name} / ${name:default}. A placeholder with no value and no default
	// in a key importconf uses is an error naming the key.
	Properties map[string]string
	// Profiles are the active Spring profiles. When nil, the file's own
	// spring.profiles.active is used, else Spring's default profile
	// "default".
	Profiles []string
	// TomcatVersion, e.g. "9.0.85" or "10.1.52", decides version-dependent
	// facts (threadsMaxIdleTime exists from 9.0.88 / 10.1.20). Empty means
	// a current 10.1 release; Notes say when that assumption matters.
	TomcatVersion string
	// SpringBootVersion, e.g. "2.7.18" or "3.4.1", decides which property
	// names exist (server.tomcat.max-threads was removed in 2.5,
	// server.tomcat.threads.max-queue-capacity added in 3.3). Empty means a
	// current release (3.3 or later); Notes say when that matters.
	SpringBootVersion string
	// NoProfileSiblings stops Load from also reading the
	// application-{profile}.properties/.yml files Spring Boot would read
	// next to a Spring file.
	NoProfileSiblings bool
	// NoBuildFile stops Load from reading the pom.xml or build.gradle
	// beside a Spring file (for the Spring Boot version and the embedded
	// server, see FindBuild).
	NoBuildFile bool
}

// maxFileSize bounds what importconf reads: configuration files are small,
// and a multi-gigabyte "server.xml" is a mistake, not a configuration.
const maxFileSize = 32 << 20

// Load reads the pool settings in path, choosing the reader by the file's
// name and, failing that, its content: *.xml is a Tomcat server.xml,
// *.properties a Spring Boot properties file, *.yml and *.yaml Spring Boot
// YAML.
func Load(path string, opts Options) (*Settings, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	switch detect(path, data) {
	case FormatServerXML:
		return ParseServerXML(path, data, opts)
	case FormatProperties:
		return loadSpring(path, data, FormatProperties, opts)
	case FormatYAML:
		return loadSpring(path, data, FormatYAML, opts)
	}
	return nil, inputerr.New(path, 0, 0, "", "cannot tell the format", "name it *.xml (Tomcat server.xml), *.properties or *.yml/*.yaml (Spring Boot)")
}

// LoadServerXML reads a Tomcat server.xml.
func LoadServerXML(path string, opts Options) (*Settings, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return ParseServerXML(path, data, opts)
}

// LoadProperties reads a Spring Boot application.properties and, unless
// opts.NoProfileSiblings, the profile-specific files next to it.
func LoadProperties(path string, opts Options) (*Settings, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return loadSpring(path, data, FormatProperties, opts)
}

// LoadSpringYAML reads a Spring Boot application.yml and, unless
// opts.NoProfileSiblings, the profile-specific files next to it.
func LoadSpringYAML(path string, opts Options) (*Settings, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return loadSpring(path, data, FormatYAML, opts)
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputerr.Error{File: path, Msg: "cannot read the configuration: " + errText(err), Err: err}
	}
	defer f.Close()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, &inputerr.Error{File: path, Msg: "cannot read the configuration: " + errText(err), Err: err}
	}
	if n > maxFileSize {
		return nil, inputerr.New(path, 0, 0, "", fmt.Sprintf("larger than %d MiB: not a configuration file", maxFileSize>>20), "a server.xml, application.properties or application.yml")
	}
	return buf.Bytes(), nil
}

func detect(path string, data []byte) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xml":
		return FormatServerXML
	case ".properties":
		return FormatProperties
	case ".yml", ".yaml":
		return FormatYAML
	}
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if bytes.HasPrefix(t, []byte("<")) {
		return FormatServerXML
	}
	for _, line := range strings.Split(string(t), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		if line == "---" || strings.HasSuffix(line, ":") {
			return FormatYAML
		}
		if i := strings.IndexAny(line, "=:"); i > 0 {
			if line[i] == '=' {
				return FormatProperties
			}
			return FormatYAML
		}
	}
	return ""
}

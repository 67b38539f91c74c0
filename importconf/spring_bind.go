package importconf

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// This file binds the merged Spring Boot keys to pools, as Spring Boot's
// auto-configuration would: the embedded Tomcat connector's and the task
// executor's.

// Sources of the Spring Boot facts used below.
const (
	srcBootServer   = "Spring Boot ServerProperties.Tomcat (TomcatServerProperties in 4.0)"
	srcBootTask     = "Spring Boot TaskExecutionProperties.Pool (spring.task.execution.*)"
	srcBootCustom   = "Spring Boot TomcatWebServerFactoryCustomizer applies it only when > 0"
	srcTomcatIdle   = "Tomcat AbstractEndpoint.threadsMaxIdleTime (60000 ms); Spring Boot has no property for it"
	srcBootTaskName = "Spring Boot TaskExecutionProperties.threadNamePrefix"
)

// binder reads the Spring Boot keys importconf knows from the merged view.
type binder struct {
	s         *Settings
	merged    map[string]entry
	opts      Options
	boot      [3]int
	bootKnown bool
	build     Build
}

// lookup serves placeholders: Options.Properties first (like system
// properties and environment variables, which outrank the file), then the
// file's own properties.
func (b *binder) lookup(name string) (string, bool) {
	if v, ok := b.opts.Properties[name]; ok {
		return v, true
	}
	if e, ok := b.merged[canonical(name)]; ok {
		return e.value, true
	}
	return "", false
}

// get returns the resolved value of a key, if present.
func (b *binder) get(key string) (entry, bool, error) {
	e, ok := b.merged[canonical(key)]
	if !ok {
		return e, false, nil
	}
	v, missing, err := springResolve(e.value, b.lookup)
	if err != nil {
		return e, true, inputerr.New(e.file, e.line, e.col, e.key, err.Error()+" in "+quote(e.value), "")
	}
	if len(missing) > 0 {
		return e, true, inputerr.New(e.file, e.line, e.col, e.key,
			fmt.Sprintf("unresolved placeholder ${%s}", clip(missing[0])),
			"give its value with -D "+clip(missing[0])+"=VALUE or --properties FILE, or a default in the file as ${"+clip(missing[0])+":value}")
	}
	e.value = v
	return e, true, nil
}

// origin is where e was read from, with its resolved value.
func (b *binder) origin(e entry) Origin {
	return Origin{Key: e.key, Value: e.value, File: e.file, Line: e.line, Col: e.col}
}

// bootBefore reports whether the Spring Boot version is known and older
// than v.
func (b *binder) bootBefore(v [3]int) bool { return b.bootKnown && !versionAtLeast(b.boot, v) }

// intKey is get of an int key, read as Spring Boot converts it.
func (b *binder) intKey(key string) (entry, int, bool, error) {
	e, ok, err := b.get(key)
	if !ok || err != nil {
		return e, 0, ok, err
	}
	n, perr := springInt(e.value)
	if perr != nil {
		return e, 0, true, inputerr.New(e.file, e.line, e.col, e.key,
			fmt.Sprintf("%s is not an integer (%v)", quote(e.value), perr), "a decimal or 0x-hexadecimal int")
	}
	return e, n, true, nil
}

// bind reads the two pools Spring Boot configures, the connector that uses
// the first, and the access log's pattern.
func (b *binder) bind() error {
	server, warnings := b.chooseServer()
	var web Pool
	port := ""
	var err error
	switch server {
	case "jetty":
		web, err = b.bindJetty()
	case "undertow":
		web, err = b.bindUndertow()
	case "netty":
		web = b.nettyPool()
	default:
		web, port, err = b.bindTomcat()
	}
	if err != nil {
		return err
	}
	web.Warnings = append(warnings, web.Warnings...)
	task, err := b.bindTask()
	if err != nil {
		return err
	}
	for _, p := range []*Pool{&web, &task} {
		for _, o := range p.Found {
			if o.File == b.s.File {
				p.Line = o.Line
				break
			}
		}
	}
	b.s.Pools = append(b.s.Pools, web, task)
	if server == "tomcat" {
		b.s.Connectors = append(b.s.Connectors, Connector{
			Name: web.Name, Port: port, Protocol: "HTTP/1.1", Pool: 0, File: b.s.File,
			AcceptCount: web.AcceptCount, MaxConnections: web.MaxConnections,
		})
		if web.VirtualThreads {
			b.s.Connectors[0].Pool = -1
		}
	}
	if err := b.bindDataSource(); err != nil {
		return err
	}
	return b.bindAccessLog()
}

// bindTomcat binds the embedded Tomcat connector's pool (server.*,
// server.tomcat.*) and returns it with the connector's port.
func (b *binder) bindTomcat() (Pool, string, error) {
	p := Pool{Kind: KindTomcatConnector, File: b.s.File, Prestart: true}
	var maxThreads, minSpare, queue, accept, maxConn int

	port, err := b.tomcatName(&p)
	if err != nil {
		return p, "", err
	}

	keys := []tomcatKey{
		{"server.tomcat.threads.max", "server.tomcat.max-threads", &maxThreads, 200, 200, [3]int{2, 3, 0}, [3]int{2, 5, 0}, "maxThreads", "Tomcat AbstractEndpoint.maxThreads", ""},
		{"server.tomcat.threads.min-spare", "server.tomcat.min-spare-threads", &minSpare, 10, 10, [3]int{2, 3, 0}, [3]int{2, 5, 0}, "minSpareThreads", "Tomcat AbstractEndpoint.minSpareThreads", ""},
		{"server.tomcat.threads.max-queue-capacity", "", &queue, Unbounded, Unbounded, [3]int{3, 3, 0}, [3]int{}, "maxQueueSize", "Tomcat AbstractEndpoint.maxQueueSize", ""},
		{"server.tomcat.accept-count", "", &accept, 100, 100, [3]int{1, 5, 0}, [3]int{}, "acceptCount", "Tomcat AbstractEndpoint.acceptCount", ""},
		{"server.tomcat.max-connections", "", &maxConn, 8192, 8192, [3]int{1, 5, 0}, [3]int{}, "maxConnections", "Tomcat AbstractEndpoint.maxConnections (NIO)", ""},
	}
	for _, k := range keys {
		if err := b.bindTomcatKey(&p, k); err != nil {
			return p, "", err
		}
	}
	p.Max = maxThreads
	p.Core = min(minSpare, maxThreads)
	if minSpare > maxThreads {
		p.Notes = append(p.Notes, fmt.Sprintf("min-spare %d > max %d: Tomcat uses core = min(minSpareThreads, maxThreads) = %d (R73)", minSpare, maxThreads, p.Core))
		if b.bootKnown && b.boot == [3]int{3, 3, 0} {
			return p, "", inputerr.New(b.s.File, 0, 0, "server.tomcat.threads.min-spare",
				fmt.Sprintf("min-spare %d > max %d: Spring Boot 3.3.0 creates the executor itself and fails to start (spring-boot#40945)", minSpare, maxThreads),
				"min-spare <= max, or Spring Boot 3.3.1 or later")
		}
	}
	p.MaxQueueSize = queue
	p.AcceptCount = accept
	p.MaxConnections = maxConn
	p.KeepAlive = 60 * time.Second
	p.Defaulted = append(p.Defaulted, Default{Key: "threadsMaxIdleTime", Value: "60000", Reason: srcTomcatIdle})
	p.Defaulted = append(p.Defaulted, Default{Key: "prestart", Value: "true", Reason: "Tomcat's ThreadPoolExecutor constructor calls prestartAllCoreThreads() (R65)"})

	if e, ok, err := b.get("spring.threads.virtual.enabled"); err != nil {
		return p, "", err
	} else if ok {
		v, perr := springBool(e.value)
		if perr != nil && e.value != "" {
			return p, "", inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a boolean", quote(e.value)), "true or false")
		}
		if v {
			if b.bootBefore([3]int{3, 2, 0}) {
				p.Ignored = append(p.Ignored, Ignored{Origin: b.origin(e), Reason: "spring.threads.virtual.enabled exists from Spring Boot 3.2"})
			} else {
				p.VirtualThreads = true
				p.Found = append(p.Found, b.origin(e))
				p.Notes = append(p.Notes, "spring.threads.virtual.enabled=true: Tomcat runs each request on a new virtual thread (Java 21+); the pool numbers above have no effect")
			}
		}
	}
	return p, port, nil
}

// tomcatName names the connector as Tomcat does, from server.port, SSL and
// server.address (http-nio-8080), and with it the threads; it returns the
// port as used in the name.
func (b *binder) tomcatName(p *Pool) (string, error) {
	port := "8080"
	if e, ok, err := b.get("server.port"); err != nil {
		return "", err
	} else if ok {
		n, perr := springInt(e.value)
		if perr != nil {
			return "", inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not an integer (%v)", quote(e.value), perr), "a port number")
		}
		p.Found = append(p.Found, b.origin(e))
		switch {
		case n == 0:
			port = "auto-1"
			p.Notes = append(p.Notes, "server.port=0 picks a free port at run time: Tomcat names the connector http-nio-auto-N-<port>")
		case n < 0:
			port = strconv.Itoa(n)
			p.Notes = append(p.Notes, "a negative server.port means the embedded server does not listen; the pool below is what it would be")
		default:
			port = strconv.Itoa(n)
		}
	} else {
		p.Defaulted = append(p.Defaulted, Default{Key: "server.port", Value: "8080", Reason: "Spring Boot default HTTP port"})
	}
	prefix := "http-nio"
	if ssl, err := b.sslEnabled(); err != nil {
		return "", err
	} else if ssl {
		prefix = "https-jsse-nio"
		p.Notes = append(p.Notes, "SSL is configured (server.ssl.*): Tomcat names the JSSE connector https-jsse-nio-<port>")
	}
	addr := ""
	if e, ok, err := b.get("server.address"); err != nil {
		return "", err
	} else if ok && e.value != "" {
		a, note := javaHostAddress(e.value)
		addr = a + "-"
		if note != "" {
			p.Notes = append(p.Notes, note)
		}
		p.Found = append(p.Found, b.origin(e))
	}
	p.Name = prefix + "-" + addr + port
	p.ThreadNamePrefix = p.Name + "-exec-"
	return port, nil
}

// tomcatKey is a server.tomcat.* key that sets one number of the
// connector's pool: its current name and, for a key renamed in Spring Boot
// 2.3, its old one; the default Tomcat keeps (def) and the one Spring Boot
// sets (bootDef).
type tomcatKey struct {
	cur, old  string
	field     *int
	def       int
	bootDef   int
	since     [3]int // cur exists from
	oldUntil  [3]int // old exists before
	what      string
	tomcatSrc string
	bootSrc   string // where bootDef is documented; srcBootServer when empty
}

// bindTomcatKey sets *k.field from whichever of k's two names this Spring
// Boot version reads, noting the name it ignores; a value <= 0 is not
// applied, and Tomcat keeps its own default.
func (b *binder) bindTomcatKey(p *Pool, k tomcatKey) error {
	bootDef := k.bootDef
	if k.cur == "server.tomcat.max-connections" && b.bootBefore([3]int{2, 3, 0}) {
		bootDef = 10000
	}
	*k.field = bootDef
	eCur, vCur, okCur, err := b.intKey(k.cur)
	if err != nil {
		return err
	}
	var eOld entry
	var vOld int
	okOld := false
	if k.old != "" {
		eOld, vOld, okOld, err = b.intKey(k.old)
		if err != nil {
			return err
		}
	}
	// Which of the two names does this Boot version read? An unknown
	// version is a current one: the old name is ignored, with a warning.
	curExists := !b.bootBefore(k.since)
	oldExists := k.old != "" && b.bootKnown && !versionAtLeast(b.boot, k.oldUntil)
	use, val, ok := eCur, vCur, false
	switch {
	case okCur && curExists:
		ok = true
		if okOld && oldExists {
			p.Ignored = append(p.Ignored, Ignored{Origin: b.origin(eOld), Reason: fmt.Sprintf("%s is also set; the older name %s was deprecated in Spring Boot 2.3 and removed in 2.5", k.cur, k.old)})
		}
	case okOld && oldExists:
		use, val, ok = eOld, vOld, true
	}
	if okCur && !curExists {
		p.Ignored = append(p.Ignored, Ignored{Origin: b.origin(eCur), Reason: fmt.Sprintf("%s does not exist before Spring Boot %d.%d", k.cur, k.since[0], k.since[1])})
	}
	if okOld && !oldExists && !(okCur && curExists) {
		b.ignoreLegacy(p, eOld, k.cur, k.old)
	} else if okOld && !oldExists {
		p.Ignored = append(p.Ignored, Ignored{Origin: b.origin(eOld), Reason: fmt.Sprintf("%s was removed in Spring Boot 2.5 (use %s)", k.old, k.cur)})
	}
	if ok && k.cur == "server.tomcat.threads.max-queue-capacity" && !b.bootKnown {
		p.Warnings = append(p.Warnings, Warning{File: use.file, Line: use.line, Key: use.key,
			Msg:    "exists from Spring Boot 3.3, and earlier versions ignore it; no Spring Boot version was given or found, so a current one is assumed and the queue is bounded",
			Remedy: remedyBoot})
	}
	src := k.bootSrc
	if src == "" {
		src = srcBootServer
	}
	switch {
	case ok && val > 0:
		*k.field = val
		p.Found = append(p.Found, b.origin(use))
	case ok:
		p.Ignored = append(p.Ignored, Ignored{Origin: b.origin(use), Reason: srcBootCustom + "; Tomcat keeps its default " + formatInt(k.def)})
		*k.field = k.def
		p.Defaulted = append(p.Defaulted, Default{Key: k.cur, Value: formatInt(k.def), Reason: k.tomcatSrc + " (the value <= 0 was not applied)"})
	default:
		p.Defaulted = append(p.Defaulted, Default{Key: k.cur, Value: formatInt(bootDef), Reason: src})
	}
	return nil
}

// sslEnabled reports whether SSL is configured: any server.ssl.* key,
// unless server.ssl.enabled is false.
func (b *binder) sslEnabled() (bool, error) {
	any := false
	for c := range b.merged {
		if strings.HasPrefix(c, "server.ssl.") {
			any = true
			break
		}
	}
	if !any {
		return false, nil
	}
	e, ok, err := b.get("server.ssl.enabled")
	if err != nil || !ok {
		return true, err
	}
	v, perr := springBool(e.value)
	if perr != nil {
		return false, inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a boolean", quote(e.value)), "true or false")
	}
	return v, nil
}

// bindTask binds Spring Boot's auto-configured task executor
// (spring.task.execution.*), a ThreadPoolTaskExecutor.
func (b *binder) bindTask() (Pool, error) {
	p := Pool{Kind: KindSpringTask, Name: "applicationTaskExecutor", File: b.s.File,
		Core: 8, Max: Unbounded, MaxQueueSize: Unbounded, KeepAlive: 60 * time.Second, AllowCoreThreadTimeOut: true, ThreadNamePrefix: "task-"}
	p.Notes = append(p.Notes, "Spring Boot creates this ThreadPoolTaskExecutor only when the application defines no Executor bean of its own; @Async and async MVC use it")
	if b.bootBefore([3]int{2, 1, 0}) {
		p.Notes = append(p.Notes, "Spring Boot before 2.1 auto-configures no task executor: spring.task.execution.* does not exist")
	}
	ints := []struct {
		key   string
		field *int
		def   string
	}{
		{"spring.task.execution.pool.core-size", &p.Core, "8"},
		{"spring.task.execution.pool.max-size", &p.Max, "Integer.MAX_VALUE"},
		{"spring.task.execution.pool.queue-capacity", &p.MaxQueueSize, "Integer.MAX_VALUE"},
	}
	for _, k := range ints {
		e, v, ok, err := b.intKey(k.key)
		if err != nil {
			return p, err
		}
		if !ok {
			p.Defaulted = append(p.Defaulted, Default{Key: k.key, Value: k.def, Reason: srcBootTask})
			continue
		}
		*k.field = v
		p.Found = append(p.Found, b.origin(e))
		if k.key == "spring.task.execution.pool.queue-capacity" && v <= 0 {
			p.MaxQueueSize = 0
			p.Notes = append(p.Notes, fmt.Sprintf("queue-capacity %d <= 0: ThreadPoolTaskExecutor uses a SynchronousQueue, so every task that finds no idle thread starts a new one up to max-size (R49)", v))
		}
	}
	if err := b.taskKeepAlive(&p); err != nil {
		return p, err
	}
	if e, ok, err := b.get("spring.task.execution.pool.allow-core-thread-timeout"); err != nil {
		return p, err
	} else if ok {
		v, perr := springBool(e.value)
		if perr != nil {
			return p, inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a boolean", quote(e.value)), "true or false")
		}
		p.AllowCoreThreadTimeOut = v
		p.Found = append(p.Found, b.origin(e))
	} else {
		p.Defaulted = append(p.Defaulted, Default{Key: "spring.task.execution.pool.allow-core-thread-timeout", Value: "true", Reason: srcBootTask})
	}
	if e, ok, err := b.get("spring.task.execution.thread-name-prefix"); err != nil {
		return p, err
	} else if ok {
		p.Found = append(p.Found, b.origin(e))
		if strings.TrimSpace(e.value) == "" {
			p.ThreadNamePrefix = "applicationTaskExecutor-"
			p.Notes = append(p.Notes, "an empty thread-name-prefix is not applied (whenHasText): ThreadPoolTaskExecutor falls back to its bean name, applicationTaskExecutor-")
		} else {
			p.ThreadNamePrefix = e.value
		}
	} else {
		p.Defaulted = append(p.Defaulted, Default{Key: "spring.task.execution.thread-name-prefix", Value: "task-", Reason: srcBootTaskName})
	}
	p.Defaulted = append(p.Defaulted, Default{Key: "prestart", Value: "false", Reason: "ThreadPoolTaskExecutor does not prestart core threads by default"})

	if err := b.checkTask(&p); err != nil {
		return p, err
	}
	switch {
	case p.MaxQueueSize == Unbounded && p.Max > p.Core:
		p.Notes = append(p.Notes, fmt.Sprintf("the queue is unbounded, so the pool never grows past core-size %d and max-size has no effect (R7, P2)", p.Core))
	case p.MaxQueueSize > 0 && p.Max > p.Core:
		p.Notes = append(p.Notes, fmt.Sprintf("the pool grows past core-size %d only while the queue of %d is full (R7)", p.Core, p.MaxQueueSize))
	}

	if e, ok, err := b.get("spring.threads.virtual.enabled"); err == nil && ok {
		if v, _ := springBool(e.value); v && !b.bootBefore([3]int{3, 2, 0}) {
			p.VirtualThreads = true
			p.Notes = append(p.Notes, "spring.threads.virtual.enabled=true: Spring Boot uses a SimpleAsyncTaskExecutor with virtual threads instead; the pool numbers above have no effect")
			if err := b.taskSimple(&p); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}

// taskSimple binds what the SimpleAsyncTaskExecutor of virtual threads
// takes (R142, R143): spring.task.execution.simple.concurrency-limit
// (unset: -1, unbounded) and reject-tasks-when-limit-reached (false).
func (b *binder) taskSimple(p *Pool) error {
	p.ConcurrencyLimit = -1
	if e, ok, err := b.get("spring.task.execution.simple.concurrency-limit"); err != nil {
		return err
	} else if ok {
		v, perr := springInt(e.value)
		if perr != nil || v < -1 {
			return inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a concurrency limit", quote(e.value)), "an integer >= 0, or -1 for no limit")
		}
		p.ConcurrencyLimit = v
		p.Found = append(p.Found, b.origin(e))
	} else {
		p.Defaulted = append(p.Defaulted, Default{Key: "spring.task.execution.simple.concurrency-limit", Value: "-1", Reason: "Spring Boot TaskExecutionProperties.Simple: no limit unless set (R142)"})
	}
	if e, ok, err := b.get("spring.task.execution.simple.reject-tasks-when-limit-reached"); err != nil {
		return err
	} else if ok {
		v, perr := springBool(e.value)
		if perr != nil {
			return inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a boolean", quote(e.value)), "true or false")
		}
		p.RejectWhenLimited = v
		p.Found = append(p.Found, b.origin(e))
	}
	return nil
}

// taskKeepAlive binds spring.task.execution.pool.keep-alive, in whole
// seconds as ThreadPoolTaskExecutor takes it.
func (b *binder) taskKeepAlive(p *Pool) error {
	if e, ok, err := b.get("spring.task.execution.pool.keep-alive"); err != nil {
		return err
	} else if ok {
		d, perr := springDuration(e.value, time.Millisecond)
		if perr != nil {
			return inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a duration (%v)", quote(e.value), perr), "e.g. 60s, 500ms, PT1M, or a number of milliseconds")
		}
		// ThreadPoolTaskExecutorBuilder: keepAlive.getSeconds() -> setKeepAliveSeconds.
		secs := d / time.Second
		if d < 0 && d%time.Second != 0 {
			secs--
		}
		p.KeepAlive = secs * time.Second
		p.Found = append(p.Found, b.origin(e))
		if p.KeepAlive != d {
			p.Notes = append(p.Notes, fmt.Sprintf("keep-alive %s is truncated to whole seconds (%s): ThreadPoolTaskExecutor takes keepAliveSeconds", d, p.KeepAlive))
		}
		if simpleDuration.MatchString(strings.TrimSpace(e.value)) && strings.TrimLeft(strings.TrimSpace(e.value), "+-0123456789") == "" {
			p.Notes = append(p.Notes, fmt.Sprintf("keep-alive %q has no unit: Spring Boot reads it as milliseconds", e.value))
		}
	} else {
		p.Defaulted = append(p.Defaulted, Default{Key: "spring.task.execution.pool.keep-alive", Value: "60s", Reason: srcBootTask})
	}
	return nil
}

// checkTask refuses what the task executor's pool would refuse:
// ThreadPoolTaskExecutor.initializeExecutor builds a JDK
// ThreadPoolExecutor; its constructor and allowCoreThreadTimeOut check
// these (R2, R24): the application context fails to start.
func (b *binder) checkTask(p *Pool) error {
	key := func(k string) (string, int, int) {
		if e, ok := b.merged[canonical(k)]; ok {
			return e.file, e.line, e.col
		}
		return b.s.File, 0, 0
	}
	switch {
	case p.Core < 0:
		f, l, c := key("spring.task.execution.pool.core-size")
		return inputerr.New(f, l, c, "spring.task.execution.pool.core-size", fmt.Sprintf("%d < 0: ThreadPoolExecutor throws IllegalArgumentException (R2)", p.Core), ">= 0")
	case p.Max <= 0:
		f, l, c := key("spring.task.execution.pool.max-size")
		return inputerr.New(f, l, c, "spring.task.execution.pool.max-size", fmt.Sprintf("%d <= 0: ThreadPoolExecutor throws IllegalArgumentException (R2)", p.Max), "> 0")
	case p.Max < p.Core:
		f, l, c := key("spring.task.execution.pool.max-size")
		return inputerr.New(f, l, c, "spring.task.execution.pool.max-size", fmt.Sprintf("max-size %d < core-size %d: ThreadPoolExecutor throws IllegalArgumentException (R2)", p.Max, p.Core), ">= core-size")
	case p.KeepAlive < 0:
		f, l, c := key("spring.task.execution.pool.keep-alive")
		return inputerr.New(f, l, c, "spring.task.execution.pool.keep-alive", "negative: ThreadPoolExecutor throws IllegalArgumentException (R2)", ">= 0")
	case p.KeepAlive == 0 && p.AllowCoreThreadTimeOut:
		f, l, c := key("spring.task.execution.pool.keep-alive")
		return inputerr.New(f, l, c, "spring.task.execution.pool.keep-alive",
			"0 seconds with allow-core-thread-timeout: allowCoreThreadTimeOut(true) throws IllegalArgumentException (R24)", "at least 1s, or allow-core-thread-timeout=false")
	}
	return nil
}

// bindAccessLog records the access log's pattern when the log is enabled
// (server.tomcat.accesslog.*).
func (b *binder) bindAccessLog() error {
	e, ok, err := b.get("server.tomcat.accesslog.enabled")
	if err != nil {
		return err
	}
	enabled := false
	if ok {
		v, perr := springBool(e.value)
		if perr != nil {
			return inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a boolean", quote(e.value)), "true or false")
		}
		enabled = v
	}
	pe, pok, err := b.get("server.tomcat.accesslog.pattern")
	if err != nil {
		return err
	}
	switch {
	case enabled && pok:
		b.s.AccessLogPatterns = append(b.s.AccessLogPatterns, b.origin(pe))
	case enabled:
		b.s.AccessLogPatterns = append(b.s.AccessLogPatterns, Origin{Key: "server.tomcat.accesslog.pattern", Value: "common", File: b.s.File})
		b.s.Notes = append(b.s.Notes, "the access log uses Spring Boot's default pattern \"common\", which records no request duration")
	case pok:
		b.s.Notes = append(b.s.Notes, fmt.Sprintf("%s:%d: server.tomcat.accesslog.pattern is set but server.tomcat.accesslog.enabled is not true: no access log is written", pe.file, pe.line))
	}
	return nil
}

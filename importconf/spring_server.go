package importconf

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// This file decides which embedded server a Spring Boot application runs
// (Tomcat, Jetty, Undertow or Reactor Netty), and binds the pools of those
// that are not Tomcat.

const (
	srcBootJetty    = "Spring Boot ServerProperties.Jetty.Threads (JettyServerProperties in 4.0)"
	srcBootUndertow = "Spring Boot ServerProperties.Undertow.Threads"
	remedyServer    = "put the project's pom.xml or build.gradle beside the file: its starters decide the server"
	remedyBoot      = "give --spring-boot-version, or put the project's pom.xml or build.gradle beside the file"
)

// serverNames are the embedded servers, as server.<name>.* keys name them.
var serverNames = []string{"tomcat", "jetty", "undertow", "netty"}

// serverKeys returns, per embedded server, the first key (in file order)
// that configures it.
func (b *binder) serverKeys() map[string]entry {
	first := map[string]entry{}
	keys := make([]string, 0, len(b.merged))
	for c := range b.merged {
		keys = append(keys, c)
	}
	sort.Strings(keys)
	for _, c := range keys {
		e := b.merged[c]
		for _, s := range serverNames {
			if strings.HasPrefix(c, "server."+s+".") {
				if f, ok := first[s]; !ok || e.file < f.file || (e.file == f.file && e.line < f.line) {
					first[s] = e
				}
			}
		}
	}
	return first
}

// chooseServer decides the embedded server: the build file's starters
// when there is one, else the keys: Tomcat (Spring Boot's default) unless
// the file configures exactly one other server and not Tomcat. Every
// guess that could be wrong is a warning.
func (b *binder) chooseServer() (string, []Warning) {
	keys := b.serverKeys()
	if s := b.build.Server; s != "" {
		var ws []Warning
		for _, other := range serverNames {
			if e, ok := keys[other]; ok && other != s {
				ws = append(ws, Warning{File: e.file, Line: e.line, Key: e.key,
					Msg: fmt.Sprintf("configures %s, but %s's starters choose %s: these keys have no effect", title(other), b.build.File, title(s))})
			}
		}
		b.s.Notes = append(b.s.Notes, fmt.Sprintf("%s's starters choose the embedded %s", b.build.File, title(s)))
		return s, ws
	}
	var others []string
	for _, s := range serverNames[1:] {
		if _, ok := keys[s]; ok {
			others = append(others, s)
		}
	}
	_, tomcat := keys["tomcat"]
	if len(others) == 0 {
		b.s.Notes = append(b.s.Notes, "no pom.xml or build.gradle beside the file and no other server's keys: the embedded server is taken to be Tomcat, Spring Boot's default")
	}
	if len(others) == 1 && !tomcat {
		e := keys[others[0]]
		return others[0], []Warning{{File: e.file, Line: e.line, Key: e.key,
			Msg:    fmt.Sprintf("configures %s and not Tomcat: read as %s's pool, though the classpath decides which server runs", title(others[0]), title(others[0])),
			Remedy: remedyServer}}
	}
	var ws []Warning
	for _, s := range others {
		e := keys[s]
		ws = append(ws, Warning{File: e.file, Line: e.line, Key: e.key,
			Msg:    fmt.Sprintf("configures another embedded server (%s) too; which one runs depends on the classpath: read as Tomcat", title(s)),
			Remedy: remedyServer})
	}
	return "tomcat", ws
}

func title(server string) string {
	switch server {
	case "jetty":
		return "Jetty"
	case "undertow":
		return "Undertow"
	case "netty":
		return "Reactor Netty"
	}
	return "Tomcat"
}

// bindJetty binds Spring Boot's embedded Jetty pool: a QueuedThreadPool
// built from server.jetty.threads.* (JettyWebServerFactoryCustomizer /
// JettyThreadPool.create), the jetty preset's model (R100–R108).
func (b *binder) bindJetty() (Pool, error) {
	p := Pool{Kind: KindJetty, Name: "jetty", ThreadNamePrefix: "qtp-", File: b.s.File, Prestart: true,
		MaxQueueSize: Unbounded}
	p.Notes = append(p.Notes, "Jetty names its threads qtp<hashCode>-<thread id>: the hash differs in every run")
	var maxThreads, minThreads int
	keys := []tomcatKey{
		{cur: "server.jetty.threads.max", old: "server.jetty.max-threads", field: &maxThreads, def: 200, bootDef: 200,
			since: [3]int{2, 3, 0}, oldUntil: [3]int{2, 5, 0}, what: "maxThreads", tomcatSrc: "Jetty QueuedThreadPool.maxThreads", bootSrc: srcBootJetty},
		{cur: "server.jetty.threads.min", old: "server.jetty.min-threads", field: &minThreads, def: 8, bootDef: 8,
			since: [3]int{2, 3, 0}, oldUntil: [3]int{2, 5, 0}, what: "minThreads", tomcatSrc: "Jetty QueuedThreadPool.minThreads", bootSrc: srcBootJetty},
	}
	for _, k := range keys {
		if err := b.bindTomcatKey(&p, k); err != nil {
			return p, err
		}
	}
	p.Max, p.Core = maxThreads, min(minThreads, maxThreads)
	p.KeepAlive = 60 * time.Second
	idle := "server.jetty.threads.idle-timeout"
	e, ok, err := b.legacyOr(&p, idle, "server.jetty.thread-idle-timeout", [3]int{2, 3, 0})
	if err != nil {
		return p, err
	}
	if ok {
		d, perr := springDuration(e.value, time.Millisecond)
		if perr != nil || d <= 0 {
			return p, inputerr.New(e.file, e.line, e.col, e.key, fmt.Sprintf("%s is not a positive duration", quote(e.value)), "e.g. 60s, 60000ms, or a number of milliseconds")
		}
		p.KeepAlive = d.Truncate(time.Millisecond)
		p.Found = append(p.Found, b.origin(e))
	} else {
		p.Defaulted = append(p.Defaulted, Default{Key: idle, Value: "60000ms", Reason: srcBootJetty})
	}
	if e, ok, err := b.get("server.jetty.threads.max-queue-capacity"); err != nil {
		return p, err
	} else if ok {
		p.Found = append(p.Found, b.origin(e))
		p.Unsupported = fmt.Sprintf("%s:%d: server.jetty.threads.max-queue-capacity=%s gives Jetty's QueuedThreadPool a bounded queue (0: a SynchronousQueue); poolsim models only its default unbounded queue: remove the key to simulate that",
			e.file, e.line, e.value)
	} else {
		p.Defaulted = append(p.Defaulted, Default{Key: "server.jetty.threads.max-queue-capacity", Value: "unset: Jetty's unbounded BlockingArrayQueue", Reason: srcBootJetty})
	}
	if !b.bootBefore([3]int{3, 0, 0}) {
		p.Warnings = append(p.Warnings, Warning{File: b.s.File, Key: "server.jetty.threads",
			Msg: "Spring Boot 3 runs Jetty 11 or 12, whose pool shrinks by another rule than the Jetty 9.4 pool poolsim models (R106): the growth and the numbers hold, the shrinking is Jetty 9.4's" +
				map[bool]string{true: "", false: "; no Spring Boot version was given or found, so a current one is assumed"}[b.bootKnown],
			Remedy: remedyBoot})
	}
	if minThreads > maxThreads {
		p.Notes = append(p.Notes, fmt.Sprintf("min %d > max %d: QueuedThreadPool.setMaxThreads drags minThreads down to %d", minThreads, maxThreads, maxThreads))
	}
	return p, nil
}

// bindUndertow reads Spring Boot's embedded Undertow pool
// (server.undertow.threads.io and .worker) for the record; poolsim does not
// model XNIO's worker pool, so the pool is Unsupported.
func (b *binder) bindUndertow() (Pool, error) {
	p := Pool{Kind: KindUndertow, Name: "undertow", ThreadNamePrefix: "XNIO-1 task-", File: b.s.File}
	for _, k := range [][2]string{{"server.undertow.threads.worker", "server.undertow.worker-threads"}, {"server.undertow.threads.io", "server.undertow.io-threads"}} {
		for _, key := range k {
			if e, ok, err := b.get(key); err != nil {
				return p, err
			} else if ok {
				p.Found = append(p.Found, b.origin(e))
			}
		}
	}
	p.Defaulted = append(p.Defaulted, Default{Key: "server.undertow.threads.worker", Value: "8 × io threads", Reason: srcBootUndertow})
	p.Unsupported = "the application runs Undertow, whose XNIO worker pool poolsim does not model yet; --pool applicationTaskExecutor simulates its task executor"
	return p, nil
}

// nettyPool stands for Spring WebFlux's Reactor Netty server, which runs
// requests on event loops, not a pool of request threads.
func (b *binder) nettyPool() Pool {
	return Pool{Kind: KindNetty, Name: "reactor-netty", ThreadNamePrefix: "reactor-http-nio-", File: b.s.File,
		Unsupported: "the application runs Reactor Netty (Spring WebFlux): requests run on event loops, not on a thread pool poolsim models; --pool applicationTaskExecutor simulates its task executor"}
}

// legacyOr returns the value of key cur, or of its name before Spring Boot
// 2.3 (old) when this Boot version still reads that one. A key the version
// does not read is Ignored; one ignored because no version is known (a
// current one is assumed) is also a Warning, since on Boot 2.3 or 2.4 it
// would set the pool.
func (b *binder) legacyOr(p *Pool, cur, old string, since [3]int) (entry, bool, error) {
	eCur, okCur, err := b.get(cur)
	if err != nil {
		return eCur, false, err
	}
	eOld, okOld, err := b.get(old)
	if err != nil || !okOld {
		return eCur, okCur && !b.bootBefore(since), err
	}
	oldRead := b.bootKnown && b.bootBefore([3]int{2, 5, 0})
	switch {
	case okCur && !b.bootBefore(since):
		p.Ignored = append(p.Ignored, Ignored{Origin: b.origin(eOld), Reason: fmt.Sprintf("%s is also set; the older name %s was deprecated in Spring Boot 2.3 and removed in 2.5", cur, old)})
		return eCur, true, nil
	case oldRead:
		return eOld, true, nil
	}
	b.ignoreLegacy(p, eOld, cur, old)
	return eCur, false, nil
}

// ignoreLegacy records a pre-2.3 key that this Spring Boot version ignores.
func (b *binder) ignoreLegacy(p *Pool, e entry, cur, old string) {
	p.Ignored = append(p.Ignored, Ignored{Origin: b.origin(e), Reason: fmt.Sprintf("%s was removed in Spring Boot 2.5 (use %s)", old, cur)})
	if !b.bootKnown {
		p.Warnings = append(p.Warnings, Warning{File: e.file, Line: e.line, Key: e.key,
			Msg:    fmt.Sprintf("ignored: Spring Boot 2.5 and later read only %s, and no Spring Boot version was given or found, so a current one is assumed; on Spring Boot 2.3 or 2.4 this key would set the pool", cur),
			Remedy: remedyBoot})
	}
}

package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/poolsim/poolsim/model"
)

// Preset is a named pool configuration with the exact parameters of the
// factory or server default it stands for.
type Preset struct {
	Name        string
	Summary     string // one line: what it is
	Java        string // the Java construction it mirrors
	Source      string // where the parameters come from (spec rule, docs)
	Prefix      string // thread name prefix of its workers
	Config      model.Config
	NeedsCore   bool   // the size must be given (fixed)
	MaxFollows  bool   // max defaults to, and must equal, core (fixed)
	Fixed       bool   // core and max cannot be changed (single)
	ClampCore   bool   // core = min(core, max), as Tomcat's getMinSpareThreads does (R73)
	CoreKeyName string // what core is called in this server's configuration
	MaxKeyName  string
	Throttle    bool // it takes concurrencyLimit and rejectTasksWhenLimitReached (simple-async, R143)
}

var presets = []Preset{
	{
		Name:    "jdk",
		Summary: "a plain java.util.concurrent.ThreadPoolExecutor (the default preset); give core and max",
		Java:    "new ThreadPoolExecutor(core, max, keepAlive, SECONDS, new LinkedBlockingQueue<>())",
		Source:  "spec §1; the JDK has no defaults for the sizes, keepAlive or queue: poolsim requires core and max and defaults to keepAlive 60s, an unbounded LinkedBlockingQueue and AbortPolicy (R2)",
		Prefix:  "pool-1-thread-",
		Config: model.Config{Flavor: model.JDK, KeepAlive: 60 * time.Second, Queue: model.Linked,
			QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy},
		NeedsCore: true,
	},
	{
		Name:    "fixed",
		Summary: "Executors.newFixedThreadPool(n): n threads that never time out, an unbounded queue",
		Java:    "new ThreadPoolExecutor(n, n, 0L, MILLISECONDS, new LinkedBlockingQueue<Runnable>())",
		Source:  "spec R81 (Executors.java, JDK 17 and 25); n is pool.core",
		Prefix:  "pool-1-thread-",
		Config: model.Config{Flavor: model.JDK, KeepAlive: 0, Queue: model.Linked,
			QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy},
		NeedsCore:  true,
		MaxFollows: true,
	},
	{
		Name:    "cached",
		Summary: "Executors.newCachedThreadPool(): a thread whenever none is idle, idle threads die after 60s",
		Java:    "new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60L, SECONDS, new SynchronousQueue<Runnable>())",
		Source:  "spec R83 (Executors.java); the SynchronousQueue is non-fair: idle threads are reused LIFO (R50)",
		Prefix:  "pool-1-thread-",
		Config: model.Config{Flavor: model.JDK, Core: 0, Max: model.Unbounded, KeepAlive: 60 * time.Second,
			Queue: model.Synchronous, Rejection: model.AbortPolicy},
	},
	{
		Name:    "single",
		Summary: "Executors.newSingleThreadExecutor(): one thread, an unbounded queue, replaced if it dies",
		Java:    "new ThreadPoolExecutor(1, 1, 0L, MILLISECONDS, new LinkedBlockingQueue<Runnable>()) in a wrapper hiding the setters",
		Source:  "spec R82 (Executors.java)",
		Prefix:  "pool-1-thread-",
		Config: model.Config{Flavor: model.JDK, Core: 1, Max: 1, KeepAlive: 0, Queue: model.Linked,
			QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy, Delegated: true},
		Fixed: true,
	},
	{
		Name:    "tomcat",
		Summary: "a Tomcat connector's internal executor (no <Executor> element), Tomcat 10.1 defaults",
		Java:    "new org.apache.tomcat.util.threads.ThreadPoolExecutor(min(minSpareThreads, maxThreads), maxThreads, threadsMaxIdleTime, MILLISECONDS, new TaskQueue(maxQueueSize), new TaskThreadFactory(\"http-nio-8080-exec-\", true, NORM_PRIORITY))",
		Source:  "spec R73 (AbstractEndpoint.createExecutor; http.xml: minSpareThreads 10, maxThreads 200, threadsMaxIdleTime 60000 ms, maxQueueSize Integer.MAX_VALUE); the constructor prestarts the core threads (R65)",
		Prefix:  "http-nio-8080-exec-",
		Config: model.Config{Flavor: model.Tomcat, Core: 10, Max: 200, KeepAlive: 60 * time.Second,
			Queue: model.TaskQueue, QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy, Prestart: true},
		ClampCore:   true,
		CoreKeyName: "minSpareThreads",
		MaxKeyName:  "maxThreads",
	},
	{
		Name:    "tomcat-executor",
		Summary: "Tomcat's shared <Executor> element (StandardThreadExecutor), Tomcat 10.1 defaults",
		Java:    "StandardThreadExecutor: new ThreadPoolExecutor(minSpareThreads, maxThreads, maxIdleTime, MILLISECONDS, new TaskQueue(maxQueueSize), new TaskThreadFactory(\"tomcat-exec-\", true, 5))",
		Source:  "spec R74 (executor.xml: minSpareThreads 25, maxThreads 200, maxIdleTime 60000 ms, maxQueueSize Integer.MAX_VALUE); the constructor prestarts the core threads (R65)",
		Prefix:  "tomcat-exec-",
		Config: model.Config{Flavor: model.Tomcat, Core: 25, Max: 200, KeepAlive: 60 * time.Second,
			Queue: model.TaskQueue, QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy, Prestart: true},
		ClampCore:   true,
		CoreKeyName: "minSpareThreads",
		MaxKeyName:  "maxThreads",
	},
	{
		Name:    "spring-boot",
		Summary: "Spring Boot's default application task executor (spring.task.execution.pool.*)",
		Java:    "ThreadPoolTaskExecutor: core-size 8, max-size Integer.MAX_VALUE, queue-capacity Integer.MAX_VALUE (LinkedBlockingQueue), allow-core-thread-timeout true, keep-alive 60s, prefix task-",
		Source:  "spec P2 (Spring Boot TaskExecutionProperties); the unbounded queue caps it at 8 threads (R7)",
		Prefix:  "task-",
		Config: model.Config{Flavor: model.JDK, Core: 8, Max: model.Unbounded, KeepAlive: 60 * time.Second, CoreTimeOut: true,
			Queue: model.Linked, QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy},
		CoreKeyName: "core-size",
		MaxKeyName:  "max-size",
	},
	{
		Name:    "spring",
		Summary: "Spring Framework's ThreadPoolTaskExecutor with its own defaults (no Boot)",
		Java:    "ThreadPoolTaskExecutor: corePoolSize 1, maxPoolSize Integer.MAX_VALUE, keepAliveSeconds 60, queueCapacity Integer.MAX_VALUE",
		Source:  "spec P1 (ThreadPoolTaskExecutor.java): it runs one thread forever; max is never used (R7)",
		Prefix:  "ThreadPoolTaskExecutor-",
		Config: model.Config{Flavor: model.JDK, Core: 1, Max: model.Unbounded, KeepAlive: 60 * time.Second,
			Queue: model.Linked, QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy},
	},
	{
		Name:    "scheduled",
		Summary: "Executors.newScheduledThreadPool(core): a ScheduledThreadPoolExecutor, core threads only; periodic jobs in workload.periodic",
		Java:    "new ScheduledThreadPoolExecutor(core): super(core, Integer.MAX_VALUE, DEFAULT_KEEPALIVE_MILLIS = 10, MILLISECONDS, new DelayedWorkQueue())",
		Source: "spec R84, R88 (ScheduledThreadPoolExecutor.java, JDK 17 and 25: max Integer.MAX_VALUE, keepAlive 10 ms, unbounded DelayedWorkQueue, so never more than core threads; " +
			"each schedule call and each periodic re-run starts a thread while fewer than core exist, R91); shutdown policies continueExistingPeriodicTasksAfterShutdown false, " +
			"executeExistingDelayedTasksAfterShutdown true (R98); removeOnCancelPolicy false: a cancelled task stays queued until due (R97); core is pool.core",
		Prefix: "pool-1-thread-",
		Config: model.Config{Flavor: model.Scheduled, Max: model.Unbounded, KeepAlive: model.DefaultScheduledKeepAlive,
			Queue: model.DelayedWorkQueue, QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy},
		NeedsCore: true,
	},
	{
		Name:    "jetty",
		Summary: "Jetty 9.4's QueuedThreadPool with its defaults: grows whenever no thread is idle, shrinks one thread per idleTimeout",
		Java:    "new QueuedThreadPool(maxThreads 200, minThreads 8, idleTimeout 60000, reservedThreads 0, queue null = new BlockingArrayQueue<>(8192, 8192), threadGroup null); start()",
		Source: "spec R100–R108 (QueuedThreadPool.java, Jetty 9.4.56/9.4.57 as Debian's libjetty9-java ships it: maxThreads 200, minThreads min(8, maxThreads), idleTimeout 60000 ms, " +
			"an unbounded BlockingArrayQueue); reservedThreads 0 (Jetty's default −1 keeps up to max(1, min(cpus, maxThreads/10)) threads parked for tryExecute, R109, not modelled); " +
			"core is minThreads, max maxThreads, keepAlive idleTimeout",
		Prefix: "qtp-",
		Config: model.Config{Flavor: model.Jetty, Core: 8, Max: 200, KeepAlive: 60 * time.Second,
			Queue: model.BlockingArrayQueue, QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy},
		CoreKeyName: "minThreads",
		MaxKeyName:  "maxThreads",
	},
	{
		Name:    "spring-boot-jetty",
		Summary: "Spring Boot's embedded Jetty (server.jetty.threads.*) with its defaults, on Jetty 9.4 (Spring Boot 2.3–2.7)",
		Java:    "JettyWebServerFactoryCustomizer.determineThreadPool: new QueuedThreadPool(server.jetty.threads.max 200, server.jetty.threads.min 8, server.jetty.threads.idle-timeout 60000 ms, queue null)",
		Source: "Spring Boot ServerProperties.Jetty.Threads: max 200, min 8, idle-timeout 60000 ms, max-queue-capacity unset, so Jetty's own unbounded BlockingArrayQueue " +
			"(spring-projects/spring-boot ServerProperties.java at a19a5654, JettyWebServerFactoryCustomizer.java at 00b56686; Spring Boot 3.x keeps these defaults in JettyThreadPool.create) — " +
			"the same numbers as the jetty preset. Not modelled: Jetty's reservedThreads −1 (R109) and the acceptor and selector threads the server leases from the pool " +
			"(server.jetty.threads.acceptors/selectors −1: derived from the CPU count); Spring Boot 3.x runs Jetty 11/12, whose pool shrinks by a different rule (R106)",
		Prefix: "qtp-",
		Config: model.Config{Flavor: model.Jetty, Core: 8, Max: 200, KeepAlive: 60 * time.Second,
			Queue: model.BlockingArrayQueue, QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy},
		CoreKeyName: "server.jetty.threads.min",
		MaxKeyName:  "server.jetty.threads.max",
	},
	{
		Name:    "thread-per-task",
		Summary: "Executors.newThreadPerTaskExecutor(factory) (JDK 21+): a new platform thread for every task, never reused",
		Java:    "Executors.newThreadPerTaskExecutor(Thread.ofPlatform().factory())",
		Source:  "spec R86 (ThreadPerTaskExecutor.java, JDK 25): no queue, no limit, no reuse; run as ThreadPoolExecutor(0, Integer.MAX_VALUE, 0s, SynchronousQueue) whose threads are never replaced. Give host.threadStart to charge the submitter for each Thread.start()",
		Prefix:  "Thread-",
		Config: model.Config{Flavor: model.ThreadPerTask, Core: 0, Max: model.Unbounded, KeepAlive: 0,
			Queue: model.Synchronous, Rejection: model.AbortPolicy},
	},
	{
		Name:    "virtual",
		Summary: "Executors.newVirtualThreadPerTaskExecutor(): a virtual thread per task on P carrier threads; nothing limits it but the carriers (CPU) and what tasks wait on",
		Java:    "Executors.newVirtualThreadPerTaskExecutor() = newThreadPerTaskExecutor(Thread.ofVirtual().factory())",
		Source:  "spec R130–R140, R145: no queue, no limit, no reuse; its VTs run on the default scheduler (jvm.parallelism carriers, FIFO, no preemption; pinning by jvm.version)",
		Prefix:  "",
		Config:  virtualConfig,
	},
	{
		Name:    "tomcat-virtual",
		Summary: "a Tomcat connector with useVirtualThreads=\"true\" (10.1.10+): a virtual thread per socket event; maxThreads and the TaskQueue limit nothing",
		Java:    "AbstractEndpoint.createExecutor: new VirtualThreadExecutor(getName() + \"-virt-\")",
		Source:  "spec R141: execute starts one VT per socket event and rejects only after shutdown; maxThreads, minSpareThreads, threadsMaxIdleTime, maxQueueSize limit nothing (maxConnections, R75, is not modelled: it would bound the concurrent requests)",
		Prefix:  "http-nio-8080-virt-",
		Config:  virtualConfig,
	},
	{
		Name:    "spring-boot-virtual",
		Summary: "Spring Boot 3.2+ on Tomcat with spring.threads.virtual.enabled=true: a virtual thread per request; server.tomcat.threads.* do nothing",
		Java:    "TomcatVirtualThreadsWebServerFactoryCustomizer: protocolHandler.setExecutor(new VirtualThreadExecutor(\"tomcat-handler-\"))",
		Source:  "spec R142 (an external executor: server.tomcat.threads.* and the MBean's maxThreads no longer apply), R141",
		Prefix:  "tomcat-handler-",
		Config:  virtualConfig,
	},
	{
		Name:     "simple-async",
		Summary:  "Spring's SimpleAsyncTaskExecutor on virtual threads (Boot's applicationTaskExecutor with virtual threads): a VT per task; concurrencyLimit makes the caller wait",
		Java:     "new SimpleAsyncTaskExecutor(\"task-\") with setVirtualThreads(true), setConcurrencyLimit(n) (-1: unbounded), setRejectTasksWhenLimitReached(b)",
		Source:   "spec R143, R142: no pool, no queue; with concurrencyLimit n > 0 the caller of execute waits (FIFO) while n tasks run, or is refused with rejectTasksWhenLimitReached; limit 0 refuses everything",
		Prefix:   "task-",
		Config:   virtualConfig,
		Throttle: true,
	},
}

// virtualConfig is the model configuration every virtual-thread preset
// shares: a thread per task (R130).
var virtualConfig = model.Config{Flavor: model.Virtual, Core: 0, Max: model.Unbounded, KeepAlive: 0,
	Queue: model.Synchronous, Rejection: model.AbortPolicy}

// Presets returns every preset, in the order `poolsim presets` prints them.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// LookupPreset returns the preset named name.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// PresetNames lists the preset names.
func PresetNames() []string {
	var out []string
	for _, p := range presets {
		out = append(out, p.Name)
	}
	return out
}

// Describe renders a configuration as scenario keys.
func Describe(c model.Config) string {
	if c.Flavor == model.ThreadPerTask {
		return "a new thread per task: no queue, no limit, no reuse"
	}
	if c.Flavor == model.Virtual {
		switch {
		case !c.Throttle:
			return "a new virtual thread per task: no queue, no limit, no reuse"
		case c.RejectWhenLimited || c.ConcurrencyLimit == 0:
			return fmt.Sprintf("a new virtual thread per task, at most %d at once: beyond, execute is refused", c.ConcurrencyLimit)
		}
		return fmt.Sprintf("a new virtual thread per task, at most %d at once: beyond, the caller of execute waits (FIFO)", c.ConcurrencyLimit)
	}
	var b strings.Builder
	switch c.Flavor {
	case model.Jetty:
		fmt.Fprintf(&b, "QueuedThreadPool minThreads %d, maxThreads %s, idleTimeout %v, queue %s (unbounded); grows whenever no thread is idle, shrinks one thread per idleTimeout",
			c.Core, model.SizeString(c.Max), c.KeepAlive, c.Queue.JavaName())
		return b.String()
	case model.Scheduled:
		fmt.Fprintf(&b, "ScheduledThreadPoolExecutor core %d, keepAlive %v, queue %s (unbounded), rejection %s", c.Core, c.KeepAlive, c.Queue.JavaName(), c.Rejection)
		if c.CoreTimeOut {
			b.WriteString(", allowCoreThreadTimeOut")
		}
		if c.Prestart {
			b.WriteString(", prestart")
		}
		fmt.Fprintf(&b, "; after shutdown: periodic tasks %s, delayed tasks %s",
			map[bool]string{true: "continue", false: "cancelled"}[c.ContinuePeriodicAfterShutdown],
			map[bool]string{true: "cancelled", false: "still run"}[c.DropDelayedOnShutdown])
		if c.RemoveOnCancel {
			b.WriteString("; removeOnCancelPolicy: a cancelled task leaves the queue at once")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "core %d, max %s, keepAlive %v, queue %s", c.Core, model.SizeString(c.Max), c.KeepAlive, c.Queue)
	if c.Queue != model.Synchronous {
		fmt.Fprintf(&b, " (capacity %s)", model.SizeString(c.QueueCapacity))
	}
	if c.Fair {
		b.WriteString(" fair")
	}
	fmt.Fprintf(&b, ", rejection %s", c.Rejection)
	if c.CoreTimeOut {
		b.WriteString(", allowCoreThreadTimeOut")
	}
	if c.Prestart || c.Flavor == model.Tomcat {
		b.WriteString(", prestart")
	}
	fmt.Fprintf(&b, ", hand-off %v", c.HandOff())
	return b.String()
}

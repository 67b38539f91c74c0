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
			QueueCapacity: model.Unbounded, Rejection: model.AbortPolicy},
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
}

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
	var b strings.Builder
	fmt.Fprintf(&b, "core %d, max %s, keepAlive %v, queue %s", c.Core, sizeString(c.Max), c.KeepAlive, c.Queue)
	if c.Queue != model.Synchronous {
		fmt.Fprintf(&b, " (capacity %s)", sizeString(c.QueueCapacity))
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

func sizeString(n int) string {
	if n == model.Unbounded {
		return "unbounded"
	}
	return fmt.Sprint(n)
}

package threaddump

import "testing"

// TestSplitNumber holds the thread names real pools give their threads,
// one row per naming scheme, with the prefix their pool shares and the
// worker's number.
func TestSplitNumber(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		num    int
		ok     bool
	}{
		// JDK
		{"pool-3-thread-7", "pool-3-thread-", 7, true},                                   // Executors.defaultThreadFactory (R87)
		{"ForkJoinPool-1-worker-3", "ForkJoinPool-1-worker-", 3, true},                   // ForkJoinPool
		{"ForkJoinPool.commonPool-worker-7", "ForkJoinPool.commonPool-worker-", 7, true}, // common pool
		{"Timer-0", "Timer-", 0, true},                                                   // java.util.Timer: zero is a number
		{"Thread-12", "Thread-", 12, true},                                               // new Thread()
		// Tomcat
		{"http-nio-8080-exec-12", "http-nio-8080-exec-", 12, true},                   // connector pool (R62)
		{"https-jsse-nio-8443-exec-3", "https-jsse-nio-8443-exec-", 3, true},         // TLS connector
		{"http-nio-127.0.0.1-8080-exec-4", "http-nio-127.0.0.1-8080-exec-", 4, true}, // address= in the name
		{"ajp-nio-8009-exec-1", "ajp-nio-8009-exec-", 1, true},                       // AJP connector
		{"tomcat-exec-3", "tomcat-exec-", 3, true},                                   // <Executor> (R74)
		{"catalina-exec-25", "catalina-exec-", 25, true},                             // server.xml's sample Executor
		{"Catalina-utility-2", "Catalina-utility-", 2, true},                         // utility executor
		// Jetty
		{"qtp12345-42", "qtp12345-", 42, true},             // qtp<hashCode>-<thread id>
		{"qtp-1794321201-17", "qtp-1794321201-", 17, true}, // negative hashCode
		// Spring
		{"task-5", "task-", 5, true},             // applicationTaskExecutor
		{"scheduling-1", "scheduling-", 1, true}, // taskScheduler
		// Netty
		{"nioEventLoopGroup-2-1", "nioEventLoopGroup-2-", 1, true},
		{"epollEventLoopGroup-3-4", "epollEventLoopGroup-3-", 4, true},
		{"lettuce-nioEventLoop-4-1", "lettuce-nioEventLoop-4-", 1, true}, // Lettuce (Redis)
		// Kotlin coroutines
		{"DefaultDispatcher-worker-3", "DefaultDispatcher-worker-", 3, true},
		{"DefaultDispatcher-worker-1 @coroutine#12", "DefaultDispatcher-worker-", 1, true}, // debug agent suffix dropped
		// IntelliJ's ForkJoinPool: "pool N/M" is worker N of M
		{"JobScheduler FJ pool 3/7", "JobScheduler FJ pool ", 3, true},
		{"ApplicationImpl pooled thread 12", "ApplicationImpl pooled thread ", 12, true},
		// Elasticsearch: the number inside [T#N]
		{"elasticsearch[node-1][search][T#3]", "elasticsearch[node-1][search][T#", 3, true},
		// Kafka: one network thread per client, numbered by the client
		{"kafka-producer-network-thread | producer-1", "kafka-producer-network-thread | producer-", 1, true},
		// Undertow / XNIO, Akka, gRPC, Hazelcast, Quartz
		{"XNIO-1 task-3", "XNIO-1 task-", 3, true},
		{"default-akka.actor.default-dispatcher-5", "default-akka.actor.default-dispatcher-", 5, true},
		{"grpc-default-executor-0", "grpc-default-executor-", 0, true},
		{"hz.instance_1.cached.thread-3", "hz.instance_1.cached.thread-", 3, true},
		{"DefaultQuartzScheduler_Worker-1", "DefaultQuartzScheduler_Worker-", 1, true},
		// Addresses, versions and ports are not worker numbers
		{"RMI TCP Connection(3)-10.0.0.1", "RMI TCP Connection(", 3, true}, // the connection number, not the last octet
		{"RMI TCP Connection(idle)", "", -1, false},
		{"process reaper (pid 93601)", "", -1, false},                // JDK's reaper names the child's pid
		{"ajp-/127.0.0.1:8009-12", "ajp-/127.0.0.1:8009-", 12, true}, // JBoss Web / Tomcat 6 AJP worker
		{"OkHttp https://example.org:8443", "", -1, false},           // a port
		{"agent-1.2.3", "", -1, false},                               // a version
		// Edge cases
		{"Worker7", "Worker", 7, true},                // no separator
		{"main", "", -1, false},                       // no number
		{"", "", -1, false},                           // virtual threads have no name
		{"12345", "", -1, false},                      // nothing but a number
		{"x-99999999999999999999999", "x-", -1, true}, // too large for an int
	}
	for _, tt := range tests {
		prefix, num, ok := splitNumber(tt.name)
		if prefix != tt.prefix || num != tt.num || ok != tt.ok {
			t.Errorf("splitNumber(%q) = %q, %d, %v; want %q, %d, %v", tt.name, prefix, num, ok, tt.prefix, tt.num, tt.ok)
		}
	}
}

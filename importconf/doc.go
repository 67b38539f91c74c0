// Package importconf reads the thread-pool settings of a real deployment from
// the user's own configuration files, so that poolsim can answer "why does my
// Tomcat keep 121 idle workers?" with the user's numbers:
//
//   - Tomcat's conf/server.xml (Tomcat 9, 10.1, 11): every <Connector> and
//     <Executor> of every <Service>;
//   - Spring Boot's application.properties and application.yml/.yaml
//     (multi-document files and profiles): the embedded Tomcat connector
//     (server.tomcat.*) and the auto-configured task executor
//     (spring.task.execution.*).
//
// The result is a [Settings] value with one [Pool] per thread pool found. For
// every number in a Pool, the Pool says where it came from: Found lists the
// keys read from the file (with file and line), Defaulted lists the documented
// defaults used for the keys that were absent (with the source of each
// default), Ignored lists keys that were present but have no effect (for
// example a Connector's maxThreads when the Connector uses a shared Executor,
// rule R74 of shared/spec/threadpool-semantics.md), and Notes explain the
// rest. A CLI can therefore print "keys found: …; defaults used: …".
//
// Unknown keys are not errors: these files hold many unrelated settings.
// Malformed values of the keys importconf uses are errors of type
// *inputerr.Error (FILE:LINE:COL: KEY: what is wrong (what is allowed)), and
// so are values the real server would refuse at start-up (maxThreads="0"
// makes the JDK pool constructor throw IllegalArgumentException, R2).
//
// Tomcat facts were checked against the Debian libtomcat10-java 10.1.52
// bytecode (javap -c of AbstractEndpoint, StandardThreadExecutor,
// ThreadPoolExecutor, AbstractProtocol, ConnectorCreateRule and
// IntrospectionUtils) and the Tomcat documentation (webapps/docs/config
// http.xml, executor.xml); Spring Boot facts against the Spring Boot sources
// (ServerProperties / TomcatServerProperties, TomcatWebServerFactoryCustomizer,
// TaskExecutionProperties, ThreadPoolTaskExecutorBuilder, DurationStyle,
// OriginTrackedPropertiesLoader). Each default in this package names its
// source.
package importconf

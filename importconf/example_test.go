package importconf_test

import (
	"fmt"

	"github.com/poolsim/poolsim/importconf"
)

func ExampleLoad() {
	s, err := importconf.Load("testdata/server-executor.xml", importconf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range s.Pools {
		fmt.Printf("%s %s: core %d, max %d, keepAlive %s, prefix %s\n", p.Kind, p.Name, p.Core, p.Max, p.KeepAlive, p.ThreadNamePrefix)
		for _, i := range p.Ignored {
			fmt.Printf("  ignored %s=%s (line %d): %s\n", i.Key, i.Value, i.Line, i.Reason)
		}
	}
	// Output:
	// tomcat-executor tomcatThreadPool: core 20, max 400, keepAlive 30s, prefix catalina-exec-
	//   ignored maxThreads=800 (line 24): connector http-nio-8080 uses executor "tomcatThreadPool", so its own thread attributes are ignored (R74)
	// tomcat-connector https-jsse-nio-127.0.0.1-8443: core 10, max 150, keepAlive 15s, prefix https-jsse-nio-127.0.0.1-8443-exec-
	// tomcat-connector ajp-nio-0:0:0:0:0:0:0:1-8009: core 200, max 200, keepAlive 1m0s, prefix ajp-nio-0:0:0:0:0:0:0:1-8009-exec-
}

func ExampleLoad_spring() {
	s, err := importconf.Load("testdata/application.properties", importconf.Options{Profiles: []string{"prod"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	tomcat := s.Pools[0]
	fmt.Printf("%s: core %d, max %d\n", tomcat.Name, tomcat.Core, tomcat.Max)
	for _, o := range tomcat.Found {
		fmt.Printf("  found %s=%s at %s:%d\n", o.Key, o.Value, o.File, o.Line)
	}
	for _, d := range tomcat.Defaulted {
		fmt.Printf("  default %s=%s\n", d.Key, d.Value)
	}
	// Output:
	// http-nio-8081: core 10, max 400
	//   found server.port=8081 at testdata/application.properties:4
	//   found server.tomcat.threads.max=400 at testdata/application.properties:31
	//   found server.tomcat.threads.min-spare=10 at testdata/application.properties:9
	//   found server.tomcat.accept-count=100 at testdata/application.properties:10
	//   found server.tomcat.max-connections=10000 at testdata/application.properties:11
	//   default server.tomcat.threads.max-queue-capacity=Integer.MAX_VALUE
	//   default threadsMaxIdleTime=60000
	//   default prestart=true
}

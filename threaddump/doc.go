// Package threaddump reads real HotSpot thread dumps and summarises the
// thread pools in them: which pools there are, how many workers each has, in
// which java.lang.Thread.State, which are busy, which idle with a timeout
// (poll(keepAlive): TIMED_WAITING) or without (take(): WAITING), and where
// the idle ones are parked. It backs `poolsim jstack` and
// `poolsim diagnose --dump`.
//
// Parse reads every text form of JDK 6 to 25 (jstack, jstack -l, jcmd
// Thread.print, kill -3 output inside a log, jcmd Thread.dump_to_file in
// plain text and JSON) into a Dump of Threads and Frames, tolerating CRLF,
// UTF-16, junk lines, journald-style line prefixes and truncation; ParseAll
// returns every dump of a log that holds several. Thread.Classify applies the frame rules of
// shared/spec/threadpool-semantics.md §3 (R56–R62) to one thread; Summarise
// groups a dump's threads into Pools; Format prints them as a table.
//
//	d, err := threaddump.ParseFile("dump.txt")
//	if err != nil {
//		return err // an *inputerr.Error: FILE:LINE:COL: what is wrong (what is allowed)
//	}
//	for _, p := range threaddump.Summarise(d) {
//		fmt.Println(p) // http-nio-8080-exec- (tomcat): 121 threads: 0 busy, 121 idle timed, ...
//	}
//
// The package is pure: no goroutines, no package state, no clock.
package threaddump

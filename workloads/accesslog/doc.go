// Package accesslog replays a real Tomcat (or Spring Boot embedded Tomcat)
// access log as a workload: each logged request becomes one task with its
// arrival time and its service time.
//
// The log is described by the AccessLogValve pattern it was written with
// (Tomcat's conf/server.xml <Valve className="…AccessLogValve"
// pattern="…">, or Spring Boot's server.tomcat.accesslog.pattern): the
// aliases "common" and "combined", or any pattern of %-codes as Tomcat's
// AbstractAccessLogValve.createLogElements reads them. Two kinds of fields
// matter:
//
//   - the request duration: %D, %T, %{ns}T, %{us}T, %{ms}T, %{fracsec}T,
//     %{s}T, and (only with Options.UseCommitTime) %F. %D is microseconds
//     since Tomcat 10.0 and milliseconds in Tomcat 9 and older: the caller
//     must say which (Options.DurationUnit) unless the pattern also has an
//     explicit-unit field;
//   - a timestamp: %t (Common Log Format, written when the request ends),
//     %{format}t with a SimpleDateFormat pattern or sec, msec, msec_frac,
//     each optionally prefixed begin: or end:.
//
// Tomcat writes a line when a request completes, so the log is in
// completion order and a request's arrival is its end minus its duration
// (unless the pattern logs the begin time). Parse streams the log and
// yields records in file order, arrival times relative to the first line's
// request; Sorted re-orders them by arrival with bounded memory, and
// OpenSorted does it exactly in two passes over a file.
//
// Precision is the log's: %t has whole seconds, so with it an arrival is
// known to about a second (Parser.Resolution says how well); %{begin:msec}t
// gives milliseconds. %T is whole seconds in Tomcat 10 and later. When a
// pattern has both %D and another duration field, every line is checked
// for agreement, which catches a wrong DurationUnit at the first line.
//
// Every rule here was checked against Tomcat itself: the tests drive
// Tomcat 10.1's AbstractAccessLogValve (Debian libtomcat10-java) on known
// requests and read its output back.
//
// Lines that do not match the pattern are counted and the first few kept
// with their line numbers (Stats); more than Options.MaxBadFraction of them
// is an error. Nothing is dropped silently.
package accesslog

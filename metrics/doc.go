// Package metrics reads the thread-pool metrics users already export —
// Micrometer's executor_*, tomcat_threads_* and jetty_threads_* series and
// the JVM's jvm_threads_* (spec §15, R170–R175) — from the files they can
// save: a Prometheus /api/v1/query_range JSON response (R176), the
// Prometheus text exposition format, one or more scrapes (R177), or a plain
// CSV of time, series and value.
//
// The Prometheus formats are parsed by github.com/prometheus/common (model
// for the JSON matrix, expfmt for the text format and for the series
// column of the CSV), never by hand.
//
// Series are grouped into pools by family and labels (Pools, Select);
// counters become increases with resets handled (Increases); scrape gaps
// (Gaps) and gauges that cannot be right (Implausible: negative, the −1 an
// exporter sends for virtual threads, busy above the pool size, the pool
// above max) are reported; and Traffic infers the arrival rate over time, in
// segments of steady traffic with their uncertainty (R180).
//
// Bad or mismatched files are input errors (internal/inputerr) naming the
// file, the series and the problem. The package knows no pool model and
// runs no simulation: explain does that.
package metrics

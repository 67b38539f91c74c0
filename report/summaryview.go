package report

import (
	"strconv"
	"strings"
)

// SummaryRow is one summary.json entry as the page shows it.
type SummaryRow struct {
	Key string // the summary.json key
	// Value is the value in human units ("243 ms", "912,154 tasks"); Raw
	// as summary.json prints it.
	Value, Raw string
	Numeric    bool
}

// SummaryRows lists a summary for a reader: each value with its unit, and
// without the entries of features the run did not use — every null (a
// statistic with no data: no CPU limit, no shutdown, no limit reached), an
// empty stop_reason, the CPU figures without host.cpus, the shutdown
// counts of a pool never shut down, and the scheduled-executor counts when
// they are all zero. hidden counts the entries left out; summary.json
// keeps them all.
func SummaryRows(kvs []KV) (rows []SummaryRow, hidden int) {
	raw := map[string]string{}
	for _, kv := range kvs {
		raw[kv.Key] = kv.Value
	}
	periodicUsed := false
	for _, kv := range kvs {
		if isPeriodicKey(kv.Key) && kv.Value != "0" && kv.Value != "null" && kv.Value != "false" {
			periodicUsed = true
		}
	}
	for _, kv := range kvs {
		unused := kv.Value == "null" ||
			kv.Key == "stop_reason" && kv.Value == "" ||
			strings.HasPrefix(kv.Key, "cpu") && raw["cpus"] == "0" ||
			isShutdownKey(kv.Key) && raw["shutdown_at_s"] == "null" && kv.Value == "0" ||
			isPeriodicKey(kv.Key) && !periodicUsed
		if unused {
			hidden++
			continue
		}
		rows = append(rows, SummaryRow{Key: kv.Key, Value: HumanValue(kv.Key, kv.Value), Raw: kv.Value, Numeric: numeric(kv.Value)})
	}
	return rows, hidden
}

func isPeriodicKey(k string) bool {
	switch k {
	case "cancelled_by_shutdown", "skipped_cancelled", "removed_after_cancel":
		return true
	}
	return strings.HasPrefix(k, "periodic")
}

func isShutdownKey(k string) bool {
	switch k {
	case "rejected_after_shutdown", "dropped_after_shutdown", "drained_by_shutdown_now":
		return true
	}
	return false
}

// unitOf is the unit of a summary key's value, by the key's name:
// durations end in _s, rates in _per_s, sizes in _bytes; the rest are
// counted threads, tasks or events.
func unitOf(key string) string {
	switch {
	case strings.HasSuffix(key, "_per_s"):
		return "/s"
	case strings.HasSuffix(key, "_s"):
		return "s"
	case strings.HasSuffix(key, "_bytes"):
		return "bytes"
	case strings.HasSuffix(key, "utilization"):
		return "%"
	case key == "cpus" || key == "cpu_busy_mean":
		return "CPUs"
	case key == "seed" || key == "events" || key == "idle_gaps" || key == "periodic_runs" || key == "periodic_late_runs":
		return ""
	case strings.Contains(key, "pool_size") || strings.Contains(key, "busy") || strings.Contains(key, "idle") ||
		strings.HasPrefix(key, "threads_") || strings.Contains(key, "threads"):
		return "threads"
	case strings.Contains(key, "queue") || strings.Contains(key, "queued") || strings.Contains(key, "task") ||
		strings.Contains(key, "runnable") || strings.Contains(key, "running"):
		return "tasks"
	}
	switch key {
	case "submitted", "completed", "rejected", "rejected_after_shutdown", "discarded", "caller_ran", "failed",
		"aborted", "discarded_by_policy", "discarded_oldest", "dropped_after_shutdown", "drained_by_shutdown_now",
		"retry_exhausted", "cancelled_by_shutdown", "skipped_cancelled", "removed_after_cancel":
		return "tasks"
	}
	return ""
}

// HumanValue formats a summary.json value (as SummaryFromJSON or
// SummaryFromStruct print it) in the unit its key implies: "0.243" under
// wait_p99_s is "243 ms", "912154" under submitted is "912,154 tasks".
// Strings, booleans, nulls and nested values are returned as they are.
func HumanValue(key, value string) string {
	x, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return value
	}
	switch u := unitOf(key); u {
	case "s":
		return Seconds(x)
	case "/s":
		return Number(x) + " /s"
	case "bytes":
		return Bytes(x)
	case "%":
		return Percent(x)
	case "":
		return Number(x)
	default:
		if x == 1 && u != "CPUs" {
			u = strings.TrimSuffix(u, "s")
		}
		return Number(x) + " " + u
	}
}

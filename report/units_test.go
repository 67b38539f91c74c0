package report

import (
	"math"
	"strings"
	"testing"
)

func TestHumanUnits(t *testing.T) {
	tests := []struct{ got, want string }{
		{Seconds(0), "0"},                          // no unit on nothing
		{Seconds(math.NaN()), "n/a"},               // a statistic without data
		{Seconds(0.000850), "850 µs"},              // below a millisecond
		{Seconds(0.243), "243 ms"},                 // three significant digits
		{Seconds(1.25), "1.25 s"},                  // seconds below two minutes
		{Seconds(119.4), "119 s"},                  // still seconds
		{Seconds(2388), "39 min 48 s"},             // minutes and seconds
		{Seconds(600), "10 min"},                   // whole minutes
		{Seconds(3600), "1 h"},                     // whole hours
		{Seconds(3725), "1 h 2 min 5 s"},           // under two hours: to the second
		{Seconds(7500), "2 h 5 min"},               // above: to the minute
		{Count(912154), "912,154"},                 // thousands separators
		{Count(-1234), "−1,234"},                   // a real minus sign
		{Count(999), "999"},                        // none needed
		{Number(120), "120"},                       // whole means print whole
		{Number(119.87), "120"},                    // three significant digits
		{Number(0.0100), "0.01"},                   // trailing zeros trimmed
		{Number(0.0083333333), "0.0083"},           // two significant digits below 0.01
		{Number(12345.6), "12,346"},                // large means rounded
		{Percent(0.0000083333333333), "0.00083 %"}, // the utilization the old report printed raw
		{Bytes(1 << 20), "1 MiB"},
		{Bytes(3.5 * (1 << 30)), "3.5 GiB"},
	}
	for i, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("case %d: got %q, want %q", i, tc.got, tc.want)
		}
	}
}

func TestHumanValue(t *testing.T) {
	tests := []struct{ key, value, want string }{
		{"wait_p99_s", "0.243", "243 ms"},                    // a duration
		{"submitted", "912154", "912,154 tasks"},             // a count of tasks
		{"pool_size_mean", "120", "120 threads"},             // a count of threads
		{"busy_mean", "1", "1 thread"},                       // singular
		{"utilization", "8.333333333333333e-05", "0.0083 %"}, // a fraction
		{"arrival_rate_per_s", "2.0005", "2 /s"},             // a rate
		{"peak_reserved_stack_bytes", "1048576", "1 MiB"},    // a size
		{"queue_len_max", "0", "0 tasks"},                    // queue lengths count tasks
		{"name", "tomcat-121", "tomcat-121"},                 // strings unchanged
		{"complete", "true", "true"},                         // booleans unchanged
		{"seed", "1", "1"},                                   // no unit
	}
	for _, tc := range tests {
		if got := HumanValue(tc.key, tc.value); got != tc.want {
			t.Errorf("HumanValue(%s, %s) = %q, want %q", tc.key, tc.value, got, tc.want)
		}
	}
}

// TestSummaryRows: nulls and the figures of unused features are left out
// and counted; what the run used stays, in file order, with units.
func TestSummaryRows(t *testing.T) {
	kvs, err := SummaryFromJSON([]byte(`{"name": "x", "submitted": 10, "wait_p99_s": null, "cpus": 0, "cpu_busy_mean": null,
		"cpu_runnable_max": 0, "rejected_after_shutdown": 0, "shutdown_at_s": null, "periodic_runs": 0, "skipped_cancelled": 0,
		"stop_reason": "", "capped": false, "est_peak_threads": null}`))
	if err != nil {
		t.Fatal(err)
	}
	rows, hidden := SummaryRows(kvs)
	var keys []string
	for _, r := range rows {
		keys = append(keys, r.Key)
	}
	if got, want := strings.Join(keys, " "), "name submitted capped"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	if hidden != len(kvs)-3 {
		t.Errorf("hidden %d, want %d", hidden, len(kvs)-3)
	}
	// A feature in use keeps all its figures, zeros included.
	kvs, _ = SummaryFromJSON([]byte(`{"cpus": 8, "cpu_runnable_max": 0, "shutdown_at_s": 60, "dropped_after_shutdown": 0, "periodic_runs": 3, "skipped_cancelled": 0}`))
	if rows, hidden := SummaryRows(kvs); len(rows) != len(kvs) || hidden != 0 {
		t.Errorf("used features: %d rows and %d hidden of %d", len(rows), hidden, len(kvs))
	}
}

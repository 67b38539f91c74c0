package inputerr

import "testing"

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		// Everything known: the contract's full form.
		{"full", New("s.yaml", 3, 5, "pool.core", "must be >= 0, got -1", "corePoolSize >= 0"),
			"s.yaml:3:5: pool.core: must be >= 0, got -1 (corePoolSize >= 0)"},
		// No line: file then key.
		{"no line", New("t.csv", 0, 0, "arrival_s", "column missing", ""),
			"t.csv: arrival_s: column missing"},
		// Line without column.
		{"no col", New("t.csv", 7, 0, "service_s", "not a number", ""),
			"t.csv:7: service_s: not a number"},
		// No key.
		{"no key", New("d.txt", 1, 1, "", "empty file", ""),
			"d.txt:1:1: empty file"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSuggestPrefersPrefixes: "prio" means priority, not fail, though
// both are four edits away (found by the bad-input table of issue 6).
func TestSuggestPrefersPrefixes(t *testing.T) {
	if got := Suggest("prio", []string{"arrival_s", "service_s", "priority", "fail"}); got != "priority" {
		t.Errorf("Suggest(prio) = %q, want priority", got)
	}
}

func TestSuggest(t *testing.T) {
	keys := []string{"core", "max", "keepAlive", "queue", "rejection"}
	tests := []struct{ in, want string }{
		{"keepalive", "keepAlive"}, // case slip
		{"kepAlive", "keepAlive"},  // one letter missing
		{"cores", "core"},          // one letter extra
		{"threads", ""},            // nothing close: no suggestion
		{"rejec", "rejection"},     // an abbreviation
		{"queues", "queue"},        // an extension
	}
	for _, tt := range tests {
		if got := Suggest(tt.in, keys); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

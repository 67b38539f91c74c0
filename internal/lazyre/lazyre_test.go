package lazyre

import (
	"regexp"
	"slices"
	"testing"
)

// TestSameAsRegexp: a lazy expression answers what the compiled one does,
// and compiles once.
func TestSameAsRegexp(t *testing.T) {
	const expr = `(\d+)\s*/\s*(s|min)`
	lazy, eager := New(expr), regexp.MustCompile(expr)
	if lazy.re != nil {
		t.Fatal("compiled before its first use")
	}
	for _, s := range []string{"64/s", "90 / min", "x", "1/s and 2/min"} {
		if a, b := lazy.MatchString(s), eager.MatchString(s); a != b {
			t.Errorf("MatchString(%q) = %v, want %v", s, a, b)
		}
		if a, b := lazy.FindStringSubmatch(s), eager.FindStringSubmatch(s); !slices.Equal(a, b) {
			t.Errorf("FindStringSubmatch(%q) = %q, want %q", s, a, b)
		}
		if a, b := lazy.FindAllString(s, -1), eager.FindAllString(s, -1); !slices.Equal(a, b) {
			t.Errorf("FindAllString(%q) = %q, want %q", s, a, b)
		}
	}
	if first := lazy.Compiled(); lazy.Compiled() != first {
		t.Error("compiled twice")
	}
}

// TestBadExpressionPanics: like regexp.MustCompile, at first use.
func TestBadExpressionPanics(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic")
		}
	}()
	r.MatchString("x")
}

// TestReplaceAllString: as regexp's.
func TestReplaceAllString(t *testing.T) {
	const expr = `[^a-z]+`
	if a, b := New(expr).ReplaceAllString("ab  c.d", "-"), regexp.MustCompile(expr).ReplaceAllString("ab  c.d", "-"); a != b {
		t.Errorf("ReplaceAllString = %q, want %q", a, b)
	}
}

package textlimit

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLines(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		line     int // the line reported too long; 0: none
	}{
		// Every line within the limit, the last one unterminated.
		{"short lines", "ab\ncd\nef", 2, 0},
		// A line of exactly max bytes passes.
		{"exactly max", "abc\nd\n", 3, 0},
		// The second line is one byte too long.
		{"second too long", "abc\nabcd\nx\n", 3, 2},
		// An endless first line (no '\n' at all), as /dev/zero gives.
		{"no line end", strings.Repeat("0", 100), 10, 1},
		// Empty input.
		{"empty", "", 1, 0},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if oneByte { // the same, delivered a byte per Read
				r = iotest.OneByteReader(r)
			}
			_, err := io.ReadAll(Lines(r, tt.max))
			var le *LineError
			switch {
			case tt.line == 0 && err != nil:
				t.Errorf("%s (one byte %v): %v", tt.name, oneByte, err)
			case tt.line != 0 && (!errors.As(err, &le) || le.Line != tt.line || le.Max != tt.max):
				t.Errorf("%s (one byte %v): got %v, want line %d too long", tt.name, oneByte, err, tt.line)
			}
		}
	}
}

// TestLinesBoundsEndlessInput: an endless line stops after about max bytes.
func TestLinesBoundsEndlessInput(t *testing.T) {
	n, err := io.Copy(io.Discard, Lines(zeros{}, 1<<16))
	var le *LineError
	if !errors.As(err, &le) || n > 1<<17 {
		t.Fatalf("read %d bytes of an endless line, err %v", n, err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestReadAll(t *testing.T) {
	tests := []struct {
		in      string
		max     int64
		tooLong bool
	}{
		{"abc", 3, false}, // exactly the limit
		{"abcd", 3, true}, // one byte over
		{"", 0, false},    // nothing
	}
	for _, tt := range tests {
		got, err := ReadAll(strings.NewReader(tt.in), tt.max)
		if tt.tooLong != errors.Is(err, ErrTooLarge) || (!tt.tooLong && string(got) != tt.in) {
			t.Errorf("ReadAll(%q, %d) = %q, %v", tt.in, tt.max, got, err)
		}
	}
}

package textlimit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest line the CSV readers accept: a trace row or a
// sample is a few numbers.
const MaxLine = 1 << 20

// LineError is a line longer than the limit.
type LineError struct {
	Line int // 1-based
	Max  int // bytes
}

func (e *LineError) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes", e.Line, e.Max)
}

// Lines returns a reader of r that fails with a *LineError as soon as a
// line (bytes up to a '\n') grows longer than max bytes.
func Lines(r io.Reader, max int) io.Reader {
	return &lineReader{r: r, max: max, line: 1}
}

type lineReader struct {
	r    io.Reader
	max  int
	run  int // bytes since the last '\n'
	line int // the line being read
	err  error
}

func (l *lineReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			l.run += len(chunk)
			break
		}
		if l.run += i; l.run > l.max {
			break
		}
		l.run = 0
		l.line++
		chunk = chunk[i+1:]
	}
	if l.run > l.max {
		l.err = &LineError{Line: l.line, Max: l.max}
		return n, l.err
	}
	return n, err
}

// ErrTooLarge is returned by ReadAll for input beyond its limit.
var ErrTooLarge = errors.New("textlimit: input too large")

// ReadAll reads r to the end, or fails with ErrTooLarge once it has read
// more than max bytes.
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, ErrTooLarge
	}
	return data, nil
}

// Package inputerr is the one error type for bad input anywhere in poolsim:
// scenario files, traces, thread dumps, access logs, server.xml, Spring
// properties and command-line flags.
//
// Every input error prints in one style,
//
//	FILE:LINE:COL: KEY: what is wrong (what is allowed)
//
// and the CLI maps it to exit code 2 (CONTRACT.md §3). Parts that are unknown
// are left out: a missing line prints as FILE: KEY: ..., a missing key as
// FILE:LINE:COL: what is wrong.
package inputerr

import (
	"errors"
	"fmt"
	"strings"
)

// Error is an input error located in a file.
type Error struct {
	File    string // path as the user gave it; "--set" or "flag" for command-line input
	Line    int    // 1-based; 0 when unknown
	Col     int    // 1-based; 0 when unknown
	Key     string // the key, column or field at fault, e.g. "pool.queue.capacity"
	Msg     string // what is wrong
	Allowed string // what is allowed, without parentheses; may be empty
	Err     error  // underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
			if e.Col > 0 {
				fmt.Fprintf(&b, ":%d", e.Col)
			}
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Allowed != "" {
		b.WriteString(" (")
		b.WriteString(e.Allowed)
		b.WriteString(")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an input error.
func New(file string, line, col int, key, msg, allowed string) *Error {
	return &Error{File: file, Line: line, Col: col, Key: key, Msg: msg, Allowed: allowed}
}

// Is reports whether err is, or wraps, an input error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Suggest returns the candidate closest to word by edit distance, or "" when
// none is close enough to be a likely typo. It backs the "did you mean"
// hints of unknown keys and names.
//
// A candidate that the word abbreviates or extends (prio for priority,
// cores for core) is preferred to one merely as close by edit distance.
func Suggest(word string, candidates []string) string {
	best, bestD := "", len(word)/2+2
	prefix, prefixD := "", 0
	lw := strings.ToLower(word)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := distance(lw, lc)
		if d < bestD {
			best, bestD = c, d
		}
		if len(lw) >= 3 && len(lc) >= 3 && (strings.HasPrefix(lc, lw) || strings.HasPrefix(lw, lc)) && (prefix == "" || d < prefixD) {
			prefix, prefixD = c, d
		}
	}
	if prefix != "" {
		return prefix
	}
	return best
}

// distance is the Levenshtein edit distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

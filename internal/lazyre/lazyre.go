// Package lazyre is a regular expression compiled on its first use rather
// than at program start. A package-level regexp.MustCompile runs in every
// process, whatever the command: poolsim run paid for the regular
// expressions of importconf, sweep and tune before simulating anything
// (issue 19: start-up is part of every run's cost).
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled on first use; a bad expression panics
// then, as regexp.MustCompile would at start-up (tests reach every one).
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns expr, to be compiled when first used.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// Compiled is the compiled expression.
func (r *Regexp) Compiled() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.Compiled().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Compiled().FindStringSubmatch(s) }

// FindAllString is regexp.Regexp.FindAllString.
func (r *Regexp) FindAllString(s string, n int) []string { return r.Compiled().FindAllString(s, n) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Compiled().ReplaceAllString(src, repl)
}

// Package scenarios turns scenario files (YAML, version 1; CONTRACT.md §1)
// into validated, inert Scenario values, and knows the pool presets.
//
// Validation is strict: an unknown key anywhere, in nested blocks too, is an
// error with file, line, column and a "did you mean" suggestion; values are
// checked for type and range with the JDK's own constructor rules (R2).
// Every error is an internal/inputerr.Error. Loading never runs anything.
//
// Command-line overrides (--set pool.core=20) are applied to the parsed
// YAML tree before validation, so an override behaves exactly like editing
// the file; an error in an override names the flag instead of a line.
package scenarios

// Package readme holds no code: its test checks that the program in the
// README's "Use poolsim as a Go library" section compiles against this
// checkout and runs, from the repository root, with exit status 0.
package readme

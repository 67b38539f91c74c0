// Package textlimit bounds what poolsim reads from a text file, so that no
// input — a log without line ends, /dev/zero given as a trace, a scenario
// that is really a disk image — can exhaust memory (issue 6): readers fail
// with a located error instead.
package textlimit

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// TestExitCodeByType: the exit code follows the error's type, never its
// text — an Action's error that reads like a flag mistake is still exit 1,
// and urfave/cli's own refusals of the command line are exit 2 whatever
// they say.
func TestExitCodeByType(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		// No error.
		{"nil", nil, exitOK},
		// An Action's untyped error: a failure, whatever its words.
		{"action error worded as a flag mistake", &actionError{errors.New("flag provided but not defined: -x")}, exitExpect},
		{"action error", &actionError{errors.New("disk full")}, exitExpect},
		// Typed errors, from an Action or from a hook.
		{"usage error from an action", &actionError{&usageError{"run takes exactly one scenario file"}}, exitBadInput},
		{"usage error from a flag hook", &usageError{"--sed: unknown flag"}, exitBadInput},
		{"input error, wrapped", &actionError{fmt.Errorf("loading: %w", inputerr.New("s.yaml", 1, 2, "pool.max", "must be > 0", ""))}, exitBadInput},
		{"expectation", &actionError{&expectationError{"1 assertion failed"}}, exitExpect},
		{"interrupted run", &actionError{&interruptedError{"run interrupted"}}, exitInterrupt},
		{"cancelled", &actionError{fmt.Errorf("sweep: %w", context.Canceled)}, exitInterrupt},
		// Not from an Action: urfave/cli refused the command line.
		{"unmarked", errors.New("Required flag \"out\" not set"), exitBadInput},
		{"unmarked, any words", errors.New("something else"), exitBadInput},
	} {
		if got := exitCode(c.err, io.Discard); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}

// TestUrfaveRefusals: the command-line mistakes urfave/cli reports itself,
// without an OnUsageError hook of ours, are exit 2 with its message on one
// line.
func TestUrfaveRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		// urfave's help command has no hook of ours.
		{[]string{"help", "--bogus"}, "poolsim: flag provided but not defined: -bogus\n"},
		{[]string{"run", "--", "help", "--bogus"}, "poolsim: flag provided but not defined: -bogus\n"},
		// A required flag is checked before the Action runs.
		{[]string{"merge"}, "poolsim: Required flag \"out\" not set\n"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != exitBadInput || stderr != c.want {
			t.Errorf("poolsim %s: exit %d, stderr %q; want 2, %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/internal/inputerr"
	"github.com/poolsim/poolsim/internal/lazyre"
)

// Flag mistakes as Go's flag package words them (urfave/cli passes them on).
var (
	unknownFlagRE = lazyre.New(`^flag provided but not defined: -+(.*)$`)
	badValueRE    = lazyre.New(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)$`)
	noValueRE     = lazyre.New(`^flag needs an argument: -+(.*)$`)
)

// typedErrors gives every error of each command a type exitCode can
// classify. A flag mistake is reported as one line in the input-error
// style, a usageError (exit 2), instead of urfave/cli's "Incorrect Usage"
// and the command's whole help on stdout (issue 6); an error the Action
// returns is marked as the Action's (actionError), so that what urfave/cli
// returns unmarked is known to be its own refusal of the command line.
func typedErrors(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = flagUsageError(cmd)
		}
		cmd.Action = markAction(cmd.Action)
		typedErrors(cmd.Subcommands)
	}
}

// markAction wraps the errors act returns in actionError; nil stays nil.
func markAction(act cli.ActionFunc) cli.ActionFunc {
	if act == nil {
		return nil
	}
	return func(c *cli.Context) error {
		if err := act(c); err != nil {
			return &actionError{err}
		}
		return nil
	}
}

func flagUsageError(cmd *cli.Command) cli.OnUsageErrorFunc {
	return func(c *cli.Context, err error, isSubcommand bool) error {
		return &usageError{flagMessage(cmd, err.Error())}
	}
}

// flagMessage rewrites Go's flag message for cmd: the flag as the key, what
// is wrong, and what is allowed.
func flagMessage(cmd *cli.Command, msg string) string {
	help := fmt.Sprintf("see 'poolsim %s --help'", cmd.Name)
	if m := unknownFlagRE.FindStringSubmatch(msg); m != nil {
		var names []string
		for _, f := range cmd.Flags {
			names = append(names, f.Names()...)
		}
		what := "unknown flag"
		if s := inputerr.Suggest(m[1], names); s != "" {
			what += fmt.Sprintf("; did you mean --%s?", s)
		}
		return inputerr.New("", 0, 0, "--"+m[1], what, help).Error()
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		allowed := help
		if want := flagWants(cmd, m[2]); want != "" {
			allowed = want + "; " + help
		}
		return inputerr.New("", 0, 0, "--"+m[2], fmt.Sprintf("invalid value %q", m[1]), allowed).Error()
	}
	if m := noValueRE.FindStringSubmatch(msg); m != nil {
		return inputerr.New("", 0, 0, "--"+m[1], "needs a value", help).Error()
	}
	return strings.TrimSpace(msg) + " (" + help + ")"
}

// flagWants says what values the flag named name takes.
func flagWants(cmd *cli.Command, name string) string {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			switch f.(type) {
			case *cli.BoolFlag:
				return "true or false"
			case *cli.Uint64Flag, *cli.UintFlag:
				return "an integer >= 0"
			case *cli.IntFlag, *cli.Int64Flag:
				return "an integer"
			case *cli.Float64Flag:
				return "a number"
			case *cli.DurationFlag:
				return "a duration such as 250ms or 1h30m"
			}
		}
	}
	return ""
}

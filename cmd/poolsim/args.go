package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// permuteArgs lets flags follow positional arguments, as the contract writes
// them (poolsim run SCENARIO --out DIR): urfave/cli v2 stops parsing flags at
// the first positional argument, so the flags are moved in front of the
// positionals, which follow a "--". A "--" given by the user ends flag
// parsing as usual.
func permuteArgs(cmds []*cli.Command, args []string) []string {
	if len(args) < 2 {
		return args
	}
	var cmd *cli.Command
	for _, c := range cmds {
		if c.HasName(args[1]) {
			cmd = c
		}
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, pos []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] {
				if i+1 == len(rest) {
					// The value is missing: let the flag parser say so,
					// rather than take the "--" below as the value.
					return append([]string{args[0], args[1]}, flags...)
				}
				flags = append(flags, rest[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	out := append([]string{args[0], args[1]}, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

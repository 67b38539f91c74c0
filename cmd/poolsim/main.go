// Command poolsim simulates Java thread pools on a virtual clock: the real
// ThreadPoolExecutor state machine (and Tomcat's variant) fed by synthetic
// or recorded traffic, explaining thread counts, thread states, queueing,
// latency and rejections.
//
// It is a thin layer: it parses flags, calls the library, and chooses the
// exit code in one place (CONTRACT.md §3): 0 success, 1 a stated
// expectation failed, 2 bad input or usage.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/poolsim/poolsim/internal/inputerr"
)

// Exit codes (CONTRACT.md §3).
const (
	exitOK        = 0
	exitExpect    = 1
	exitBadInput  = 2
	exitInterrupt = 130
)

// expectationError is a failed assertion or gate: exit 1.
type expectationError struct{ msg string }

func (e *expectationError) Error() string { return e.msg }

// usageError is a command-line mistake: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// actionError marks an error that a command's Action returned (see
// typedErrors). Every other error urfave/cli returns comes from reading the
// command line before any Action ran, and is a usage error: a flag that Go's
// flag package refused where no OnUsageError hook of ours sees it (urfave's
// own help command: poolsim help --bogus), a required flag missing (merge
// without --out; urfave/cli v2.27 keeps that error's type unexported), an
// unknown help topic.
type actionError struct{ err error }

func (e *actionError) Error() string { return e.err.Error() }
func (e *actionError) Unwrap() error { return e.err }

func main() {
	// The signals stay caught until the process exits: signal.Stop before
	// os.Exit would only wait for the runtime's signal thread to update its
	// mask — 0.05 to several ms of wall time on a busy machine, in every
	// process (issue 19) — and a signal that came after the command
	// finished would then kill it instead of letting it exit with its code.
	ctx, _ := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	tuneGC(os.Getenv)
	stopProfile := startCPUProfile(os.Getenv("POOLSIM_CPUPROFILE"), os.Getenv("POOLSIM_CPUPROFILE_HZ"), os.Stderr)
	code := runMain(ctx, os.Args, os.Stdout, os.Stderr)
	stopProfile()
	os.Exit(code)
}

// GC settings of the command (tuneGC).
const (
	gcPercent   = 400
	memoryLimit = 2 << 30 // bytes
)

// tuneGC collects garbage less often than Go's default unless the user
// chose (GOGC or GOMEMLIMIT set). A run's live heap is small — histograms,
// workers, the queue — while an elastic pool retires tens of thousands of
// worker structs a simulated day: at GOGC=100 that was six collections per
// run of scripts/bench/elastic-tomcat.yaml and ~10% of its CPU time, at 400
// one. The memory limit keeps this setting from growing a heap past 2 GiB
// (a queue the user let grow without limit): near it the runtime collects
// as its limit says. It returns whether it changed anything.
func tuneGC(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(memoryLimit)
	return true
}

// startCPUProfile writes a CPU profile of the whole command to path (none if
// path is empty) until the returned function is called: what a report of a
// slow run needs, and what cmd/poolsim/default.pgo, the profile the Go
// compiler optimises the hot path by, is made of (scripts/pgo.sh). hz, if
// not empty, is the sampling rate instead of pprof's 100 per second: a
// run of a tenth of a second gives pprof's rate some ten samples, and a
// profile that thin decides the compiler's inlining differently each time
// it is made (the runtime then prints that it cannot set the rate twice;
// the rate set first holds).
func startCPUProfile(path, hz string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	if hz != "" {
		n, err := strconv.Atoi(hz)
		if err != nil || n <= 0 || n > 10000 {
			fmt.Fprintf(stderr, "poolsim: POOLSIM_CPUPROFILE_HZ: want a rate from 1 to 10000 per second, got %q\n", hz)
			return func() {}
		}
		runtime.SetCPUProfileRate(n)
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "poolsim: POOLSIM_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "poolsim: POOLSIM_CPUPROFILE: %v\n", err)
		}
	}
}

// runMain runs the CLI and returns the exit code. Tests call it in-process.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		// A panic is a poolsim bug, never the user's fault; say so in one
		// line rather than a stack trace, and keep the details available.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "poolsim: internal error: %v\n(this is a bug in poolsim; please report it with the command and scenario that triggered it; set POOLSIM_TRACEBACK=1 for a stack trace)\n", r)
			if os.Getenv("POOLSIM_TRACEBACK") != "" {
				panic(r)
			}
			code = 3
		}
	}()
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, permuteArgs(app.Commands, args))
	return exitCode(err, stderr)
}

// exitCode prints err and chooses the exit code (CONTRACT.md §3) from the
// error's type, never from its text.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ee *expectationError
	var ue *usageError
	var ie *interruptedError
	var ae *actionError
	switch {
	case errors.As(err, &ie):
		fmt.Fprintf(stderr, "poolsim: %v\n", err)
		return exitInterrupt
	case errors.As(err, &ee):
		fmt.Fprintf(stderr, "poolsim: %v\n", err)
		return exitExpect
	case inputerr.Is(err), errors.As(err, &ue):
		fmt.Fprintf(stderr, "poolsim: %v\n", oneLine(err.Error()))
		return exitBadInput
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "poolsim: interrupted\n")
		return exitInterrupt
	case !errors.As(err, &ae):
		// Not from an Action, nor from our OnUsageError hooks: urfave/cli
		// read the command line and refused it (see actionError).
		fmt.Fprintf(stderr, "poolsim: %s\n", oneLine(err.Error()))
		return exitBadInput
	}
	fmt.Fprintf(stderr, "poolsim: %s\n", oneLine(err.Error()))
	return exitExpect
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                 "poolsim",
		Usage:                "simulate Java thread pools (ThreadPoolExecutor, Tomcat) on a virtual clock",
		Version:              version(),
		Writer:               stdout,
		ErrWriter:            stderr,
		HideVersion:          true,
		EnableBashCompletion: true,
		// --set values are YAML and may hold commas ({type: array, capacity:
		// 50}); a repeated flag is the only way to give several.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {}, // exit codes are chosen in runMain
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			return &usageError{err.Error()}
		},
		CommandNotFound: func(c *cli.Context, name string) {
			fmt.Fprintf(stderr, "poolsim: unknown command %q (run 'poolsim help')\n", name)
		},
		Commands: []*cli.Command{
			runCommand(),
			explainCommand(),
			compareCommand(),
			diagnoseCommand(),
			fitCommand(),
			reportCommand(),
			serveCommand(),
			jstackCommand(),
			presetsCommand(),
			versionCommand(),
			sweepCommand(), mergeCommand(),
			tuneCommand(),
		},
	}
	app.Action = markAction(func(c *cli.Context) error {
		if c.NArg() > 0 {
			return &usageError{fmt.Sprintf("unknown command %q (see 'poolsim help')", c.Args().First())}
		}
		return cli.ShowAppHelp(c)
	})
	typedErrors(app.Commands)
	return app
}

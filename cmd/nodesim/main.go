// Command nodesim simulates one Kubernetes node's kubelet: what happens to your pods on a
// node, step by step, from a scenario file.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"nodesim/engine"
	"nodesim/internal/safetext"
	"nodesim/scenarios"
	"nodesim/sim"
)

// Version is nodesim's version.
const Version = "0.1.0"

// Exit codes.
const (
	exitOK          = 0
	exitExpectation = 1
	exitInvalid     = 2
	// exitInternal is nodesim's own failure: a panic, a stalled simulation, a broken
	// invariant. Never the input's.
	exitInternal = 3
)

// stackEnv asks for the Go stack of an internal error.
const stackEnv = "NODESIM_STACK"

// exitError carries an exit code to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func invalid(err error) error { return &exitError{code: exitInvalid, err: err} }

// internal marks an error as nodesim's own: a stalled simulation, an internal error.
func internal(err error) error {
	var st *sim.Stalled
	if errors.As(err, &st) {
		return &exitError{code: exitInternal, err: fmt.Errorf("nodesim: %w", err)}
	}
	return &exitError{code: exitInternal, err: fmt.Errorf("nodesim: internal error: %w", err)}
}

// fileOptions reads the flags that say where a scenario's referenced files may be.
func fileOptions(cmd *cobra.Command) scenarios.FileOptions {
	allow, _ := cmd.Flags().GetBool(strings.TrimPrefix(scenarios.AllowOutsideFlag, "--"))
	return scenarios.FileOptions{AllowOutside: allow}
}

func main() {
	tuneGC()
	os.Exit(runWith(os.Args[1:], os.Stdout, os.Stderr, watchSignals()))
}

// run executes the command line and returns the exit code, catching no signals.
func run(args []string, stdout, stderr io.Writer) int { return runWith(args, stdout, stderr, nil) }

// runWith is run with the process's signals (nil: none are caught). A panic anywhere is
// nodesim's own failure: it is reported as an internal error with the command that
// reproduces it (the Go stack only when NODESIM_STACK is set) and exits 3, never 2, which
// means bad input.
func runWith(args []string, stdout, stderr io.Writer, sig *signals) int {
	return guarded(args, stderr, func() int { return execute(args, stdout, stderr, sig) })
}

// guarded runs f, turning a panic into the internal error it is.
func guarded(args []string, stderr io.Writer, f func() int) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "nodesim: internal error: %s\n", safetext.Escape(fmt.Sprint(r)))
			fmt.Fprintf(stderr, "reproduce: %s\n", shellJoin(append([]string{"nodesim"}, args...)))
			if os.Getenv(stackEnv) != "" {
				stderr.Write(debug.Stack())
			} else {
				fmt.Fprintf(stderr, "(set %s=1 to print the Go stack)\n", stackEnv)
			}
			code = exitInternal
		}
	}()
	return f()
}

// execute runs the command line and returns the exit code.
func execute(args []string, stdout, stderr io.Writer, sig *signals) int {
	root := newRootCmd(stdout, stderr, sig)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var iv *engine.InvariantViolation
	if errors.As(err, &iv) {
		fmt.Fprintf(stderr, "internal error: %v\n", err)
		return exitInternal
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, safetext.EscapeText(ee.err.Error()))
		}
		return ee.code
	}
	// cobra's own usage errors (unknown flag, wrong argument count)
	fmt.Fprintf(stderr, "Error: %s\nRun 'nodesim --help' for usage.\n", safetext.Escape(err.Error()))
	return exitInvalid
}

func newRootCmd(stdout, stderr io.Writer, sig *signals) *cobra.Command {
	root := &cobra.Command{
		Use:   "nodesim",
		Short: "Simulate one Kubernetes node's kubelet, deterministically",
		Long: `nodesim simulates one Kubernetes node, second by virtual second: the kubelet's syncLoop,
pod workers, PLEG, the runtime manager and the status manager, against an in-memory container
runtime that follows a scenario's script. The same scenario and seed always give the same report.

Exit codes: 0 ok, 1 an expectation failed, 2 invalid input or usage, 3 nodesim's own failure
(an internal error, a stalled simulation, a broken invariant), 130 and 143 stopped by SIGINT
or SIGTERM.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().Bool(strings.TrimPrefix(scenarios.AllowOutsideFlag, "--"), false,
		"let kubeletConfigFile and podFiles name files outside the scenario's directory")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRunCmd(stdout, stderr, sig), newValidateCmd(stdout, stderr), newSweepCmd(stdout, stderr, sig), newScenariosCmd(stdout), newVersionCmd(stdout), newExplainCmd(stdout, stderr), newImportCmd(stdout, stderr))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return invalid(fmt.Errorf("%v\nRun '%s --help' for usage.", err, c.CommandPath()))
	})
	return root
}

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print nodesim's version and the kubelet version it models",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(stdout, "nodesim %s (models kubelet v1.37, scenario format nodesim/v1alpha1)\n", Version)
			return nil
		},
	}
}

// shellJoin quotes each word for a POSIX shell where it needs it, so that a reproduce line
// can be pasted as it is, whatever the path holds.
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return strings.Join(out, " ")
}

func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,@%+") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(safetext.Escape(w), "'", `'\''`) + "'"
}

// internalPanic is a panic caught on a goroutine of nodesim's own (a sweep's worker).
type internalPanic struct {
	value any
	stack []byte
}

func (p *internalPanic) Error() string {
	msg := fmt.Sprint(p.value)
	if os.Getenv(stackEnv) != "" {
		msg += "\n" + string(p.stack)
	}
	return msg
}

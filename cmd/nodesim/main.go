// Command nodesim simulates one Kubernetes node's kubelet: what happens to your pods on a
// node, step by step, from a scenario file.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"nodesim/engine"
)

// Version is nodesim's version.
const Version = "0.1.0"

// Exit codes.
const (
	exitOK          = 0
	exitExpectation = 1
	exitInvalid     = 2
	exitInvariant   = 3 // the model broke one of its invariants
)

// exitError carries an exit code to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func invalid(err error) error { return &exitError{code: exitInvalid, err: err} }

func main() {
	os.Exit(runWith(os.Args[1:], os.Stdout, os.Stderr, watchSignals()))
}

// run executes the command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int { return runWith(args, stdout, stderr, nil) }

// runWith is run with the process's signals (nil: none are caught).
func runWith(args []string, stdout, stderr io.Writer, sig *signals) int {
	root := newRootCmd(stdout, stderr, sig)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var iv *engine.InvariantViolation
	if errors.As(err, &iv) {
		fmt.Fprintf(stderr, "internal error: %v\n", err)
		return exitInvariant
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, ee.err.Error())
		}
		return ee.code
	}
	// cobra's own usage errors (unknown flag, wrong argument count)
	fmt.Fprintf(stderr, "Error: %v\nRun 'nodesim --help' for usage.\n", err)
	return exitInvalid
}

func newRootCmd(stdout, stderr io.Writer, sig *signals) *cobra.Command {
	root := &cobra.Command{
		Use:   "nodesim",
		Short: "Simulate one Kubernetes node's kubelet, deterministically",
		Long: `nodesim simulates one Kubernetes node, second by virtual second: the kubelet's syncLoop,
pod workers, PLEG, the runtime manager and the status manager, against an in-memory container
runtime that follows a scenario's script. The same scenario and seed always give the same report.

Exit codes: 0 ok, 1 an expectation failed, 2 invalid input or usage, 3 the model broke
one of its invariants, 130 and 143 stopped by SIGINT or SIGTERM.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newRunCmd(stdout, stderr, sig), newValidateCmd(stdout, stderr), newSweepCmd(stdout, stderr, sig), newScenariosCmd(stdout), newVersionCmd(stdout), newExplainCmd(stdout, stderr))
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

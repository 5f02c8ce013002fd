package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"nodesim/internal/safetext"
	"nodesim/scenarios"
)

func newValidateCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check scenario files without running them",
		Long: `Validate checks each scenario file strictly and prints every problem with its file, line and
column. A valid file's warnings (what the kubelet or the API server would log about it) go to
stderr. It exits 0 when every file is valid and 2 otherwise.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, f := range args {
				l, err := load(f, fileOptions(cmd))
				if err != nil {
					bad++
					fmt.Fprintln(stderr, strings.TrimRight(err.Error(), "\n"))
					continue
				}
				// Valid, but the kubelet or the API server would say something about it
				// (a field ignored by a lenient decode, a deprecated gate, a field dropped):
				// the same warnings a run reports.
				for _, w := range l.Warnings {
					fmt.Fprintf(stderr, "warning: %s\n", safetext.Escape(w))
				}
				fmt.Fprintf(stdout, "%s: ok\n", f)
			}
			if bad > 0 {
				return &exitError{code: exitInvalid, err: fmt.Errorf("%d of %d scenario files are invalid", bad, len(args))}
			}
			return nil
		},
	}
}

func newScenariosCmd(stdout io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "scenarios",
		Short: "List the built-in scenarios",
		Long: `Scenarios lists the scenarios shipped inside nodesim; run one with 'nodesim run NAME',
print one with 'nodesim scenarios show NAME'.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			list, err := scenarios.Builtins()
			if err != nil {
				return err
			}
			for _, b := range list {
				desc := strings.Join(strings.Fields(b.Description), " ")
				fmt.Fprintf(stdout, "%-28s %s\n", b.Name, desc)
			}
			return nil
		},
	}
	c.AddCommand(newScenariosShowCmd(stdout))
	return c
}

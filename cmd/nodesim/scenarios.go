package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"nodesim/scenarios"
)

func newScenariosShowCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Print a built-in scenario's YAML",
		Long: `Show prints the built-in scenario NAME exactly as shipped, to read or to start a new
scenario from: nodesim scenarios show crashloop > my-node.yaml.`,
		Example:           `  nodesim scenarios show crashloop > my-node.yaml`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeBuiltinOnly,
		RunE: func(_ *cobra.Command, args []string) error {
			data, err := scenarios.BuiltinSource(args[0])
			if err != nil {
				return invalid(err)
			}
			_, err = stdout.Write(data)
			return err
		},
	}
}

// builtinsWithPrefix lists the built-in scenario names that begin with prefix.
func builtinsWithPrefix(prefix string) []string {
	var out []string
	for _, n := range scenarios.BuiltinNames() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// completeScenario completes the FILE|NAME argument of run, explain and sweep: the built-in
// names that match, and files (ShellCompDirectiveDefault lets the shell offer them).
func completeScenario(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return builtinsWithPrefix(toComplete), cobra.ShellCompDirectiveDefault
}

// completeBuiltinOnly completes a built-in scenario's name and nothing else.
func completeBuiltinOnly(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return builtinsWithPrefix(toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeOutput makes -o/--output complete the formats the command accepts.
func completeOutput(c *cobra.Command, formats ...string) {
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

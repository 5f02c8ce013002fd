package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"nodesim/importer"
	"nodesim/internal/safetext"
	"nodesim/scenarios"
)

func newImportCmd(stdout, stderr io.Writer) *cobra.Command {
	var pods, configz, summary, node, out string
	c := &cobra.Command{
		Use:   "import [--pods PODS.yaml] [--configz CONFIGZ.json] [--summary SUMMARY.json] [--node NODE.yaml] [-o SCENARIO.yaml]",
		Short: "Write a scenario from a live node's captured pods, kubelet config and stats",
		Long: `Import turns what can be captured from a live node into a scenario that simulates it, offline:

  kubectl get pods -A --field-selector spec.nodeName=N -o yaml  > pods.yaml
  kubectl get --raw /api/v1/nodes/N/proxy/configz               > configz.json
  kubectl get --raw /api/v1/nodes/N/proxy/stats/summary         > summary.json
  kubectl get node N -o yaml                                    > node.yaml
  nodesim import --pods pods.yaml --configz configz.json --summary summary.json --node node.yaml -o n.yaml

Each capture is optional; one may be - (standard input). The scenario holds the node's capacity, the kubelet configuration
fields the simulation reads, every pod still running (status and server fields dropped), and
each container's captured working set, rootfs and log usage as its usage program, with
comments saying where each value came from and when it was measured. It is written to stdout,
or whole to -o FILE (a temporary file renamed into place). Warnings (what was left out) go to
stderr. Exit 2 when a capture is invalid, with its file, line and column.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var in importer.Inputs
			stdin := ""
			for _, f := range []struct {
				flag, path string
				dst        **importer.Input
			}{{"--pods", pods, &in.Pods}, {"--configz", configz, &in.Configz}, {"--summary", summary, &in.Summary}, {"--node", node, &in.Node}} {
				if f.path == "" {
					continue
				}
				read := scenarios.ReadRegular
				if f.path == "-" {
					// One capture may come from a pipe: kubectl get pods ... | nodesim import --pods -
					if stdin != "" {
						return invalid(fmt.Errorf("%s - and %s -: only one capture can be read from standard input", stdin, f.flag))
					}
					stdin = f.flag
					read = func(string) ([]byte, error) { return scenarios.ReadLimited(os.Stdin) }
				}
				data, err := read(f.path)
				if err != nil {
					return invalid(fmt.Errorf("%s: %w", f.path, err))
				}
				*f.dst = &importer.Input{Name: f.path, Data: data}
			}
			res, err := importer.Import(in)
			if err != nil {
				if errors.Is(err, importer.ErrNoInput) {
					return invalid(fmt.Errorf("%v\nRun 'nodesim import --help' for usage.", err))
				}
				return invalid(err)
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(stderr, "import: %s\n", safetext.EscapeText(w))
			}
			if out == "" || out == "-" {
				_, err := stdout.Write(res.Scenario)
				return err
			}
			f, err := createAtomic(out)
			if err != nil {
				return invalid(err)
			}
			defer f.abort()
			if _, err := f.f.Write(res.Scenario); err != nil {
				return invalid(fmt.Errorf("writing %s: %w", out, err))
			}
			if err := f.f.Sync(); err != nil {
				return invalid(fmt.Errorf("writing %s: %w", out, err))
			}
			if err := f.commit(); err != nil {
				return invalid(err)
			}
			fmt.Fprintf(stderr, "import: wrote %s (%d pods); run it with: nodesim run %s\n", out, res.Pods, shellQuote(out))
			return nil
		},
	}
	c.Flags().StringVar(&pods, "pods", "", "the node's pods: kubectl get pods -A --field-selector spec.nodeName=N -o yaml (or -o json)")
	c.Flags().StringVar(&configz, "configz", "", "the kubelet's running config: kubectl get --raw /api/v1/nodes/N/proxy/configz")
	c.Flags().StringVar(&summary, "summary", "", "the kubelet's stats: kubectl get --raw /api/v1/nodes/N/proxy/stats/summary")
	c.Flags().StringVar(&node, "node", "", "the Node object: kubectl get node N -o yaml")
	c.Flags().StringVarP(&out, "output", "o", "", "write the scenario to this file (default: stdout)")
	for _, name := range []string{"pods", "node"} {
		_ = c.MarkFlagFilename(name, "yaml", "yml", "json")
	}
	for _, name := range []string{"configz", "summary"} {
		_ = c.MarkFlagFilename(name, "json")
	}
	_ = c.MarkFlagFilename("output", "yaml", "yml")
	return c
}

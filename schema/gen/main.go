// Command gen writes the scenario JSON Schema (go generate ./schema).
package main

import (
	"fmt"
	"os"

	"nodesim/schema"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen API_SOURCE_DIR FILE")
		os.Exit(2)
	}
	data, err := schema.Scenario(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

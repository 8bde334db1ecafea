// Command crdgen writes deploy/crds from the Go API types, and the deepcopy
// functions of virtflow's own API packages.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/virtflow/virtflow/deploy/crdgen"
)

func main() {
	out := flag.String("out", "deploy/crds", "directory to write the CRD files to")
	flag.Parse()
	files, err := crdgen.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	deepcopies, err := crdgen.DeepCopy()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for path, data := range deepcopies {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

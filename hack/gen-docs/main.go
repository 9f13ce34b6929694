// Command gen-docs writes the flag reference of kubectl rollplan into the directory given as
// its one argument (make docs: docs/reference; make verify-docs: a temporary directory that
// is then compared with docs/reference).
package main

import (
	"fmt"
	"os"

	"github.com/rollplan/kubectl-rollplan/internal/docgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen-docs DIR")
		os.Exit(2)
	}
	if err := docgen.Generate(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "error: "+err.Error())
		os.Exit(1)
	}
}

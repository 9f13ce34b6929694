package printer

import (
	"fmt"
	"io"
)

// PrintVersionOutput writes v as `kubectl rollplan version -o output` asks: "" the human form
// (PrintVersion), "json" or "yaml" PrintVersionAs. Errors: an unknown format (one line naming
// the two), or the writer's.
func PrintVersionOutput(w io.Writer, v VersionInfo, output string) error {
	switch output {
	case "":
		return PrintVersion(w, v)
	case "json", "yaml":
		return PrintVersionAs(w, v, output)
	}
	return fmt.Errorf("unknown output format %q: use -o json or -o yaml", output)
}

package printer

import (
	"fmt"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// VersionInfo is what "kubectl rollplan version -o json|yaml" prints. It is no Kubernetes
// object (kubectl version's output is none either), so it goes through sigs.k8s.io/yaml
// rather than cli-runtime's printers.
type VersionInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
	Controller string `json:"controller"`
}

// PrintVersion writes the human form of `kubectl rollplan version`:
// "kubectl-rollplan VERSION (commit C, GO, OS/ARCH)" and the controller version modelled
// (planner.ControllerVersion).
func PrintVersion(w io.Writer, v VersionInfo) error {
	_, err := fmt.Fprintf(w, "kubectl-rollplan %s (commit %s, %s, %s)\nmodels the Deployment controller of Kubernetes %s\n",
		v.Version, v.Commit, v.GoVersion, v.Platform, planner.ControllerVersion)
	return err
}

// PrintVersionAs writes v as YAML (format "yaml") or as one line of JSON with sorted keys
// (any other format: the caller checks it is "json"). Errors are the marshaller's or w's.
func PrintVersionAs(w io.Writer, v VersionInfo, format string) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	if format != "yaml" {
		if b, err = yaml.YAMLToJSON(b); err != nil {
			return err
		}
		b = append(b, '\n')
	}
	_, err = w.Write(b)
	return err
}

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

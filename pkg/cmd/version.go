package cmd

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Set at build time with -ldflags "-X github.com/rollplan/kubectl-rollplan/pkg/cmd.version=..."
var (
	version = "v0.0.0-dev"
	commit  = "unknown"
)

// VersionInfo is what "kubectl rollplan version -o json|yaml" prints.
type VersionInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
	Controller string `json:"controller"`
}

// NewCmdVersion returns "kubectl rollplan version".
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin version and the controller version it models",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info := VersionInfo{
				Version:    version,
				Commit:     commit,
				GoVersion:  runtime.Version(),
				Platform:   runtime.GOOS + "/" + runtime.GOARCH,
				Controller: "kube-controller-manager " + planner.ControllerVersion,
			}
			switch output {
			case "":
				fmt.Fprintf(streams.Out, "kubectl-rollplan %s (commit %s, %s, %s)\nmodels the Deployment controller of Kubernetes %s\n",
					info.Version, info.Commit, info.GoVersion, info.Platform, planner.ControllerVersion)
			case "json", "yaml":
				b, err := yaml.Marshal(info)
				if err != nil {
					return err
				}
				if output == "json" {
					if b, err = yaml.YAMLToJSON(b); err != nil {
						return err
					}
					b = append(b, '\n')
				}
				_, err = streams.Out.Write(b)
				return err
			default:
				return fmt.Errorf("unknown output format %q: use -o json or -o yaml", output)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format. One of: json|yaml.")
	return cmd
}

package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// Set at build time with -ldflags "-X github.com/rollplan/kubectl-rollplan/pkg/cmd.version=..."
var (
	version = "v0.0.0-dev"
	commit  = "unknown"
)

// NewCmdVersion returns "kubectl rollplan version".
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the plugin version and the controller version it models",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info := printer.NewVersionInfo(version, commit)
			switch output {
			case "":
				return printer.PrintVersion(streams.Out, info)
			case "json", "yaml":
				return printer.PrintVersionAs(streams.Out, info, output)
			default:
				return fmt.Errorf("unknown output format %q: use -o json or -o yaml", output)
			}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format. One of: json|yaml.")
	return cmd
}

package cmd

import (
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
		RunE: func(*cobra.Command, []string) error {
			return printer.PrintVersionOutput(streams.Out, printer.NewVersionInfo(version, commit), output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format. One of: json|yaml.")
	return cmd
}

package cmd

import (
	"context"

	"github.com/spf13/cobra"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// options is the shape of every rollplan command, as of kubectl's: Complete resolves the
// environment (namespace, client, arguments), Validate checks the flags alone, Run does the
// work.
type options interface {
	Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE returns a cobra RunE that runs o's Complete, Validate and Run in turn.
func runE(f cmdutil.Factory, o options) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(f, cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}

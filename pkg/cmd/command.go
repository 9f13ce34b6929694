package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
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

// addReadinessFlag registers --readiness (with completion of its values) on cmd, bound to p.
func addReadinessFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "readiness", *p, "When pods become available in the plan: batched (once the controller stops writing), instant (before every next sync) or never (new pods never do: where does it stall?).")
	_ = cmd.RegisterFlagCompletionFunc("readiness", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, r := range planner.Readinesses {
			out = append(out, string(r))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}

// validateReadiness checks a --readiness value.
func validateReadiness(s string) error {
	if _, err := planner.ParseReadiness(s); err != nil {
		return fmt.Errorf("--readiness: %w", err)
	}
	return nil
}

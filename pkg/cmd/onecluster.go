package cmd

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// guardOneCluster adds --contexts and --all-contexts to each of pipeline.WritingVerbs under
// root. With more than one context the verb is refused in one line (pipeline.OneCluster)
// before any request (the contexts are resolved from the kubeconfig only); with one it runs
// exactly as with --context. The guard runs before the verb's own PreRunE, if any.
func guardOneCluster(root *cobra.Command, kc *pipeline.Kubeconfig) {
	for _, sub := range root.Commands() {
		if !slices.Contains(pipeline.WritingVerbs, sub.Name()) {
			continue
		}
		c := &ContextFlags{Kubeconfig: kc}
		sub.Flags().StringSliceVar(&c.Contexts, "contexts", nil, "One context of the kubeconfig (as --context): "+sub.Name()+" writes to one cluster, so more than one is refused.")
		sub.Flags().BoolVar(&c.All, "all-contexts", false, "Refused unless the kubeconfig has one context: "+sub.Name()+" writes to one cluster.")
		_ = sub.RegisterFlagCompletionFunc("contexts", c.complete)
		verb, next := sub.Name(), sub.PreRunE
		sub.PreRunE = func(cmd *cobra.Command, args []string) error {
			if err := c.resolve(cmd); err != nil {
				return err
			}
			if err := pipeline.OneCluster(verb, c.resolved); err != nil || next == nil {
				return err
			}
			return next(cmd, args)
		}
	}
}

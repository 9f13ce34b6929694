package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// writingVerbs are the commands that write to a cluster: one cluster per write, so they take
// --contexts and --all-contexts only to refuse more than one context (issue 19). One context
// is --context.
var writingVerbs = []string{"undo", "pause", "resume", "restart", "drive", "abort"}

// guardOneCluster adds --contexts and --all-contexts to each writing verb under root. With
// more than one context the verb is refused in one line before any request (the contexts are
// resolved from the kubeconfig only); with one it runs exactly as with --context. The guard
// runs before the verb's own PreRunE, if any.
func guardOneCluster(root *cobra.Command, kc *pipeline.Kubeconfig) {
	for _, sub := range root.Commands() {
		if !slices.Contains(writingVerbs, sub.Name()) {
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
			if c.many() {
				return fmt.Errorf("%s writes to one cluster: --contexts names %d contexts (%s); run it once per context with --context", verb, len(c.resolved), strings.Join(c.resolved, ", "))
			}
			if next != nil {
				return next(cmd, args)
			}
			return nil
		}
	}
}

package cmd

import (
	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// ContextFlags are --contexts and --all-contexts: a read-only command run in several contexts
// of the kubeconfig, each a pipeline Source read at the same time as the others.
type ContextFlags struct {
	// Contexts is --contexts=A,B: contexts of the kubeconfig, in the order given.
	Contexts []string
	// All is --all-contexts: every context of the kubeconfig, sorted by name.
	All bool
	// Kubeconfig reaches the contexts (set from the root's connection flags; nil refuses
	// the flags).
	Kubeconfig *pipeline.Kubeconfig

	resolved []string
}

// addFlags registers --contexts (help: contexts) and --all-contexts (help: all) on cmd,
// with completion of the kubeconfig's context names.
func (c *ContextFlags) addFlags(cmd *cobra.Command, contexts, all string) {
	cmd.Flags().StringSliceVar(&c.Contexts, "contexts", nil, contexts)
	cmd.Flags().BoolVar(&c.All, "all-contexts", false, all)
	_ = cmd.RegisterFlagCompletionFunc("contexts", c.complete)
}

// given reports whether --contexts or --all-contexts was given.
func (c *ContextFlags) given() bool { return len(c.Contexts) > 0 || c.All }

// many reports whether the command runs in more than one context.
func (c *ContextFlags) many() bool { return len(c.resolved) > 1 }

// resolve checks the flags and resolves the contexts before any request; one context becomes
// --context (pipeline.Kubeconfig.ResolveContextFlags).
func (c *ContextFlags) resolve(cmd *cobra.Command) (err error) {
	if c.given() {
		c.resolved, err = c.Kubeconfig.ResolveContextFlags(c.Contexts, c.All, cmd.Flags().Changed("context"))
	}
	return err
}

// sources returns the Live Source of each context, in order (pipeline.Kubeconfig.Sources).
func (c *ContextFlags) sources() ([]*pipeline.Live, []error) {
	return c.Kubeconfig.Sources(c.resolved)
}

// complete completes --contexts (pipeline.Kubeconfig.CompleteContexts).
func (c *ContextFlags) complete(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	names, err := c.Kubeconfig.CompleteContexts(toComplete)
	switch {
	case err != nil:
		cobra.CompDebugln("rollplan: "+err.Error(), true)
		fallthrough
	case c.Kubeconfig == nil:
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return names, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
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

// contextsOf returns the Kubeconfig of the root's connection flags, its clients tuned as
// every read over many Deployments (fleetTune).
func contextsOf(flags *genericclioptions.ConfigFlags) *pipeline.Kubeconfig {
	return &pipeline.Kubeconfig{Flags: flags, Tune: fleetTune}
}

// given reports whether --contexts or --all-contexts was given.
func (c *ContextFlags) given() bool { return len(c.Contexts) > 0 || c.All }

// many reports whether the command runs in more than one context.
func (c *ContextFlags) many() bool { return len(c.resolved) > 1 }

// resolve checks the flags and resolves the contexts before any request
// (pipeline.Kubeconfig.ResolveFlags: --context with them, both flags together, an unknown
// context naming the kubeconfig's are refused). One
// context becomes --context: the command then runs, and prints, exactly as with it.
func (c *ContextFlags) resolve(cmd *cobra.Command) error {
	if !c.given() {
		return nil
	}
	names, err := c.Kubeconfig.ResolveFlags(c.Contexts, c.All, cmd.Flags().Changed("context"))
	if err != nil {
		return err
	}
	c.resolved = names
	if len(names) == 1 {
		*c.Kubeconfig.Flags.Context = names[0]
	}
	return nil
}

// sources returns the Live Source of each context, in order (pipeline.Kubeconfig.Sources).
func (c *ContextFlags) sources() ([]*pipeline.Live, []error) {
	return c.Kubeconfig.Sources(c.resolved)
}

// complete completes --contexts: the kubeconfig's contexts not given yet, after the names
// already typed ("prod-eu,<TAB>").
func (c *ContextFlags) complete(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if c.Kubeconfig == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	known, err := c.Kubeconfig.Contexts()
	if err != nil {
		cobra.CompDebugln("rollplan: "+err.Error(), true)
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return pipeline.CompleteList(known, toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeContexts is Complete across contexts: the selection (no request), and for -f/-k
// the namespace of the set and the one Deployment named, as for one context.
func (o *PreviewOptions) completeContexts(f cmdutil.Factory, args []string) error {
	if o.manifests() && len(args) == 0 {
		return o.completeSet(f)
	}
	if err := o.Fleet.complete(f, args, "", nil); err != nil {
		return err
	}
	if o.manifests() {
		return o.Target.complete(f, args, "", nil)
	}
	return nil
}

// noneFound is kubectl's line for an empty selection (printer.NoneFound).
func noneFound(namespace string) string { return printer.NoneFound(namespace) }

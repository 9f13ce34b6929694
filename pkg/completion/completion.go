// Package completion holds the cobra bindings of pipeline.Completer: the ValidArgsFunctions
// and flag completion functions rollplan's commands take, as kubectl's own live in
// k8s.io/kubectl/pkg/util/completion apart from its commands. The listing (names, revisions,
// contexts, namespaces) is pipeline.Completer's; pkg/cmd calls AttachCompletions once on its
// root.
package completion

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// completionTimeout bounds the API calls one completion makes: a shell waits on them.
const completionTimeout = 5 * time.Second

// RegisterGlobalFlagCompletions completes the values of kubectl's connection flags on root, as
// kubectl does (registerCompletionFuncForGlobalFlags, k8s.io/kubectl pkg/cmd/cmd.go): -n with
// the cluster's namespaces, --context, --cluster and --user with the kubeconfig's entries. Flags
// root does not have, or that have a completion function already, are left alone.
func RegisterGlobalFlagCompletions(root *cobra.Command, f cmdutil.Factory) {
	for _, flag := range []string{"namespace", "context", "cluster", "user"} {
		if root.PersistentFlags().Lookup(flag) == nil {
			continue
		}
		if _, exists := root.GetFlagCompletionFunc(flag); exists {
			continue
		}
		_ = root.RegisterFlagCompletionFunc(flag, func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if flag != "namespace" {
				cfg, err := f.ToRawKubeConfigLoader().RawConfig()
				if err != nil {
					cobra.CompDebugln("rollplan: read kubeconfig: "+err.Error(), true)
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return pipeline.KubeconfigNames(cfg, flag, toComplete), cobra.ShellCompDirectiveNoFileComp
			}
			client, err := f.KubernetesClientSet()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeWith(cmd, cobra.ShellCompDirectiveNoFileComp, func(ctx context.Context) ([]string, error) {
				return pipeline.CompleteNamespaces(ctx, client, toComplete)
			})
		})
	}
}

// completeWith returns what list completes within completionTimeout of cmd's context, and
// directive; an error is written to cobra's debug log, never to the shell.
func completeWith(cmd *cobra.Command, directive cobra.ShellCompDirective, list func(context.Context) ([]string, error)) ([]string, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	comps, err := list(ctx)
	if err != nil {
		cobra.CompDebugln("rollplan: "+err.Error(), true)
	}
	return comps, directive
}

// deploymentArgUse is how a command's Use line names a Deployment as its first argument; every
// rollplan command that takes one says it this way.
const deploymentArgUse = "(deploy/NAME | NAME)"

// AttachCompletions wires dynamic completion into the command tree under root: the connection
// flags (RegisterGlobalFlagCompletions); for every command whose Use line takes
// "(deploy/NAME | NAME)", Deployment names for the argument (DeploymentNameCompletion) and
// revisions for its --to-revision and --revision flags (RevisionCompletion). A command or flag
// that already has a completion function keeps it. Call it once, after adding the commands.
func AttachCompletions(root *cobra.Command, f cmdutil.Factory) {
	RegisterGlobalFlagCompletions(root, f)
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if strings.Contains(c.Use, deploymentArgUse) {
			if c.ValidArgsFunction == nil && takesManyNames(c.Use) {
				c.ValidArgsFunction = DeploymentNamesCompletion(f)
			}
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = DeploymentNameCompletion(f)
			}
			for _, flag := range []string{"to-revision", "revision"} {
				if c.Flags().Lookup(flag) == nil {
					continue
				}
				if _, exists := c.GetFlagCompletionFunc(flag); !exists {
					_ = c.RegisterFlagCompletionFunc(flag, RevisionCompletion(f))
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// DeploymentNameCompletion returns a ValidArgsFunction for a command whose first argument is a
// Deployment: pipeline.Completer.DeploymentName of the namespace the command line selects (f
// resolves -n, --context, --kubeconfig ...). Every error (no cluster, forbidden) completes
// nothing; file completion is always off.
//
//	cmd.ValidArgsFunction = DeploymentNameCompletion(f)
func DeploymentNameCompletion(f cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeWith(cmd, cobra.ShellCompDirectiveNoFileComp, func(ctx context.Context) ([]string, error) {
			return CompleterOf(f).DeploymentName(ctx, args, toComplete)
		})
	}
}

// takesManyNames reports whether a command's Use line takes several Deployment names
// ("(deploy/NAME | NAME) ..." or "[NAME ...]").
func takesManyNames(use string) bool {
	return strings.Contains(use, deploymentArgUse+" ...") || strings.Contains(use, "[NAME ...]")
}

// DeploymentNamesCompletion is DeploymentNameCompletion for a command that takes several
// names (pipeline.Completer.DeploymentNames); a command whose --diff is set (history: its
// later arguments are revisions) completes only the first argument.
//
//	cmd.ValidArgsFunction = DeploymentNamesCompletion(f)
func DeploymentNamesCompletion(f cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		d := cmd.Flags().Lookup("diff")
		return completeWith(cmd, cobra.ShellCompDirectiveNoFileComp, func(ctx context.Context) ([]string, error) {
			return CompleterOf(f).DeploymentNames(ctx, args, toComplete, d != nil && d.Changed)
		})
	}
}

// RevisionCompletion returns a flag completion function for --to-revision and --revision:
// pipeline.Completer.Revisions of the Deployment named by the command's first argument, newest
// first ("3<TAB>nginx:1.27 (current)"). Without a Deployment argument, and on any error, it
// completes nothing.
//
//	cmd.RegisterFlagCompletionFunc("to-revision", RevisionCompletion(f))
func RevisionCompletion(f cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var listed bool
		comps, directive := completeWith(cmd, cobra.ShellCompDirectiveNoFileComp, func(ctx context.Context) (comps []string, err error) {
			comps, listed, err = CompleterOf(f).Revisions(ctx, args, toComplete)
			return comps, err
		})
		if listed {
			directive |= cobra.ShellCompDirectiveKeepOrder
		}
		return comps, directive
	}
}

// CompleterOf returns the pipeline.Completer of f: the namespace of -n or the kubeconfig, and
// f's clientset.
func CompleterOf(f cmdutil.Factory) pipeline.Completer {
	return pipeline.Completer{Connect: func() (kubernetes.Interface, string, error) {
		ns, _, err := f.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return nil, "", fmt.Errorf("resolve namespace: %w", err)
		}
		client, err := f.KubernetesClientSet()
		if err != nil {
			return nil, "", fmt.Errorf("build client: %w", err)
		}
		return client, ns, nil
	}}
}

// CompletionShells are the shells "completion SHELL" writes code for.
var CompletionShells = []string{"bash", "zsh", "fish", "powershell"}

// CompletionArgsProblem returns what is wrong with the arguments of "completion SHELL" (one
// line naming the shells), or "" when they name one of CompletionShells.
func CompletionArgsProblem(args []string) string {
	shells := strings.Join(CompletionShells, ", ")
	switch {
	case len(args) == 0:
		return "shell not specified: use one of " + shells
	case len(args) > 1:
		return "too many arguments: expected only the shell, one of " + shells
	case !slices.Contains(CompletionShells, args[0]):
		return fmt.Sprintf("unsupported shell %q: use one of %s", args[0], shells)
	}
	return ""
}

// GenCompletion writes cobra's completion code of root for shell (one of CompletionShells) on
// w: bash v2 and fish with descriptions, zsh, powershell with descriptions.
func GenCompletion(root *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	default:
		return root.GenPowerShellCompletionWithDesc(w)
	}
}

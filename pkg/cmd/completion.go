package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// completionTimeout bounds the API calls one completion makes: a shell waits on them.
const completionTimeout = 5 * time.Second

var (
	completionLong = templates.LongDesc(`
		Output shell completion code for the specified shell (bash, zsh, fish, or powershell).

		Commands, flags, Deployment names and revision numbers complete in two ways:

		* TAB after "kubectl rollplan": kubectl 1.26 or later completes a plugin's arguments by
		running the executable kubectl_complete-rollplan, which it looks up on PATH. The helper
		ships in the release archive next to kubectl-rollplan; Krew links only kubectl-rollplan
		into its bin directory, so copy the helper there once (see the examples). Then
		kubectl's own completion ("kubectl completion bash") completes rollplan too, and the
		output of this command is not needed.

		* TAB after "kubectl-rollplan": the code this command prints completes the plugin called
		directly, as a program of its own. Evaluate it in your shell, or source it from your
		shell's start-up file.

		Deployment names are completed from the namespace the command line selects (-n,
		--context, --kubeconfig), revisions from the Deployment's ReplicaSets; both need
		list permission on those resources.`)

	completionExample = templates.Examples(`
		# Complete "kubectl rollplan ..." with kubectl's own completion (kubectl >= 1.26),
		# after "kubectl krew install rollplan":
		cp "${KREW_ROOT:-$HOME/.krew}"/store/rollplan/*/kubectl_complete-rollplan "${KREW_ROOT:-$HOME/.krew}/bin/"
		source <(kubectl completion bash)

		# Load completion of kubectl-rollplan into the current bash shell
		source <(kubectl rollplan completion bash)

		# Load it in every new bash shell
		kubectl rollplan completion bash > ~/.kubectl-rollplan-completion.bash
		echo 'source ~/.kubectl-rollplan-completion.bash' >> ~/.bashrc

		# zsh (the directory must be on $fpath before compinit runs)
		kubectl rollplan completion zsh > "${fpath[1]}/_kubectl-rollplan"

		# fish
		kubectl rollplan completion fish > ~/.config/fish/completions/kubectl-rollplan.fish

		# PowerShell
		kubectl rollplan completion powershell | Out-String | Invoke-Expression`)
)

// NewCmdCompletion returns "kubectl rollplan completion SHELL": cobra's completion code for
// bash (v2, with descriptions), zsh, fish and powershell, for the root command.
func NewCmdCompletion(streams genericiooptions.IOStreams) *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:                   "completion SHELL",
		DisableFlagsInUseLine: true,
		Short:                 "Output shell completion code for the specified shell (bash, zsh, fish, or powershell)",
		Long:                  completionLong,
		Example:               completionExample,
		ValidArgs:             shells,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return cmdutil.UsageErrorf(cmd, "shell not specified: use one of %s", strings.Join(shells, ", "))
			case len(args) > 1:
				return cmdutil.UsageErrorf(cmd, "too many arguments: expected only the shell, one of %s", strings.Join(shells, ", "))
			case !slices.Contains(shells, args[0]):
				return cmdutil.UsageErrorf(cmd, "unsupported shell %q: use one of %s", args[0], strings.Join(shells, ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(streams.Out, true)
			case "zsh":
				return root.GenZshCompletion(streams.Out)
			case "fish":
				return root.GenFishCompletion(streams.Out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(streams.Out)
			}
		},
	}
}

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
			return completer(f).DeploymentName(ctx, args, toComplete)
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
			return completer(f).DeploymentNames(ctx, args, toComplete, d != nil && d.Changed)
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
			comps, listed, err = completer(f).Revisions(ctx, args, toComplete)
			return comps, err
		})
		if listed {
			directive |= cobra.ShellCompDirectiveKeepOrder
		}
		return comps, directive
	}
}

// completer returns the pipeline.Completer of f: the namespace of -n or the kubeconfig, and
// f's clientset.
func completer(f cmdutil.Factory) pipeline.Completer {
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

package cmd

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
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
	kubeconfig := func(entries func(clientcmdapi.Config) []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			cfg, err := f.ToRawKubeConfigLoader().RawConfig()
			if err != nil {
				cobra.CompDebugln("rollplan: read kubeconfig: "+err.Error(), true)
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return withPrefix(entries(cfg), toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
	fns := []struct {
		flag string
		fn   func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)
	}{
		{"namespace", func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			client, err := f.KubernetesClientSet()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
			defer cancel()
			names, err := pipeline.NamespaceNames(ctx, client)
			if err != nil {
				cobra.CompDebugln("rollplan: "+err.Error(), true)
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
		}},
		{"context", kubeconfig(func(c clientcmdapi.Config) []string { return slices.Collect(maps.Keys(c.Contexts)) })},
		{"cluster", kubeconfig(func(c clientcmdapi.Config) []string { return slices.Collect(maps.Keys(c.Clusters)) })},
		{"user", kubeconfig(func(c clientcmdapi.Config) []string { return slices.Collect(maps.Keys(c.AuthInfos)) })},
	}
	for _, x := range fns {
		if root.PersistentFlags().Lookup(x.flag) == nil {
			continue
		}
		if _, exists := root.GetFlagCompletionFunc(x.flag); exists {
			continue
		}
		_ = root.RegisterFlagCompletionFunc(x.flag, x.fn)
	}
}

// withPrefix returns the sorted names that start with prefix.
func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
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
// Deployment (NAME or TYPE/NAME, the forms of target.ParseName): it completes the names of the
// Deployments in the namespace the command line selects (f resolves -n, --context,
// --kubeconfig ...), keeping a typed "deploy/" (or "deployments.v1.apps/" ...) prefix; after a
// bare type ("deployment <TAB>", kubectl's TYPE NAME) it completes plain names. Later arguments, and every error (no cluster, forbidden), complete nothing;
// file completion is always off.
//
//	cmd.ValidArgsFunction = DeploymentNameCompletion(f)
func DeploymentNameCompletion(f cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 1 || len(args) == 1 && !target.IsDeploymentType(args[0]) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if len(args) == 1 && strings.Contains(toComplete, "/") {
			return nil, cobra.ShellCompDirectiveNoFileComp // TYPE TYPE/NAME is refused
		}
		client, ns, err := completionClient(f)
		if err != nil {
			cobra.CompDebugln("rollplan: "+err.Error(), true)
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
		defer cancel()
		comps, err := pipeline.CompleteDeploymentNames(ctx, client, ns, toComplete)
		if err != nil {
			cobra.CompDebugln("rollplan: "+err.Error(), true)
		}
		return comps, cobra.ShellCompDirectiveNoFileComp
	}
}

// takesManyNames reports whether a command's Use line takes several Deployment names
// ("(deploy/NAME | NAME) ..." or "[NAME ...]").
func takesManyNames(use string) bool {
	return strings.Contains(use, deploymentArgUse+" ...") || strings.Contains(use, "[NAME ...]")
}

// DeploymentNamesCompletion is DeploymentNameCompletion for a command that takes several
// names (preview, history, undo, pause, resume, restart): every argument completes, not only
// the first, leaving out the names already on the line; after a bare type ("deployment a
// <TAB>") plain names. A command whose --diff is set (history: its later arguments are
// revisions) completes only the first argument.
//
//	cmd.ValidArgsFunction = DeploymentNamesCompletion(f)
func DeploymentNamesCompletion(f cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	one := DeploymentNameCompletion(f)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 || len(args) == 1 && target.IsDeploymentType(args[0]) {
			return one(cmd, args, toComplete)
		}
		if d := cmd.Flags().Lookup("diff"); d != nil && d.Changed {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		typed := args
		bareType := target.IsDeploymentType(args[0])
		if bareType {
			typed = args[1:]
			if strings.Contains(toComplete, "/") {
				return nil, cobra.ShellCompDirectiveNoFileComp // TYPE TYPE/NAME is refused
			}
		}
		given := map[string]bool{}
		for _, a := range typed {
			if name, err := target.ParseName(a); err == nil {
				given[name] = true
			}
		}
		comps, directive := one(cmd, nil, toComplete)
		var out []string
		for _, c := range comps {
			if name, err := target.ParseName(c); err == nil && given[name] {
				continue
			}
			out = append(out, c)
		}
		return out, directive
	}
}

// RevisionCompletion returns a flag completion function for --to-revision and --revision: the
// revisions of the Deployment named by the command's first argument, read from the
// deployment.kubernetes.io/revision annotations of the ReplicaSets it owns, newest first, each
// described by its images ("3<TAB>nginx:1.27 (current)"). Without a Deployment argument, and on
// any error, it completes nothing.
//
//	cmd.RegisterFlagCompletionFunc("to-revision", RevisionCompletion(f))
func RevisionCompletion(f cmdutil.Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		name, err := deploymentArg(args)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		client, ns, err := completionClient(f)
		if err != nil {
			cobra.CompDebugln("rollplan: "+err.Error(), true)
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
		defer cancel()
		comps, err := pipeline.CompleteRevisions(ctx, client, ns, name, toComplete)
		if err != nil {
			cobra.CompDebugln("rollplan: "+err.Error(), true)
		}
		return comps, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// deploymentArg returns the Deployment the leading arguments name, as target.ParseArgs reads
// them: TYPE NAME when the first is a bare Deployment type and a second follows, else the first
// alone (later arguments are --diff's revisions).
func deploymentArg(args []string) (string, error) {
	if len(args) > 1 && target.IsDeploymentType(args[0]) {
		return target.ParseArgs(args[:2])
	}
	return target.ParseName(args[0])
}

func completionClient(f cmdutil.Factory) (kubernetes.Interface, string, error) {
	ns, _, err := f.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("resolve namespace: %w", err)
	}
	client, err := f.KubernetesClientSet()
	if err != nil {
		return nil, "", fmt.Errorf("build client: %w", err)
	}
	return client, ns, nil
}

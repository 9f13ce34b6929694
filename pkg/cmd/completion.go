package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/completion"
)

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
	return &cobra.Command{
		Use:                   "completion SHELL",
		DisableFlagsInUseLine: true,
		Short:                 "Output shell completion code for the specified shell (bash, zsh, fish, or powershell)",
		Long:                  completionLong,
		Example:               completionExample,
		ValidArgs:             completion.CompletionShells,
		Args: func(cmd *cobra.Command, args []string) error {
			if msg := completion.CompletionArgsProblem(args); msg != "" {
				return cmdutil.UsageErrorf(cmd, "%s", msg)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return completion.GenCompletion(cmd.Root(), args[0], streams.Out)
		},
	}
}

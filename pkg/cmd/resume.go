package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

var (
	resumeLong = templates.LongDesc(`
		Resume a paused Deployment, as 'kubectl rollout resume' does, after showing the
		rollout that resuming starts: for a Deployment paused with a pending template change,
		every ReplicaSet write of the whole rollout.

		The patch is kubectl's, {"spec":{"paused":null}}, sent with the previewed
		resourceVersion as a precondition: if the Deployment changed meanwhile nothing is
		written.`)

	resumeExample = templates.Examples(`
		# What does resuming roll out? (nothing is changed)
		kubectl rollplan resume deploy/web --dry-run=client

		# Resume
		kubectl rollplan resume deploy/web

		# Resume every Deployment labelled tier=front, without asking
		kubectl rollplan resume -l tier=front --yes`)
)

// NewCmdResume returns "kubectl rollplan resume".
func NewCmdResume(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewActionOptions(rollout.VerbResume, streams)
	return newActionCommand(f, o, "Resume a paused Deployment after showing the rollout it starts", resumeLong, resumeExample)
}

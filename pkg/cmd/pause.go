package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

var (
	pauseLong = templates.LongDesc(`
		Pause a Deployment, as 'kubectl rollout pause' does, after showing what the paused
		controller will do right now.

		A paused Deployment still gets proportional scaling: in the middle of a rollout the
		controller may top the ReplicaSets up to replicas+maxSurge, and revisionHistoryLimit
		cleanup still runs. The preview lists those writes (new pods assumed never to become
		available). The patch is kubectl's, {"spec":{"paused":true}}, sent with the previewed
		resourceVersion as a precondition: if the Deployment changed meanwhile nothing is
		written.`)

	pauseExample = templates.Examples(`
		# What happens if I pause now? (nothing is changed)
		kubectl rollplan pause deploy/web --dry-run=client

		# Pause
		kubectl rollplan pause deploy/web

		# Pause every Deployment in the namespace (one preview each, one question)
		kubectl rollplan pause --all`)
)

// NewCmdPause returns "kubectl rollplan pause".
func NewCmdPause(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewActionOptions(rollout.VerbPause, streams)
	return newActionCommand(f, o, "Pause a Deployment after showing what the paused controller does right now", pauseLong, pauseExample)
}

package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

var (
	restartLong = templates.LongDesc(`
		Restart a Deployment's pods, as 'kubectl rollout restart' does, after showing the plan
		of the rollout it starts.

		The pod template gets the annotation kubectl.kubernetes.io/restartedAt with the current
		time, which makes a new ReplicaSet. A paused Deployment is refused with kubectl's
		message. The patch is kubectl's strategic merge patch, sent with the previewed
		resourceVersion as a precondition: if the Deployment changed meanwhile nothing is
		written.

		StatefulSets and DaemonSets (sts/NAME, ds/NAME, or the type with -l/--all) get kubectl's restartedAt patch as well
		(docs/statefulsets-daemonsets.md).`)

	restartExample = templates.Examples(`
		# How will the restart roll? (nothing is changed)
		kubectl rollplan restart deploy/web --dry-run=client

		# Restart, checking the change with the API server first
		kubectl rollplan restart deploy/web --dry-run=server
		kubectl rollplan restart deploy/web

		# Restart every Deployment labelled app=web, after one preview each and one question
		kubectl rollplan restart deploy -l app=web

		# Restart two Deployments without asking
		kubectl rollplan restart deploy/web deploy/api --yes`)
)

// NewCmdRestart returns "kubectl rollplan restart".
func NewCmdRestart(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewActionOptions(rollout.VerbRestart, streams)
	return newActionCommand(f, o, "Restart a Deployment's pods after showing the rollout it starts", restartLong, restartExample)
}

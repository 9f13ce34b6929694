package cmd

import (
	"github.com/spf13/cobra"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// ChangeFlags are the flags that describe the change a command previews (and drive makes):
// shared by preview and drive so that both mean the same by them. The change and its methods
// (Any, HasManifest, Validate, Apply, Desired, ServerDesired) are pipeline.DeploymentChange's.
type ChangeFlags struct {
	pipeline.DeploymentChange
}

// AddFlags registers --image, -f/--filename, --replicas, --to-revision and --restart.
func (c *ChangeFlags) AddFlags(cmd *cobra.Command) {
	c.addFlags(cmd)
	cmd.Flags().StringVarP(&c.Filename, "filename", "f", "", "The Deployment manifest you are about to apply ('-' reads standard input).")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
}

// addFlags registers the change flags but -f: preview's -f/-R/-k are kubectl's
// FilenameOptions (a manifest set).
func (c *ChangeFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&c.Images, "image", nil, "Change a container's image, as 'kubectl set image': CONTAINER=IMAGE, or *=IMAGE for every container. Repeatable.")
	fl.Int32Var(&c.Replicas, "replicas", 0, "Change spec.replicas.")
	fl.Int64Var(&c.ToRevision, "to-revision", 0, "Preview what 'kubectl rollout undo --to-revision N' rolls out (0: the previous revision).")
	fl.BoolVar(&c.Restart, "restart", false, "Preview what 'kubectl rollout restart' rolls out.")
	prev := cmd.PreRun
	cmd.PreRun = func(cmd *cobra.Command, args []string) {
		if prev != nil {
			prev(cmd, args)
		}
		c.ReplicasSet, c.ToRevisionSet = cmd.Flags().Changed("replicas"), cmd.Flags().Changed("to-revision")
	}
}

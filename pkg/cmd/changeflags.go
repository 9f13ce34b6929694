package cmd

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// ChangeFlags are the flags that describe the change a command previews (and drive makes):
// shared by preview and drive so that both mean the same by them. The change itself is
// pipeline.DeploymentChange (change()); the methods below hand it the flags.
type ChangeFlags struct {
	Images   []string
	Filename string
	// Manifest, when set, is the Deployment of a manifest set (preview -f/-k) to apply instead
	// of reading Filename: one object the resource.Builder already read.
	Manifest   *unstructured.Unstructured
	Replicas   int32
	ToRevision int64
	Restart    bool

	replicasSet, toRevisionSet bool
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
	cmd.PreRun = chainPreRun(cmd.PreRun, func(cmd *cobra.Command, _ []string) {
		c.replicasSet = cmd.Flags().Changed("replicas")
		c.toRevisionSet = cmd.Flags().Changed("to-revision")
	})
}

func chainPreRun(prev, next func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(cmd *cobra.Command, args []string) {
		if prev != nil {
			prev(cmd, args)
		}
		next(cmd, args)
	}
}

// change returns the change the flags give.
func (c *ChangeFlags) change() pipeline.DeploymentChange {
	return pipeline.DeploymentChange{Images: c.Images, Filename: c.Filename, Manifest: c.Manifest, Replicas: c.Replicas,
		ToRevision: c.ToRevision, Restart: c.Restart, ReplicasSet: c.replicasSet, ToRevisionSet: c.toRevisionSet}
}

// Any reports whether a change flag was given.
func (c *ChangeFlags) Any() bool { return c.change().Any() }

// HasManifest reports whether the change applies a manifest (-f, or a manifest set's
// Deployment).
func (c *ChangeFlags) HasManifest() bool { return c.change().HasManifest() }

// Validate checks the flags alone (pipeline.DeploymentChange.Validate).
func (c *ChangeFlags) Validate() error { return c.change().Validate() }

// Apply is pipeline.DeploymentChange.Apply of the flags.
func (c *ChangeFlags) Apply(live *appsv1.Deployment, owned []*appsv1.ReplicaSet, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error) {
	return c.change().Apply(live, owned, in, now)
}

// loadState is pipeline.LoadState.
func loadState(ctx context.Context, client func() (kubernetes.Interface, error), stateFile, namespace, name string, allowMissing bool) (*pipeline.State, error) {
	return pipeline.LoadState(ctx, client, stateFile, namespace, name, allowMissing)
}

// Desired is pipeline.DeploymentChange.Desired of the flags.
func (c *ChangeFlags) Desired(st *pipeline.State, namespace string, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error) {
	return c.change().Desired(st, namespace, in, now)
}

// ServerDesired is pipeline.DeploymentChange.ServerDesired of the flags.
func (c *ChangeFlags) ServerDesired(ctx context.Context, cs kubernetes.Interface, st *pipeline.State, namespace string, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error) {
	return c.change().ServerDesired(ctx, cs, st, namespace, in, now)
}

// serverDryRun is pipeline.DesiredDryRun.
func serverDryRun(ctx context.Context, cs kubernetes.Interface, st *pipeline.State, desired *appsv1.Deployment) (*appsv1.Deployment, []string, error) {
	return pipeline.DesiredDryRun(ctx, cs, st, desired)
}

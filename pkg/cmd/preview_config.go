package cmd

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// runConfig previews a manifest set of ConfigMaps and Secrets (and no Deployment): each is
// dry-run on the server, and the Deployments of its namespace whose pods would see a changed
// key are shown with the restart's plan (reloadoneshot.PreviewFlags.Config); -o: a
// RolloutPlanList of the restarts, as a mixed set's config restarts (manifest.change
// ConfigRestart, with the config section; printer.PreviewView.PrintConfigPreview). Nothing is
// changed.
func (o *PreviewOptions) runConfig(ctx context.Context, set *pipeline.ManifestSet, objs []*unstructured.Unstructured) error {
	switch {
	case o.StateFile != "":
		return errors.New("a ConfigMap or Secret manifest is previewed against the cluster (a server-side dry run, then its namespace's Deployments): drop --state-file")
	case o.Change.Any():
		return errors.New("--image, --replicas, --to-revision and --restart change a Deployment: the manifests hold only ConfigMaps and Secrets")
	}
	p, err := o.restartFlags().Config(ctx, objs)
	if err != nil {
		return err
	}
	_, sources := pipeline.ConfigObjectsWithSources(set)
	if err := o.view().PrintConfigPreview(o.Out, &reloadoneshot.SetPreview{Preview: p, Sources: sources}); err != nil {
		return err
	}
	if len(set.Errors) == 0 && o.FailOnStall && restartsStall(p.Targets) {
		return NewExitError(ExitStalled, "")
	}
	return o.reportErrors(set.Errors)
}

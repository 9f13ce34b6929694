package cmd

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// runConfig previews a manifest set of ConfigMaps and Secrets (and no Deployment): each is
// dry-run on the server, and the Deployments of its namespace whose pods would see a changed
// key are shown with the restart's plan (reloadoneshot.PreviewConfig); -o: a RolloutPlanList of
// the restarts, as a mixed set's config restarts (manifest.change ConfigRestart, with the
// config section). Nothing is changed.
func (o *PreviewOptions) runConfig(ctx context.Context, set *manifest.Set, objs []*unstructured.Unstructured) error {
	switch {
	case o.StateFile != "":
		return errors.New("a ConfigMap or Secret manifest is previewed against the cluster (a server-side dry run, then its namespace's Deployments): drop --state-file")
	case o.Change.Any():
		return errors.New("--image, --replicas, --to-revision and --restart change a Deployment: the manifests hold only ConfigMaps and Secrets")
	}
	cs, err := o.Client()
	if err != nil {
		return err
	}
	p, err := reloadoneshot.PreviewConfig(ctx, cs, objs, planner.Readiness(o.Readiness), o.readFleet)
	if err != nil {
		return err
	}
	if err := restartChecks(ctx, cs, o.Checks, planner.Readiness(o.Readiness), p.Targets); err != nil {
		return err
	}
	if !o.Output.Human() {
		_, sources := pipeline.ConfigObjectsWithSources(set)
		pr, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		if err := pr.PrintObj(printer.NewRolloutPlanList((&setConfig{preview: p, sources: sources}).plans()), o.Out); err != nil {
			return err
		}
	} else if err := printer.PrintConfigPreview(o.Out, p, o.view().PlanOptions(nil)); err != nil {
		return err
	}
	if len(set.Errors) == 0 && o.FailOnStall && restartsStall(p.Targets) {
		return NewExitError(ExitStalled, "")
	}
	return o.reportErrors(set.Errors)
}

package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// ChangeConfigRestart marks, in PlanManifest.Change, the plan of a live Deployment that a
// manifest set's ConfigMaps or Secrets would restart (not one of the set's Deployments).
const ChangeConfigRestart = "ConfigRestart"

// setConfig is the config-restart part of a manifest set that holds Deployments and
// ConfigMaps/Secrets: their preview (reloadoneshot.PreviewConfig, dry runs only) without the
// Deployments the set itself updates, and a note for each of those that sees a changed key.
type setConfig struct {
	preview *reloadoneshot.ConfigPreview
	sources []string // the file of each preview.Changes[i]
	notes   []string
}

// setConfigRestarts previews the restarts of the set's ConfigMaps and Secrets (nil when it
// holds none, or offline with --state-file: they are previewed against the cluster only).
// A Deployment of the set that applying it updates (or creates) is planned from the set
// only: its restart is dropped and a note says so. Errors: a dry run's, a read's or a plan's.
func (o *PreviewOptions) setConfigRestarts(ctx context.Context, set *manifest.Set, results []manifest.Result) (*setConfig, error) {
	objs, sources := pipeline.ConfigObjectsWithSources(set)
	if len(objs) == 0 || o.StateFile != "" {
		return nil, nil
	}
	cs, err := o.Client()
	if err != nil {
		return nil, err
	}
	p, err := reloadoneshot.PreviewConfig(ctx, cs, objs, planner.Readiness(o.Readiness), o.readFleet)
	if err != nil {
		return nil, err
	}
	sc := &setConfig{preview: p, sources: sources}
	var kept []*reloadoneshot.Target
	for _, t := range p.Targets {
		if r := updatedBySet(results, t); r != nil {
			sc.notes = append(sc.notes, fmt.Sprintf("Note: deployment %s: %s, but the set changes it (%s, %s): it is planned once, from the set", t.Name(), t.Reason, r.Change, r.Source))
			continue
		}
		kept = append(kept, t)
	}
	p.Targets = kept
	if err := restartChecks(ctx, cs, o.Checks, planner.Readiness(o.Readiness), p.Targets); err != nil {
		return nil, err
	}
	return sc, nil
}

// updatedBySet is the set's result for t's Deployment when applying the set changes it
// (Create or Update, or a failed plan), else nil.
func updatedBySet(results []manifest.Result, t *reloadoneshot.Target) *manifest.Result {
	d := t.State.Deployment
	for i, r := range results {
		if r.Ref.Name == d.Name && (r.Ref.Namespace == "" || r.Ref.Namespace == d.Namespace) && r.Change != manifest.ChangeNone {
			return &results[i]
		}
	}
	return nil
}

// plans is each kept restart's RolloutPlan, its Manifest marked Change ConfigRestart with
// Source the files of the objects of which its pods would see a changed key, and its Config
// section as `reload -o` gives it (printer.NewReloadPlan).
func (sc *setConfig) plans() []*v1alpha1.RolloutPlan {
	if sc == nil {
		return nil
	}
	var out []*v1alpha1.RolloutPlan
	for _, t := range sc.preview.Targets {
		if t.Plan == nil {
			continue // refused: nothing would be written
		}
		var files []string
		for i, c := range sc.preview.Changes {
			if _, changed := reload.ChangesFor(t.State.Deployment, c.Before, c.After); changed && c.Key.Namespace == t.State.Deployment.Namespace {
				files = appendUnique(files, sc.sources[i])
			}
		}
		p := printer.NewReloadPlan(t, t.Plan)
		p.Manifest = &v1alpha1.PlanManifest{Source: strings.Join(files, ","), Change: ChangeConfigRestart}
		out = append(out, p)
	}
	return out
}

// print writes the human section of the config restarts below the set's plans.
func (sc *setConfig) print(o *PreviewOptions) error {
	if sc == nil {
		return nil
	}
	return printer.PrintSetConfigPreview(o.Out, sc.preview, sc.notes, o.view().PlanOptions(nil))
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

package reloadoneshot

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// SetPreview is the config-restart part of a manifest set (preview -f/-k) that holds
// ConfigMaps or Secrets: their preview (PreviewConfig, dry runs only), the file of each of
// Preview.Changes (Sources, parallel), and, when the set also holds Deployments, a note for
// each of those the set updates whose restart was dropped (Notes).
type SetPreview struct {
	Preview *ConfigPreview
	Sources []string
	Notes   []string
}

// PreviewFlags are the flags a preview of ConfigMaps and Secrets needs: the client of the
// current context, --readiness, --checks (already validated), --state-file given, and the
// Read of a namespace's Deployments (shared with the set's plans; nil reads them here).
type PreviewFlags struct {
	Client    func() (kubernetes.Interface, error)
	Readiness string
	Checks    string
	Offline   bool
	Read      FleetReader
}

// Config previews objs (PreviewConfig: each dry-run on the server, the Deployments of their
// namespaces that would restart planned) and runs the checks on the restarts' plans
// (CheckFeasible). Errors: the client's, a dry run's, a read's, a plan's, a check's.
func (f PreviewFlags) Config(ctx context.Context, objs []*unstructured.Unstructured) (*ConfigPreview, error) {
	cs, err := f.Client()
	if err != nil {
		return nil, err
	}
	p, err := PreviewConfig(ctx, cs, objs, planner.Readiness(f.Readiness), f.Read)
	if err != nil {
		return nil, err
	}
	if err := CheckFeasible(ctx, cs, f.Checks, planner.Readiness(f.Readiness), p.Targets); err != nil {
		return nil, err
	}
	return p, nil
}

// Set previews the restarts of the set's ConfigMaps and Secrets (nil when it holds none, or
// offline: they are previewed against the cluster only). A Deployment of the set that
// applying it updates (or creates), results, is planned from the set only: its restart is
// dropped and a note says so. Errors: a dry run's, a read's, a plan's or a check's.
func (f PreviewFlags) Set(ctx context.Context, set *manifest.Set, results []manifest.Result) (*SetPreview, error) {
	objs, sources := pipeline.ConfigObjectsWithSources(set)
	if len(objs) == 0 || f.Offline {
		return nil, nil
	}
	cs, err := f.Client()
	if err != nil {
		return nil, err
	}
	p, err := PreviewConfig(ctx, cs, objs, planner.Readiness(f.Readiness), f.Read)
	if err != nil {
		return nil, err
	}
	sc := &SetPreview{Preview: p, Sources: sources}
	var kept []*Target
	for _, t := range p.Targets {
		if r := updatedBySet(results, t); r != nil {
			sc.Notes = append(sc.Notes, fmt.Sprintf("Note: deployment %s: %s, but the set changes it (%s, %s): it is planned once, from the set", t.Name(), t.Reason, r.Change, r.Source))
			continue
		}
		kept = append(kept, t)
	}
	p.Targets = kept
	if err := CheckFeasible(ctx, cs, f.Checks, planner.Readiness(f.Readiness), p.Targets); err != nil {
		return nil, err
	}
	return sc, nil
}

// updatedBySet is the set's result for t's Deployment when applying the set changes it
// (Create or Update, or a failed plan), else nil.
func updatedBySet(results []manifest.Result, t *Target) *manifest.Result {
	d := t.State.Deployment
	for i, r := range results {
		if r.Ref.Name == d.Name && (r.Ref.Namespace == "" || r.Ref.Namespace == d.Namespace) && r.Change != manifest.ChangeNone {
			return &results[i]
		}
	}
	return nil
}

// Stalls reports whether a kept restart's plan stalls (Stalls of its targets); false for nil.
func (sp *SetPreview) Stalls() bool {
	return sp != nil && Stalls(sp.Preview.Targets)
}

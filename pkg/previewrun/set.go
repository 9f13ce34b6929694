package previewrun

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// runSet previews a manifest set (-f/-k), routed by pipeline.SetRead.Read. With a name, or
// with exactly one Deployment in the set, it is the preview of that Deployment (its manifest
// applied, then the other change flags). Otherwise every Deployment is planned
// (pipeline.PlanSet), and the restarts its ConfigMaps and Secrets would cause are previewed
// below (reloadoneshot.PreviewFlags.Set; a set of one Deployment and such objects is
// previewed as a set). Files that could not be read, and Deployments that could not be
// planned, are each one line on stderr after the plans, and the exit code is 1.
func (o *preview) runSet(ctx context.Context) error {
	set, route, err := o.setRead().Read()
	if err != nil {
		return err
	}
	switch route {
	case pipeline.SetKinds:
		return o.runSetKinds(ctx, set, pipeline.KindManifests(set))
	case pipeline.SetConfigOnly:
		return o.runConfig(ctx, set, pipeline.ConfigObjects(set))
	case pipeline.SetPickOne:
		return o.runPicked(ctx, set)
	}
	return o.planSet(ctx, set)
}

// planSet plans the set's Deployments and its config restarts and prints them (printSets).
func (o *preview) planSet(ctx context.Context, set *manifest.Set) error {
	results, err := pipeline.PlanSet(ctx, set, o.setConfig())
	if err != nil {
		return err
	}
	sc, err := o.restartFlags().Set(ctx, set, results)
	if err != nil {
		return err
	}
	return o.printSets(set, []printer.SetRun{{Results: results}}, sc)
}

// setRead is how the flags read the manifest set.
func (o *preview) setRead() pipeline.SetRead {
	return pipeline.SetRead{Filenames: o.Filenames, Namespace: o.Namespace, EnforceNamespace: o.EnforceNamespace, Ref: o.Ref, In: o.Preview.In, Offline: o.Preview.StateFile != ""}
}

// runPicked previews the one Deployment of the set (the named one) as runOne does, its
// manifest the change (Preview.ManifestChange).
func (o *preview) runPicked(ctx context.Context, set *manifest.Set) error {
	ref, obj, err := o.setRead().Pick(set)
	if err != nil {
		return err
	}
	p := *o.Preview
	p.Change, p.FromManifest = p.ManifestChange(obj), true
	o.Ref = ref
	if err := o.runOne(ctx, &p); err != nil {
		return err
	}
	return o.reportErrors(set.Errors)
}

// reportErrors writes each error as kubectl's "error: ..." line; an *Exit of CodeError when
// there is one.
func (o *preview) reportErrors(errs []error) error {
	for _, err := range errs {
		fmt.Fprintln(o.ErrOut, "error: "+err.Error())
	}
	if len(errs) > 0 {
		return &Exit{Code: CodeError}
	}
	return nil
}

// setConfig is the I/O a set is planned with: the cluster's (a LIST of Deployments and of
// ReplicaSets per namespace, server-side dry runs) or the state file's
// (pipeline.Preview.SetConfig).
func (o *preview) setConfig() manifest.Config {
	return o.Preview.SetConfig(o.Preview.Source(o.Client), o.readFleet)
}

// readFleet returns the Deployments of namespace ns with their State, read once for the
// preview (pipeline.NamespaceCache.Read). Errors: ReadNamespace's (not kept).
func (o *preview) readFleet(ctx context.Context, ns string) ([]cluster.Member, error) {
	return o.fleets.Read(ctx, pipeline.NewLive("", "", o.Client), ns, o.ChunkSize)
}

// restartFlags are the flags a preview of ConfigMaps and Secrets reads.
func (o *preview) restartFlags() reloadoneshot.PreviewFlags {
	p := o.Preview
	return reloadoneshot.PreviewFlags{Client: o.Client, Readiness: p.Readiness, Checks: p.Checks, Offline: p.StateFile != "", Read: o.readFleet}
}

// runConfig previews a manifest set of ConfigMaps and Secrets (and no Deployment): each is
// dry-run on the server, and the Deployments of its namespace whose pods would see a changed
// key are shown with the restart's plan (reloadoneshot.PreviewFlags.Config); -o: a
// RolloutPlanList of the restarts, as a mixed set's config restarts (manifest.change
// ConfigRestart, with the config section; printer.PreviewView.PrintConfigPreview). Nothing is
// changed.
func (o *preview) runConfig(ctx context.Context, set *manifest.Set, objs []*unstructured.Unstructured) error {
	switch {
	case o.Preview.StateFile != "":
		return errors.New("a ConfigMap or Secret manifest is previewed against the cluster (a server-side dry run, then its namespace's Deployments): drop --state-file")
	case o.Preview.Change != nil:
		return errors.New("--image, --replicas, --to-revision and --restart change a Deployment: the manifests hold only ConfigMaps and Secrets")
	}
	p, err := o.restartFlags().Config(ctx, objs)
	if err != nil {
		return err
	}
	_, sources := pipeline.ConfigObjectsWithSources(set)
	if err := o.View.PrintConfigPreview(o.Out, &reloadoneshot.SetPreview{Preview: p, Sources: sources}); err != nil {
		return err
	}
	if len(set.Errors) == 0 && o.FailOnStall && reloadoneshot.Stalls(p.Targets) {
		return &Exit{Code: CodeStalled}
	}
	return o.reportErrors(set.Errors)
}

// runSetKinds previews a manifest set holding StatefulSets or DaemonSets: its Deployments as
// runSet plans a set (none: no Deployment table), then each StatefulSet and DaemonSet
// (pipeline.PlanKindManifests, read from the state file or the cluster), their summary table
// and plans after the Deployments' (-o: their RolloutPlans in the same RolloutPlanList, each
// with its workload). An object that could not be planned is an "error: ..." line and exit 1.
func (o *preview) runSetKinds(ctx context.Context, set *manifest.Set, kinds []manifest.Object) error {
	pipeline.DropKindManifests(set)
	src := pipeline.NewKindSource(o.Preview.StateFile, o.Client)
	checks, _ := feasibility.ParseChecks(o.Preview.Checks) // Validate refused a bad value
	o.kindRows = append(o.kindRows, pipeline.PlanKindManifests(ctx, src, "", kinds, o.Preview.Readiness, o.now(), o.kindTiming(), checks)...)
	for _, obj := range kinds {
		o.kindSources = append(o.kindSources, obj.Source)
	}
	var err error
	if len(set.Deployments) > 0 {
		err = o.planSet(ctx, set)
	} else {
		err = o.printSetPlans(set, nil, printer.Summary{}, nil, nil)
		if err == nil {
			err = o.reportErrors(set.Errors)
		}
	}
	if failed := printer.PrintSetKindErrors(o.ErrOut, o.kindRows, o.kindSources); err == nil && failed > 0 {
		return &Exit{Code: CodeError}
	}
	if err == nil && o.FailOnStall && pipeline.AnyKindStalls(o.kindRows) {
		return &Exit{Code: CodeStalled}
	}
	return err
}

// kindTiming is --pod-ready-after and --sync-latency for StatefulSets and DaemonSets.
func (o *preview) kindTiming() pipeline.KindTiming {
	t := o.Preview.Timing
	timing, _ := pipeline.ParseKindTiming(t.PodReadyAfter, t.SyncLatency) // Validate refused a bad value
	return timing
}

// runSetContexts previews a manifest set (-f/-k; with a name, that Deployment of it) in every
// context (pipeline.Preview.PlanSetContexts): each context checks the set's namespaces, then
// plans the set on its own live state, pipeline.DefaultSources contexts at once; the set's
// StatefulSets and DaemonSets are planned in each context too (no feasibility check).
// Printed as runContexts prints, with the SOURCE column of a set, the kinds' table with its
// CONTEXT column after it. ConfigMaps and Secrets (config restarts) are previewed in one
// context only.
func (o *preview) runSetContexts(ctx context.Context) error {
	set, err := o.setRead().ReadForContexts()
	if err != nil {
		return err
	}
	kinds := pipeline.KindManifests(set)
	pipeline.DropKindManifests(set)
	srcs, errs := o.Sources()
	kindRows := make([][]pipeline.KindRow, len(srcs))
	results, errs := o.Preview.PlanSetContexts(ctx, set, srcs, errs, o.ChunkSize, func(ctx context.Context, i int, live *pipeline.Live) {
		kindRows[i] = pipeline.PlanKindManifests(ctx, live, o.Contexts[i], kinds, o.Preview.Readiness, o.now(), o.kindTiming(), nil)
	})
	runs := make([]printer.SetRun, len(srcs))
	for i := range srcs {
		runs[i] = printer.SetRun{Context: o.Contexts[i], Results: results[i], Err: errs[i]}
	}
	for _, rows := range kindRows {
		for j, r := range rows {
			o.kindRows = append(o.kindRows, r)
			o.kindSources = append(o.kindSources, kinds[j].Source)
		}
	}
	err = o.printSets(set, runs, nil)
	if failed := printer.PrintSetKindErrors(o.ErrOut, o.kindRows, o.kindSources); err == nil && failed > 0 {
		return &Exit{Code: CodeError}
	}
	return err
}

// printSets prints the plans of a manifest set planned in each context of runs (one run
// without a context for one cluster): human, the summary table (with a SOURCE column; across
// contexts a CONTEXT column first), the count of the other kinds, then each plan in full; -o,
// a RolloutPlanList whose plans carry manifest.source and manifest.change (and their
// context). Then each failure on stderr. Exit: SetExit's.
func (o *preview) printSets(set *manifest.Set, runs []printer.SetRun, sc *reloadoneshot.SetPreview) error {
	summary, plans, stalled := printer.SetSummary(runs, o.manyContexts())
	stalled = stalled || sc.Stalls()
	if err := o.printSetPlans(set, runs, summary, plans, sc); err != nil {
		return err
	}
	failed, failedContexts := printer.PrintSetFailures(o.ErrOut, set.Errors, runs)
	return SetExit(len(set.Errors), failed, failedContexts, stalled, o.FailOnStall)
}

// printSetPlans prints the set's plans, its config restarts (sc) and its StatefulSets' and
// DaemonSets' (printer.PreviewView.PrintSetPlans).
func (o *preview) printSetPlans(set *manifest.Set, runs []printer.SetRun, summary printer.Summary, plans []*v1alpha1.RolloutPlan, sc *reloadoneshot.SetPreview) error {
	kinds := printer.SetKinds{Plans: printer.NewSetKindPlans(o.kindRows, o.kindSources, o.Preview.Readiness), Rows: len(o.kindRows), PrintKinds: func() error {
		return printer.PrintSetKinds(o.Out, o.kindRows, o.manyContexts(), o.View.Summary)
	}}
	return o.View.PrintSetPlans(o.Out, o.ErrOut, set, runs, summary, plans, sc, o.manyContexts(), kinds)
}

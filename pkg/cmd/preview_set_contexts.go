package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// runSetContexts previews a manifest set (-f/-k; with a name, that Deployment of it) in every
// context: each context checks the set's namespaces (pipeline.Live.CheckNamespaces), then
// plans the set on its own live state (manifest.PlanSet, its reads and dry runs),
// pipeline.DefaultSources contexts at once. Printed as runContexts prints, with the SOURCE
// column of a set. ConfigMaps and Secrets (config restarts) are previewed in one context only.
func (o *PreviewOptions) runSetContexts(ctx context.Context) error {
	set, err := o.readSetForContexts()
	if err != nil {
		return err
	}
	srcs, errs := o.Contexts.sources()
	per := make([][]manifest.Result, len(srcs))
	var g errgroup.Group
	g.SetLimit(pipeline.DefaultSources)
	for i, src := range srcs {
		if src == nil {
			continue
		}
		live := src
		g.Go(func() error {
			if errs[i] = live.CheckNamespaces(ctx, setNamespaces(set)); errs[i] != nil {
				return nil
			}
			read := func(ctx context.Context, ns string) ([]cluster.Member, error) {
				return live.ReadNamespace(ctx, ns, o.Fleet.Select.ChunkSize)
			}
			per[i], errs[i] = manifest.PlanSet(ctx, set, o.setConfigOf(live.Client, read))
			return nil
		})
	}
	_ = g.Wait()
	return o.printSetContexts(set, per, errs)
}

// readSetForContexts reads the set; with a name, keeps that Deployment only (in the named
// namespace). Errors: the set's, as runSet and runPicked give them; ConfigMaps or Secrets.
func (o *PreviewOptions) readSetForContexts() (*manifest.Set, error) {
	named := o.Name != ""
	opts := manifest.Options{Filenames: o.Filenames, Namespace: o.Namespace, EnforceNamespace: o.enforceNamespace && !named, In: o.In}
	if named {
		opts.Namespace = ""
	}
	set, err := manifest.Read(opts)
	if err != nil {
		return nil, err
	}
	if len(configObjects(set)) > 0 {
		return nil, errors.New("the ConfigMaps and Secrets of a manifest set (the restarts they cause) are previewed in one context: drop --contexts/--all-contexts, or those objects")
	}
	if named {
		obj, err := set.Pick(o.Ref)
		if err != nil {
			if len(set.Errors) > 0 {
				return nil, utilerrors.NewAggregate(set.Errors)
			}
			return nil, fmt.Errorf("%s: %w", o.filenamesWord(), err)
		}
		if obj.Object.GetNamespace() == "" {
			obj.Object.SetNamespace(o.Ref.Namespace)
		}
		set.Deployments = []manifest.Object{obj}
	}
	switch {
	case len(set.Deployments) == 0 && len(set.Errors) > 0:
		return nil, utilerrors.NewAggregate(set.Errors)
	case len(set.Deployments) == 0:
		return nil, set.NoDeployment()
	}
	return set, nil
}

// setNamespaces are the namespaces of the set's Deployments, in order, once each.
func setNamespaces(set *manifest.Set) []string {
	var out []string
	for _, d := range set.Deployments {
		if ns := d.Ref().Namespace; !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// printSetContexts prints the plans of every context: human, one summary (CONTEXT first,
// SOURCE last), the other kinds, then each plan headed by its context; -o, one
// RolloutPlanList whose items carry context and manifest. Then the unreadable files, the
// contexts that failed and the Deployments that failed, one line each on stderr; exit as
// runContexts.
func (o *PreviewOptions) printSetContexts(set *manifest.Set, per [][]manifest.Result, errs []error) error {
	var plans []*v1alpha1.RolloutPlan
	summary := printer.Summary{WithContext: true, ExtraColumns: []string{"SOURCE"}}
	stalled := 0
	for i, rs := range per {
		for _, r := range rs {
			row := printer.SummaryRow{Context: o.Contexts.resolved[i], Namespace: r.Ref.Namespace, Name: r.Ref.Name, Change: printer.ManifestChangeWords(r.Change), Err: r.Err, Extra: []string{r.Source}}
			if r.Err == nil {
				stalled += boolCount(r.Plan.Outcome == planner.OutcomeStalled)
				row.Plan = printer.NewRolloutPlan(r.Plan, r.Warnings)
				row.Plan.Manifest = &v1alpha1.PlanManifest{Source: r.Source, Change: string(r.Change)}
				row.Plan.Context = o.Contexts.resolved[i]
				plans = append(plans, row.Plan)
			}
			summary.Rows = append(summary.Rows, row)
		}
	}
	if err := o.printSetContextPlans(set, per, summary, plans); err != nil {
		return err
	}
	for _, err := range set.Errors {
		fmt.Fprintln(o.ErrOut, "error: "+err.Error())
	}
	var failed []string
	failedContexts := 0
	for i, rs := range per {
		name := o.Contexts.resolved[i]
		if errs[i] != nil {
			printer.PrintContextFailure(o.ErrOut, name, errs[i])
			failedContexts++
		}
		for _, r := range rs {
			if r.Err != nil {
				printer.PrintFailure(o.ErrOut, printer.Failure{Namespace: r.Ref.Namespace, Name: r.Ref.Name, Source: "context " + name + ", " + r.Source, Err: r.Err})
				failed = append(failed, printer.DeploymentName(r.Ref.Namespace, r.Ref.Name, false)+" (context "+name+")")
			}
		}
	}
	if len(failed) == 0 && (failedContexts > 0 || len(set.Errors) > 0) {
		return NewExitError(ExitError, "")
	}
	return fleetExit(failed, stalled, o.FailOnStall)
}

// printSetContextPlans writes the list (-o) or the summary, the other kinds and each plan.
func (o *PreviewOptions) printSetContextPlans(set *manifest.Set, per [][]manifest.Result, summary printer.Summary, plans []*v1alpha1.RolloutPlan) error {
	if !o.Output.Human() {
		p, err := o.Output.ToPrinter()
		if err != nil {
			return err
		}
		return p.PrintObj(printer.NewRolloutPlanList(plans), o.Out)
	}
	if len(summary.Rows) == 0 {
		return nil
	}
	if err := printer.PrintSummary(o.Out, summary); err != nil {
		return err
	}
	printer.PrintOtherKinds(o.Out, set.OtherKinds())
	for i, rs := range per {
		for _, r := range rs {
			if r.Err != nil || o.Summary {
				continue
			}
			fmt.Fprintln(o.Out)
			opts := o.planOptions(r.Warnings)
			opts.Context = o.Contexts.resolved[i]
			if err := printer.PrintPlan(o.Out, r.Plan, opts); err != nil {
				return err
			}
		}
	}
	return nil
}

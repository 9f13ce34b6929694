package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// completePreview reads preview's change flags for StatefulSets and DaemonSets (issue 21;
// parsed by pipeline.KindPreviewFlags.Parse).
func (o *KindsOptions) completePreview(fl *pflag.FlagSet) error {
	if fl.Changed("filename") || fl.Changed("kustomize") {
		return errors.New("-f/-k plan the manifests' objects: give sts/NAME or ds/NAME with --image, --restart, --to-revision, --replicas or --partition, or -f alone")
	}
	f := pipeline.KindPreviewFlags{Restart: flagBool(fl, "restart"), Undo: fl.Changed("to-revision"), ToRevision: o.ToRevision,
		Readiness: flagString(fl, "readiness"), Checks: flagString(fl, "checks"),
		PodReadyAfter: flagString(fl, "pod-ready-after"), SyncLatency: flagString(fl, "sync-latency")}
	f.Images, _ = fl.GetStringArray("image")
	if fl.Changed("replicas") {
		n, _ := fl.GetInt32("replicas")
		f.Replicas = &n
	}
	if fl.Changed("partition") {
		n, _ := fl.GetInt32("partition")
		f.Partition = &n
	}
	var err error
	if o.Change, o.Readiness, o.Checks, err = f.Parse(); err != nil {
		return err
	}
	o.FailOnStall = flagBool(fl, "fail-on-stall")
	o.StateFile = flagString(fl, "state-file")
	o.ExplicitNamespace = fl.Changed("namespace")
	if o.StateFile != "" && o.Contexts != nil && o.Contexts.given() {
		return errors.New("--state-file is one cluster's state: drop --contexts/--all-contexts, or --state-file")
	}
	return nil
}

// validatePreview checks preview's flags alone.
func (o *KindsOptions) validatePreview() error {
	c := o.Change
	if c.Restart && c.Undo {
		return errors.New("--restart and --to-revision are two changes: give one")
	}
	if (c.Replicas != nil && *c.Replicas < 0) || (c.Partition != nil && *c.Partition < 0) {
		return errors.New("--replicas and --partition must be 0 or more")
	}
	if o.Args.Kind == target.KindDaemonSet && (c.Replicas != nil || c.Partition != nil) {
		return errors.New("--replicas and --partition are StatefulSet fields: drop them for DaemonSets")
	}
	return nil
}

// previewKinds plans every StatefulSet or DaemonSet selected, from each Source (the state file,
// the current context, or each of --contexts; pipeline.PlanKinds), and prints them: one object
// as its plan; several as the summary table then each plan, or one RolloutPlanList with -o
// (printer.PrintKindPlans).
func (o *KindsOptions) previewKinds(ctx context.Context, cmd *cobra.Command) error {
	srcs, srcErrs, err := o.kindSources(cmd)
	if err != nil {
		return err
	}
	c := o.Change
	c.Now = o.Now().Truncate(1e9)
	sel := pipeline.KindSelectionFlags{Namespace: o.Namespace, ExplicitNamespace: o.ExplicitNamespace, Refs: o.Args.Refs, Kind: o.Args.Kind, AllNamespaces: o.AllNamespaces, Selector: o.Selector}
	rows, failed, err := pipeline.PlanKinds(ctx, srcs, srcErrs, sel.For, c, o.Readiness, o.Checks)
	if err != nil {
		return err
	}
	if len(rows) == 0 && len(failed) == 0 {
		printer.PrintNoneSelected(o.ErrOut, o.Namespace)
		return nil
	}
	withContext := o.Contexts != nil && o.Contexts.many()
	if len(rows) == 1 && len(srcs) <= 1 && !o.several() {
		if rows[0].Err != nil {
			return rows[0].Err
		}
		if err := printer.PrintKindPlans(o.Out, rows, false, o.Output, string(o.Readiness), withContext); err != nil {
			return err
		}
		return o.failOnStall(rows)
	}
	if err := printer.PrintKindPlans(o.Out, rows, true, o.Output, string(o.Readiness), withContext); err != nil {
		return err
	}
	failed = pipeline.KindRowErrors(rows, failed)
	for _, err := range failed {
		fmt.Fprintf(o.ErrOut, "error: %v\n", err)
	}
	if len(failed) > 0 {
		return pipeline.KindPreviewFailed(failed, rows, srcErrs)
	}
	return o.failOnStall(rows)
}

// failOnStall is --fail-on-stall: exit ExitStalled when a plan of rows ends Stalled, by the
// kind's planner or the feasibility checks (pipeline.AnyKindStalls).
func (o *KindsOptions) failOnStall(rows []printer.KindSummaryRow) error {
	if o.FailOnStall && pipeline.AnyKindStalls(rows) {
		return NewExitError(ExitStalled, "")
	}
	return nil
}

// kindSources returns the Sources preview reads: the state file, each of --contexts (a
// context whose Source cannot be made has its error), or the current context.
func (o *KindsOptions) kindSources(cmd *cobra.Command) ([]pipeline.KindSource, []error, error) {
	if o.Contexts != nil && o.Contexts.given() && o.StateFile == "" {
		if err := o.Contexts.resolve(cmd); err != nil {
			return nil, nil, err
		}
		if o.Contexts.many() {
			lives, errs := o.Contexts.sources()
			srcs := make([]pipeline.KindSource, len(lives))
			for i, l := range lives {
				if l != nil {
					srcs[i] = l
				}
			}
			return srcs, errs, nil
		}
	}
	return []pipeline.KindSource{pipeline.NewKindSource(o.StateFile, o.Client)}, []error{nil}, nil
}

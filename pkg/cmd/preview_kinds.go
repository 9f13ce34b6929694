package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// completePreview reads preview's change flags for StatefulSets and DaemonSets (issue 21).
func (o *KindsOptions) completePreview(fl *pflag.FlagSet) error {
	if fl.Changed("filename") || fl.Changed("kustomize") {
		return errors.New("-f/-k plan the manifests' objects: give sts/NAME or ds/NAME with --image, --restart, --to-revision, --replicas or --partition, or -f alone")
	}
	c := &o.Change
	c.Images, _ = fl.GetStringArray("image")
	c.Restart = flagBool(fl, "restart")
	c.Undo = fl.Changed("to-revision")
	c.ToRevision = o.ToRevision
	if fl.Changed("replicas") {
		n, _ := fl.GetInt32("replicas")
		c.Replicas = &n
	}
	if fl.Changed("partition") {
		n, _ := fl.GetInt32("partition")
		c.Partition = &n
	}
	o.Readiness = planner.Readiness(flagString(fl, "readiness"))
	var err error
	if o.Checks, err = feasibility.ParseChecks(flagString(fl, "checks")); err != nil {
		return err
	}
	o.FailOnStall = flagBool(fl, "fail-on-stall")
	if s := flagString(fl, "pod-ready-after"); s != "" {
		e, err := estimate.ParseReadyAfter(s)
		if err != nil {
			return err
		}
		c.ReadyAfter = &e
	}
	if s := flagString(fl, "sync-latency"); s != "" {
		l, err := estimate.ParseSyncLatency(s)
		if err != nil {
			return err
		}
		c.SyncLatency = &l
	}
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
// the current context, or each of --contexts), and prints them: one object as its plan;
// several as the summary table then each plan, or one RolloutPlanList with -o.
func (o *KindsOptions) previewKinds(ctx context.Context, cmd *cobra.Command) error {
	srcs, srcErrs, err := o.kindSources(cmd)
	if err != nil {
		return err
	}
	c := o.Change
	c.Now = o.Now().Truncate(1e9)
	many := len(srcs) > 1
	checks := &pipeline.Config{Feasibility: o.Checks}
	var rows []printer.KindSummaryRow
	var failed []error
	for i, src := range srcs {
		if srcErrs[i] != nil {
			failed = append(failed, srcErrs[i])
			continue
		}
		ms, err := src.SelectKinds(ctx, o.kindSelection(src))
		if err != nil {
			if !many {
				return err
			}
			failed = append(failed, fmt.Errorf("context %s: %w", src.Name(), err))
			continue
		}
		for _, m := range ms {
			p, err := pipeline.PlanKindMember(ctx, src, m, c, o.Readiness)
			checks.CheckKind(ctx, src, p)
			rows = append(rows, printer.KindSummaryRow{Context: src.Name(), Workload: pipeline.WorkloadRef{Kind: string(m.Ref.Kind), Namespace: m.Ref.Namespace, Name: m.Ref.Name}, Plan: p, Err: err})
		}
	}
	if len(rows) == 0 && len(failed) == 0 {
		printer.PrintNoneSelected(o.ErrOut, o.Namespace)
		return nil
	}
	if len(rows) == 1 && !many && !o.several() {
		if rows[0].Err != nil {
			return rows[0].Err
		}
		if err := o.printKindPlans(rows, false); err != nil {
			return err
		}
		return o.failOnStall(rows)
	}
	if err := o.printKindPlans(rows, true); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Err != nil {
			failed = append(failed, fmt.Errorf("%s/%s (namespace %s): %w", strings.ToLower(r.Workload.Kind), r.Workload.Name, r.Workload.Namespace, r.Err))
		}
	}
	for _, err := range failed {
		fmt.Fprintf(o.ErrOut, "error: %v\n", err)
	}
	if len(failed) > 0 {
		return fmt.Errorf("preview failed for %d of %d", len(failed), len(rows)+len(srcErrs)-countNil(srcErrs))
	}
	return o.failOnStall(rows)
}

// failOnStall is --fail-on-stall: exit ExitStalled when a plan of rows ends Stalled, by the
// kind's planner or the feasibility checks.
func (o *KindsOptions) failOnStall(rows []printer.KindSummaryRow) error {
	if o.FailOnStall && slices.ContainsFunc(rows, func(r printer.KindSummaryRow) bool { return kindStalls(r.Plan) }) {
		return NewExitError(ExitStalled, "")
	}
	return nil
}

// kindStalls says p ends Stalled, by the kind's planner or the feasibility checks.
func kindStalls(p *pipeline.KindPlan) bool {
	return p != nil && (p.Outcome == "Stalled" || (p.Feasibility != nil && p.Feasibility.Stall != nil))
}

func countNil(errs []error) int {
	n := 0
	for _, e := range errs {
		if e == nil {
			n++
		}
	}
	return n
}

// kindSources returns the Sources preview reads: the state file, each of --contexts (a
// context whose Source cannot be made has its error), or the current context.
func (o *KindsOptions) kindSources(cmd *cobra.Command) ([]pipeline.KindSource, []error, error) {
	if o.StateFile != "" {
		return []pipeline.KindSource{pipeline.NewKindFile(o.StateFile)}, []error{nil}, nil
	}
	if o.Contexts != nil && o.Contexts.given() {
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
	return []pipeline.KindSource{pipeline.NewLive("", "", o.Client)}, []error{nil}, nil
}

// kindSelection is the selection in src: the names in -n's namespace (a state file without
// -n: the file's), or -l/--all/-A's LIST scope (a context's own namespace without -n).
func (o *KindsOptions) kindSelection(src pipeline.KindSource) pipeline.KindSelection {
	ns := o.Namespace
	if l, ok := src.(*pipeline.Live); ok && l.Namespace != "" && !o.ExplicitNamespace {
		ns = l.Namespace
	}
	if len(o.Args.Refs) > 0 {
		refs := make([]target.KindRef, len(o.Args.Refs))
		for i, r := range o.Args.Refs {
			r.Namespace = ns
			if !src.Live() && !o.ExplicitNamespace {
				r.Namespace = ""
			}
			refs[i] = r
		}
		return pipeline.KindSelection{Refs: refs}
	}
	if o.AllNamespaces {
		ns = ""
	}
	return pipeline.KindSelection{Bulk: true, Kind: o.Args.Kind, Namespace: ns, Selector: o.Selector}
}

// printKindPlans prints rows: with -o one RolloutPlan (list: a RolloutPlanList of the rows
// with a plan, each carrying its workload); else, for a list, the summary table first, then
// each plan.
func (o *KindsOptions) printKindPlans(rows []printer.KindSummaryRow, list bool) error {
	r := o.Readiness
	if r == "" {
		r = planner.ReadinessBatched
	}
	withContext := o.Contexts != nil && o.Contexts.many()
	if o.Output != "" {
		var pr printers.ResourcePrinter = &printers.JSONPrinter{}
		if o.Output == "yaml" {
			pr = &printers.YAMLPrinter{}
		}
		var plans []*v1alpha1.RolloutPlan
		for _, row := range rows {
			if row.Plan != nil {
				p := printer.NewKindRolloutPlan(row.Plan, string(r))
				if withContext {
					p.Context = row.Context
				}
				plans = append(plans, p)
			}
		}
		if !list {
			return pr.PrintObj(plans[0], o.Out)
		}
		return pr.PrintObj(printer.NewRolloutPlanList(plans), o.Out)
	}
	if list {
		if err := printer.PrintKindSummary(o.Out, rows, withContext); err != nil {
			return err
		}
	}
	for _, row := range rows {
		if row.Plan != nil {
			if withContext {
				fmt.Fprintf(o.Out, "context %s: ", row.Context)
			}
			printKindPlan(o.Out, row.Plan)
		}
	}
	return nil
}

// printKindPlan writes p for people: the update revision, the pod operations per step (a
// StatefulSet's in ordinal order, a DaemonSet's per node), the nodes that get no pod, the
// pods OnDelete leaves and the outcome.
func printKindPlan(w io.Writer, p *pipeline.KindPlan) {
	fmt.Fprintf(w, "%s/%s (namespace %s): update revision %d (%s), strategy %s", strings.ToLower(p.Workload.Kind), p.Workload.Name, p.Workload.Namespace, p.UpdateRevisionNumber, p.UpdateRevision, p.Strategy)
	if p.Workload.Kind == string(target.KindStatefulSet) && p.Strategy != "OnDelete" && p.Partition > 0 {
		fmt.Fprintf(w, ", partition %d (ordinals below it keep their revision)", p.Partition)
	}
	if p.Workload.Kind == string(target.KindDaemonSet) && p.Strategy != "OnDelete" {
		if p.MaxSurge > 0 {
			fmt.Fprintf(w, ", surge: the new pod first, on up to %d nodes at once", p.MaxSurge)
		} else {
			fmt.Fprintf(w, ", delete first: up to %d nodes without a pod at once", p.MaxUnavailable)
		}
	}
	fmt.Fprintln(w)
	if len(p.PodOperations) == 0 {
		fmt.Fprintln(w, "  no pod operation")
	}
	step := 0
	for _, op := range p.PodOperations {
		if p.Workload.Kind == string(target.KindStatefulSet) && op.Step != step {
			step = op.Step
			if op.At != nil {
				fmt.Fprintf(w, "  sync %d (at %s):\n", step, op.At.Duration)
			} else {
				fmt.Fprintf(w, "  sync %d:\n", step)
			}
		}
		pod := op.Pod
		if pod == "" {
			pod = "(new pod)"
		}
		where := ""
		if op.Node != "" {
			where = " on node " + op.Node
		}
		if p.Workload.Kind == string(target.KindStatefulSet) {
			fmt.Fprintf(w, "    %s %s (revision %d %s)\n", op.Action, pod, op.RevisionNumber, op.Revision)
		} else {
			at := ""
			if op.At != nil {
				at = " (at " + op.At.Duration.String() + ")"
			}
			fmt.Fprintf(w, "  sync %d%s: %s %s%s (revision %d %s)\n", op.Step, at, op.Action, pod, where, op.RevisionNumber, op.Revision)
		}
	}
	for _, n := range p.Nodes {
		if !n.ShouldRun && n.Reason != "" {
			fmt.Fprintf(w, "  node %s: no pod: %s\n", n.Name, n.Reason)
		}
	}
	if len(p.WaitingForDelete) > 0 {
		fmt.Fprintf(w, "  waiting for delete (OnDelete): %s\n", strings.Join(p.WaitingForDelete, ", "))
	}
	_ = printer.PrintFeasibility(w, p.Feasibility)
	if f := p.Feasibility; f != nil && f.Stall != nil {
		fmt.Fprintf(w, "Outcome: Stalled at sync %d by the feasibility checks (%s); without them: %s (%d syncs)\n\n", f.Stall.Step, f.Stall.Reason, p.Outcome, p.Syncs)
		return
	}
	fmt.Fprintf(w, "Outcome: %s", p.Outcome)
	if p.Reason != "" {
		fmt.Fprintf(w, ": %s", p.Reason)
	}
	fmt.Fprintf(w, " (%d syncs)\n\n", p.Syncs)
	printer.PrintKindTiming(w, p)
}

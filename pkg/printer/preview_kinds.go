package printer

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// PrintKindPlans prints the rows of a preview of StatefulSets or DaemonSets to w: with output
// ("json" or "yaml") one RolloutPlan (list: a RolloutPlanList of the rows with a plan, each
// carrying its workload and, withContext, its context); else, for a list, the summary table
// (PrintKindSummary) first, then each plan (PrintKindPlan, "context NAME: " before it
// withContext). readiness is --readiness ("": pipeline.DefaultReadiness). Errors: the
// printer's or the writer's.
func PrintKindPlans(w io.Writer, rows []pipeline.KindRow, list bool, output, readiness string, withContext bool) error {
	r := readiness
	if r == "" {
		r = pipeline.DefaultReadiness
	}
	if output != "" {
		var pr printers.ResourcePrinter = &printers.JSONPrinter{}
		if output == "yaml" {
			pr = &printers.YAMLPrinter{}
		}
		var plans []*v1alpha1.RolloutPlan
		for _, row := range rows {
			if row.Plan != nil {
				p := NewKindRolloutPlan(row.Plan, r)
				if withContext {
					p.Context = row.Context
				}
				plans = append(plans, p)
			}
		}
		if !list {
			return pr.PrintObj(plans[0], w)
		}
		return pr.PrintObj(NewRolloutPlanList(plans), w)
	}
	if list {
		if err := PrintKindSummary(w, rows, withContext); err != nil {
			return err
		}
	}
	for _, row := range rows {
		if row.Plan != nil {
			if withContext {
				fmt.Fprintf(w, "context %s: ", row.Context)
			}
			PrintKindPlan(w, row.Plan)
		}
	}
	return nil
}

// PrintKindPlan writes p for people: the update revision, the pod operations per step (a
// StatefulSet's in ordinal order, a DaemonSet's per node), the nodes that get no pod, the
// pods OnDelete leaves, the feasibility checks, the outcome and the timing (PrintKindTiming).
func PrintKindPlan(w io.Writer, p *pipeline.KindPlan) {
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
	_ = PrintFeasibility(w, p.Feasibility)
	if f := p.Feasibility; f != nil && f.Stall != nil {
		fmt.Fprintf(w, "Outcome: Stalled at sync %d by the feasibility checks (%s); without them: %s (%d syncs)\n\n", f.Stall.Step, f.Stall.Reason, p.Outcome, p.Syncs)
		return
	}
	fmt.Fprintf(w, "Outcome: %s", p.Outcome)
	if p.Reason != "" {
		fmt.Fprintf(w, ": %s", p.Reason)
	}
	fmt.Fprintf(w, " (%d syncs)\n\n", p.Syncs)
	PrintKindTiming(w, p)
}

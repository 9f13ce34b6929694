package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// completePreview reads preview's change flags for StatefulSets and DaemonSets (issue 21).
func (o *KindsOptions) completePreview(fl *pflag.FlagSet) error {
	if fl.Changed("filename") || fl.Changed("kustomize") || fl.Changed("contexts") {
		return errors.New("-f/-k and --contexts work on Deployments only: give the change with --image, --restart, --to-revision, --replicas or --partition")
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

// previewKind plans one StatefulSet or DaemonSet (pipeline.PlanKindLive) and prints it.
func (o *KindsOptions) previewKind(ctx context.Context, client kubernetes.Interface, ref target.KindRef) error {
	c := o.Change
	c.Now = o.Now().Truncate(1e9)
	p, err := pipeline.PlanKindLive(ctx, client, ref, c, o.Readiness)
	if err != nil {
		return err
	}
	if o.Output != "" {
		var pr printers.ResourcePrinter = &printers.JSONPrinter{}
		if o.Output == "yaml" {
			pr = &printers.YAMLPrinter{}
		}
		r := o.Readiness
		if r == "" {
			r = planner.ReadinessBatched
		}
		return pr.PrintObj(printer.NewKindRolloutPlan(p, string(r)), o.Out)
	}
	printKindPlan(o.Out, p)
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
			fmt.Fprintf(w, "  sync %d:\n", step)
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
			fmt.Fprintf(w, "  sync %d: %s %s%s (revision %d %s)\n", op.Step, op.Action, pod, where, op.RevisionNumber, op.Revision)
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
	fmt.Fprintf(w, "Outcome: %s", p.Outcome)
	if p.Reason != "" {
		fmt.Fprintf(w, ": %s", p.Reason)
	}
	fmt.Fprintf(w, " (%d syncs)\n\n", p.Syncs)
}

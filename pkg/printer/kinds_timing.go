package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// PrintKindTiming writes, under a StatefulSet's or DaemonSet's timed plan
// (pipeline.PlanKindTimed), the Readiness, Latency and ETA lines a Deployment's timed plan
// has (ETA none for a plan without a duration: OnDelete); nothing for another plan.
func PrintKindTiming(w io.Writer, p *pipeline.KindPlan) {
	if p == nil || p.Estimate == nil {
		return
	}
	e := *p.Estimate
	available := "available as soon as Ready"
	if p.MinReadySeconds > 0 {
		available = fmt.Sprintf("available %ds later (minReadySeconds)", p.MinReadySeconds)
	}
	var ready string
	switch {
	case e.Source == estimate.SourcePods:
		ready = fmt.Sprintf("pods Ready %s after creation (median of %s; %s..%s), measured on the %s's own pods", formatOffset(e.Median), plural(e.Samples, "pod"), formatOffset(e.Min), formatOffset(e.Max), p.Workload.Kind)
	case e.Min == e.Max:
		ready = fmt.Sprintf("every pod Ready %s after it is created, per --pod-ready-after", formatOffset(e.Min))
	default:
		ready = fmt.Sprintf("every pod Ready %s after it is created (the middle of --pod-ready-after %s..%s: a %s's pods are modelled alike)", formatOffset(e.Median), formatOffset(e.Min), formatOffset(e.Max), p.Workload.Kind)
	}
	fmt.Fprintf(w, "Readiness: %s; %s\n", ready, available)
	fmt.Fprintf(w, "Latency: %s\n", LatencyNote(e.Latency))
	switch {
	case p.Duration == nil:
		fmt.Fprintf(w, "ETA:    none: the rollout ends %s (OnDelete replaces a pod only when someone deletes it).\n", p.Outcome)
	case p.Outcome == "NoChange":
		fmt.Fprintf(w, "ETA:    %s after the change: nothing to roll out (every pod already runs the update revision).\n", formatOffset(p.Duration.Duration))
	case p.Outcome == string(planner.OutcomeComplete) && p.Workload.Kind == "DaemonSet":
		fmt.Fprintf(w, "ETA:    %s after the change: the daemonset is complete (every node's pod updated and available; which nodes go first is the controller's random order, the time is not).\n", formatOffset(p.Duration.Duration))
	case p.Outcome == string(planner.OutcomeComplete):
		fmt.Fprintf(w, "ETA:    %s after the change: the %s is complete (every pod updated and available).\n", formatOffset(p.Duration.Duration), strings.ToLower(p.Workload.Kind))
	default:
		fmt.Fprintf(w, "ETA:    none: the rollout ends %s at %s.\n", p.Outcome, formatOffset(p.Duration.Duration))
	}
	fmt.Fprintln(w)
}

package printer

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// formatOffset writes a time from the change as the TIME column and the ETA line show it:
// a Go duration to the millisecond ("0s", "2.6s", "1m30s").
func formatOffset(d time.Duration) string { return d.Round(time.Millisecond).String() }

// timedNote is the Readiness line of a timed plan: how long pods take to become Ready, where
// that comes from, and minReadySeconds.
func timedNote(p *planner.Plan, e *estimate.Estimate) string {
	available := "available as soon as Ready"
	if p.MinReadySeconds > 0 {
		available = fmt.Sprintf("available %ds later (minReadySeconds)", p.MinReadySeconds)
	}
	switch {
	case e == nil:
		return "pods become Ready at the times given; " + available
	case e.Source == estimate.SourcePods:
		return fmt.Sprintf("pods Ready %s after creation (median; %s..%s), measured on %s of %s with one extra LIST of pods; %s",
			formatOffset(e.Median), formatOffset(e.Min), formatOffset(e.Max), plural(e.Samples, "pod"), strings.Join(e.ReplicaSets, ", "), available)
	case e.Min == e.Max:
		return fmt.Sprintf("every pod Ready %s after it is created, per --pod-ready-after; %s", formatOffset(e.Min), available)
	}
	return fmt.Sprintf("pods Ready %s..%s after creation, spread over pods, per --pod-ready-after; %s", formatOffset(e.Min), formatOffset(e.Max), available)
}

// LatencyNote is the Latency line of a timed plan: the sync latency per write and where it
// comes from (the fitted rollout and its figures: the sample is that one rollout).
func LatencyNote(l estimate.Latency) string {
	const what = "the controllers' reaction: pod creation, status updates, the next sync"
	switch l.Source {
	case estimate.LatencyFlag:
		return fmt.Sprintf("%s per write (%s), per --sync-latency", formatOffset(l.PerWrite), what)
	case estimate.LatencyRollout:
		return fmt.Sprintf("%s per write (%s), fitted to the last rollout (%s): it took %s (second precision), the model gives it %s without latency (%.1f waves)",
			formatOffset(l.PerWrite), what, l.ReplicaSet, formatOffset(l.Took), formatOffset(l.Modelled), l.Waves)
	}
	why := ""
	if l.Why != "" {
		why = ": " + l.Why
	}
	return fmt.Sprintf("0 per write, not measured%s (--sync-latency sets the controllers' reaction time per write)", why)
}

// printETA writes the ETA line of a timed plan, and the moment the progress deadline passes
// if it does.
func printETA(w io.Writer, p *planner.Plan) {
	switch p.Outcome {
	case planner.OutcomeComplete, planner.OutcomeNoChange:
		fmt.Fprintf(w, "ETA:    %s after the change: the Deployment is complete (every pod updated and available).\n", formatOffset(p.Duration))
	case planner.OutcomePaused:
		fmt.Fprintf(w, "ETA:    none while paused: the paused controller is done at %s.\n", formatOffset(p.Duration))
	default:
		fmt.Fprintf(w, "ETA:    none: the rollout stops at %s without completing.\n", formatOffset(p.Duration))
	}
	if p.ProgressDeadlineAt == nil {
		return
	}
	pds := int32(0)
	if p.ProgressDeadlineSeconds != nil {
		pds = *p.ProgressDeadlineSeconds
	}
	goesOn := ""
	if p.Outcome == planner.OutcomeComplete {
		goesOn = fmt.Sprintf(", although the rollout goes on and completes at %s", formatOffset(p.Duration))
	}
	fmt.Fprintf(w, "Deadline: at %s the controller sets Progressing=False with reason ProgressDeadlineExceeded (%ds without progress): 'kubectl rollout status' fails then%s.\n",
		formatOffset(*p.ProgressDeadlineAt), pds, goesOn)
}

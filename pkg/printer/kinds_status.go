package printer

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// NewWorkloadStatus converts a StatefulSet's or DaemonSet's status to its API object (kind
// WorkloadStatus).
func NewWorkloadStatus(s *pipeline.KindStatus) *v1alpha1.WorkloadStatus {
	out := &v1alpha1.WorkloadStatus{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "WorkloadStatus"},
		Workload:   v1alpha1.StatusWorkload{Kind: string(s.Ref.Kind), Namespace: s.Ref.Namespace, Name: s.Ref.Name},
		ObservedAt: metav1.NewTime(s.At), Message: strings.TrimSuffix(s.Verdict.Message, "\n"), Done: s.Verdict.Done,
		FailedFast: s.FailedFast, Feasibility: NewPlanFeasibility(s.Feasibility), ETABasis: s.ETABasis,
	}
	if s.Verdict.Err != nil {
		out.Message = s.Verdict.Err.Error()
	}
	if p := s.Progress; p != nil {
		out.Updated, out.Total, out.UpdateRevision, out.Waiting = p.Updated, p.Total, p.UpdateRevision, p.Waiting
		for _, op := range p.Next {
			out.Next = append(out.Next, v1alpha1.WorkloadPodOperation{Action: string(op.Action), Pod: op.Pod, Node: op.Node, Revision: op.Revision})
		}
	}
	if s.ProgressErr != nil {
		out.ProgressError = s.ProgressErr.Error()
	}
	for _, r := range s.Stalled {
		out.Stalled = append(out.Stalled, v1alpha1.StatusStall{Reason: r.Reason, Pods: r.Pods, Message: r.Message,
			Restarts: r.Restarts, Since: optTime(r.Since), Object: r.Object})
	}
	if s.HasETA {
		out.ETA = &metav1.Duration{Duration: s.ETA}
	}
	return out
}

// NewWorkloadStatusList is the WorkloadStatusList of sts, in order.
func NewWorkloadStatusList(sts []*pipeline.KindStatus) *v1alpha1.WorkloadStatusList {
	out := &v1alpha1.WorkloadStatusList{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "WorkloadStatusList"},
		Items: []v1alpha1.WorkloadStatus{}}
	for _, s := range sts {
		out.Items = append(out.Items, *NewWorkloadStatus(s))
	}
	return out
}

// KindStatusBlock is a part of the human status of a StatefulSet or DaemonSet: Text (whole
// lines) and Key, what a --watch compares to print it again only when it changes (the
// ETA's Key leaves out its countdown).
type KindStatusBlock struct {
	Key, Text string
}

// KindStatusBlocks is the human status of s, in order: kubectl's verdict line as kubectl
// prints it; then, while the rollout is in progress, the step line (KindProgressLine), a
// line per reason it does not progress ("  not progressing: FailedCreate (1 pod not
// created): create Pod db-2 in StatefulSet db failed error: ..."), the ETA line ("  eta: 12s
// more, at 2026-01-02T03:04:05Z (time model: pods Ready after 2s (median of 3 pods,
// 2s..2s))", or "  eta: none: ..."), and what the feasibility checks found on the remaining
// plan (FINDINGS and "Will stall at the controller's next sync: ...", kindWillStall).
func KindStatusBlocks(s *pipeline.KindStatus) []KindStatusBlock {
	out := []KindStatusBlock{{Key: "verdict\x00" + s.Verdict.Message, Text: s.Verdict.Message}}
	if s.Verdict.Done || s.Verdict.Err != nil {
		return out
	}
	if p := s.Progress; p != nil {
		line := KindProgressLine(p)
		out = append(out, KindStatusBlock{Key: "progress\x00" + line, Text: line})
	}
	if len(s.Stalled) > 0 {
		var b strings.Builder
		for _, r := range s.Stalled {
			fmt.Fprintf(&b, "  not progressing: %s\n", r)
		}
		out = append(out, KindStatusBlock{Key: "stall\x00" + b.String(), Text: b.String()})
	}
	if s.HasETA {
		out = append(out, KindStatusBlock{Key: "eta\x00" + s.ETABasis,
			Text: fmt.Sprintf("  eta: %s more, at %s (time model: %s)\n", round(s.ETA), s.At.Add(s.ETA).UTC().Format(time.RFC3339), s.ETABasis)})
	} else if s.ETABasis != "" {
		out = append(out, KindStatusBlock{Key: "eta\x00" + s.ETABasis, Text: "  eta: " + s.ETABasis + "\n"})
	}
	if f := NewPlanFeasibility(s.Feasibility); f != nil {
		var b strings.Builder
		_ = printFeasibility(&b, f, kindWillStall)
		if b.Len() > 0 {
			out = append(out, KindStatusBlock{Key: "feasibility\x00" + b.String(), Text: b.String()})
		}
	}
	return out
}

// kindWillStall is status's line of a stall the checks predict on the remaining plan of a
// StatefulSet or DaemonSet, whose steps are the controller's syncs from the next one (a
// stall's step is the sync whose pod write is refused): "Will stall at the controller's next
// sync" (step 1), else "Will stall at sync k of the remaining plan".
func kindWillStall(step int) string {
	if step <= 1 {
		return "Will stall at the controller's next sync"
	}
	return fmt.Sprintf("Will stall at sync %d of the remaining plan", step)
}

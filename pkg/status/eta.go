package status

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// RestUnderTimedModel returns Options.Rest for st at now: the rest of the rollout planned
// under readiness timed, with the estimate flag (--pod-ready-after) or, when flag is nil,
// one measured on the Deployment's own pods (estimate.FromPods over
// estimate.SampledReplicaSets: creation to Ready of the pods of the new and the previous
// ReplicaSet), and the Ready times of its pods not yet available (estimate.Pending). It
// also returns the basis of the estimate, for people ("pods Ready after 2s (--pod-ready-after)",
// "... median 2s of 20 pods"). Without a Ready pod to measure there is no ETA: nil, "". Nor
// when pods of the Deployment are overdue (not Ready longer than the estimate's maximum plus
// a second, the timestamps' precision): the model cannot say when they will be; nil and why.
// Pure: pods are the namespace's pods as read (not modified).
func RestUnderTimedModel(st *cluster.State, pods []*corev1.Pod, flag *estimate.Estimate, now time.Time) (func(planner.Input) (*planner.Plan, error), string) {
	var e estimate.Estimate
	if flag != nil {
		e = *flag
	} else {
		var err error
		if e, err = estimate.FromPods(pods, estimate.SampledReplicaSets(st.ReplicaSets)); err != nil {
			return nil, ""
		}
	}
	if n, oldest := overdue(st, pods, e, now); n > 0 {
		return nil, fmt.Sprintf("none: %d %s not Ready after %s, longer than the time model's %s", n, pods1(n), oldest, basis(e))
	}
	tm := e.Timing()
	tm.Pending = estimate.Pending(pods, st.ReplicaSets, e, st.Deployment.Spec.MinReadySeconds, now)
	return func(in planner.Input) (*planner.Plan, error) {
		in.Readiness, in.Timing = planner.ReadinessTimed, tm
		return planner.Simulate(in)
	}, basis(e)
}

// basis describes an estimate: "pods Ready after 2s (--pod-ready-after)", "pods Ready after
// 1s..4s (--pod-ready-after)", "pods Ready after 2s (median of 20 pods, 2s..3s)".
func basis(e estimate.Estimate) string {
	span := e.Min.String()
	if e.Max != e.Min {
		span = fmt.Sprintf("%s..%s", e.Min, e.Max)
	}
	if e.Source == estimate.SourceFlag {
		return fmt.Sprintf("pods Ready after %s (--pod-ready-after)", span)
	}
	return fmt.Sprintf("pods Ready after %s (median of %d pods, %s)", e.Median, e.Samples, span)
}

// overdue counts the pods of st's ReplicaSets that are not Ready and older than e.Max plus a
// second at now, and returns the age of the oldest.
func overdue(st *cluster.State, pods []*corev1.Pod, e estimate.Estimate, now time.Time) (int, time.Duration) {
	owners := map[types.UID]bool{}
	for _, rs := range st.ReplicaSets {
		owners[rs.UID] = true
	}
	n, oldest := 0, time.Duration(0)
	for _, p := range pods {
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil || !owners[ref.UID] || p.DeletionTimestamp != nil || isReady(p) {
			continue
		}
		if age := now.Sub(p.CreationTimestamp.Time); age > e.Max+time.Second {
			n, oldest = n+1, max(oldest, age.Round(time.Second))
		}
	}
	return n, oldest
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func pods1(n int) string {
	if n == 1 {
		return "pod is"
	}
	return "pods are"
}

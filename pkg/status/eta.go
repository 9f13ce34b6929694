package status

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// UseTimedModel sets o's Plan, Rest and RestBasis for st at now under readiness timed, with
// the estimate flag (--pod-ready-after) or, when flag is nil, one measured on the
// Deployment's own pods (estimate.FromPods over estimate.SampledReplicaSets: creation to
// Ready of the pods of the new and the previous ReplicaSet), and the sync latency latency
// (--sync-latency) or, when nil, the one fitted to the Deployment's last rollout
// (SyncLatency: none while a rollout is in flight, as its end is not there to measure; see
// Latencies for the one kept from the rollout before). It returns the latency used (zero
// without a Ready pod to measure).
//   - with flag, Plan plans the whole rollout from StartState (step k of n against the
//     timed plan, whose steps are the controller's finer writes when pods become ready one
//     by one). Not with an estimate measured on the pods: the rollout's own pods become
//     samples as they become Ready, so that plan would change under the rollout (its n, and
//     k with it, moved back and forth on a real cluster); the batched plan stays;
//   - Rest plans the rest from the live state, with the Ready times of the pods not yet
//     available (estimate.Pending); RestBasis says what the model assumed, for people
//     ("pods Ready after 2s (--pod-ready-after)", "... median 2s of 20 pods").
//
// Without a Ready pod to measure, o is left as it is (the batched plan, no ETA). When pods
// of the Deployment are overdue (not Ready longer than the estimate's maximum plus a second,
// the timestamps' precision) the model cannot say when they will be: Rest is nil and
// RestBasis says why. Pure: pods are the namespace's pods as read (not modified).
func (o *Options) UseTimedModel(st *cluster.State, pods []*corev1.Pod, flag *estimate.Estimate, latency *estimate.Latency, now time.Time) estimate.Latency {
	var e estimate.Estimate
	if flag != nil {
		e = *flag
	} else {
		var err error
		if e, err = estimate.FromPods(pods, estimate.SampledReplicaSets(st.ReplicaSets)); err != nil {
			return estimate.Latency{}
		}
	}
	if latency != nil {
		e.Latency = *latency
	} else {
		e.Latency = SyncLatency(st.Deployment, st.ReplicaSets, e)
	}
	if flag != nil {
		whole := e.Timing()
		o.Plan = func(in planner.Input) (*planner.Plan, error) {
			in.Readiness, in.Timing = planner.ReadinessTimed, whole
			return planner.Simulate(in)
		}
	}
	if n, oldest := overdue(st, pods, e, now); n > 0 {
		o.Rest, o.RestBasis = nil, fmt.Sprintf("none: %d %s not Ready after %s, longer than the time model's %s", n, pods1(n), oldest, basis(e))
		return e.Latency
	}
	tm := e.Timing()
	tm.Pending = estimate.Pending(pods, st.ReplicaSets, e, st.Deployment.Spec.MinReadySeconds, now)
	o.Rest = func(in planner.Input) (*planner.Plan, error) {
		in.Readiness, in.Timing = planner.ReadinessTimed, tm
		return planner.Simulate(in)
	}
	o.RestBasis = basis(e)
	return e.Latency
}

// Latencies keeps, per Deployment (namespace/name/uid), the sync latency fitted to its last
// complete rollout: once the next rollout starts, its objects no longer show the last one
// whole (LastRollout: not complete), and the ETA of the rollout in flight uses the kept one.
// Follow keeps one for as long as it watches; a process that starts in the middle of a
// rollout has none (latency 0, unless --sync-latency).
type Latencies map[string]estimate.Latency

// For returns UseTimedModel's latency for d: flag (--sync-latency) when set; the one kept
// for d while its rollout is in flight (kubectl's verdict is not Complete); nil (fit now)
// otherwise.
func (k Latencies) For(d *appsv1.Deployment, flag *estimate.Latency) *estimate.Latency {
	if flag != nil {
		return flag
	}
	if phase, _ := Verdict(d); phase == PhaseComplete {
		return nil
	}
	if l, ok := k[latencyKey(d)]; ok {
		return &l
	}
	return nil
}

// Keep records l for d when it was fitted to d's complete rollout (LatencyRollout).
func (k Latencies) Keep(d *appsv1.Deployment, l estimate.Latency) {
	if phase, _ := Verdict(d); phase == PhaseComplete && l.Source == estimate.LatencyRollout {
		k[latencyKey(d)] = l
	}
}

func latencyKey(d *appsv1.Deployment) string {
	return d.Namespace + "/" + d.Name + "/" + string(d.UID)
}

// SyncLatency fits the sync latency to the last rollout of d (live, with rss, the
// ReplicaSets its controller claims: LastRollout, estimate.FitSyncLatency) with pod
// readiness e; without such a rollout, or when the model cannot replay it, the latency is
// none (0) and says why. Pure.
func SyncLatency(d *appsv1.Deployment, rss []*appsv1.ReplicaSet, e estimate.Estimate) estimate.Latency {
	r, ok, why := LastRollout(d, rss)
	if !ok {
		return estimate.Latency{Why: why}
	}
	l, err := estimate.FitSyncLatency(r, e)
	if err != nil {
		return estimate.Latency{Why: err.Error()}
	}
	return l
}

// Basis is basis: how the ETA of a StatefulSet or DaemonSet (pipeline.KindETA) names its
// time model, in the words of the Deployment's.
func Basis(e estimate.Estimate) string { return basis(e) }

// basis describes an estimate: "pods Ready after 2s (--pod-ready-after)", "pods Ready after
// 1s..4s (--pod-ready-after)", "pods Ready after 2s (median of 20 pods, 2s..3s)", with its
// sync latency when it has one (", 500ms per write (--sync-latency)").
func basis(e estimate.Estimate) string {
	span := e.Min.String()
	if e.Max != e.Min {
		span = fmt.Sprintf("%s..%s", e.Min, e.Max)
	}
	out := fmt.Sprintf("pods Ready after %s (median of %d pods, %s)", e.Median, e.Samples, span)
	if e.Source == estimate.SourceFlag {
		out = fmt.Sprintf("pods Ready after %s (--pod-ready-after)", span)
	}
	switch e.Latency.Source {
	case estimate.LatencyFlag:
		out += fmt.Sprintf(", %s per write (--sync-latency)", e.Latency.PerWrite)
	case estimate.LatencyRollout:
		out += fmt.Sprintf(", %s per write (fitted to the last rollout)", e.Latency.PerWrite)
	}
	return out
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

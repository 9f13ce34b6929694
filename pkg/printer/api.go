package printer

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// NewRolloutPlan converts a planner.Plan to its API object.
func NewRolloutPlan(p *planner.Plan, warnings []string) *v1alpha1.RolloutPlan {
	out := &v1alpha1.RolloutPlan{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "RolloutPlan"},
		Deployment: v1alpha1.PlanDeployment{
			Namespace: p.Namespace, Name: p.Name, Replicas: p.Replicas, Paused: p.Paused,
			RevisionHistoryLimit: p.RevisionHistoryLimit, ProgressDeadlineSeconds: p.ProgressDeadlineSeconds,
		},
		Strategy: v1alpha1.PlanStrategy{
			Type: string(p.Strategy.Type), MaxSurge: p.Strategy.MaxSurgeSpec, MaxUnavailable: p.Strategy.MaxUnavailableSpec,
			MaxSurgePods: p.Strategy.MaxSurge, MaxUnavailablePods: p.Strategy.MaxUnavailable,
		},
		Readiness: string(p.Readiness),
		NewReplicaSet: v1alpha1.PlanNewReplicaSet{
			Name: p.NewReplicaSet.Name, PodTemplateHash: p.NewReplicaSet.PodTemplateHash, Revision: p.NewReplicaSet.Revision,
			Exists: p.NewReplicaSet.Exists, Reused: p.NewReplicaSet.Reused, Created: p.NewReplicaSet.Created,
			PreviousRevision: p.NewReplicaSet.PreviousRevision, RevisionHistory: p.NewReplicaSet.RevisionHistory,
			CollisionCount: p.NewReplicaSet.CollisionCount,
		},
		Steps:         make([]v1alpha1.PlanStep, 0, len(p.Steps)),
		Outcome:       string(p.Outcome),
		StalledReason: p.StalledReason,
		Cleanup:       []v1alpha1.PlanCleanup{},
		Syncs:         p.Syncs,
		Warnings:      warnings,
	}
	for i, rs := range p.ReplicaSets {
		out.ReplicaSets = append(out.ReplicaSets, v1alpha1.PlanReplicaSet{
			Name: rs.Name, Revision: rs.Revision, New: rs.New,
			InitialReplicas: p.Initial[i], InitialAvailable: p.InitialAvailable[i],
			FinalReplicas: p.Final[i], FinalAvailable: p.FinalAvailable[i],
		})
	}
	for i, st := range p.Steps {
		m := make(map[string]int32, len(st.Replicas))
		for k, r := range st.Replicas {
			m[p.ReplicaSets[k].Name] = r
		}
		out.Steps = append(out.Steps, v1alpha1.PlanStep{
			Step: i + 1, ReplicaSet: p.ReplicaSets[st.ReplicaSet].Name, From: st.From, To: st.To, Create: st.Create,
			Decision: string(st.Decision), Wait: string(st.Wait), Sync: st.Sync, ReplicaSets: m,
			Total: st.Total, Available: st.Available, At: timedDuration(p, st.At),
		})
	}
	out.Duration = timedDuration(p, p.Duration)
	if p.ProgressDeadlineAt != nil {
		out.ProgressDeadlineAt = &metav1.Duration{Duration: *p.ProgressDeadlineAt}
	}
	for _, c := range p.Cleanup {
		out.Cleanup = append(out.Cleanup, v1alpha1.PlanCleanup{Name: c.Name, Revision: c.Revision, RollbackTarget: c.RollbackTarget})
	}
	return out
}

// timedDuration is d as an API duration under readiness timed, nil under the other models
// (which have no time).
func timedDuration(p *planner.Plan, d time.Duration) *metav1.Duration {
	if p.Readiness != planner.ReadinessTimed {
		return nil
	}
	return &metav1.Duration{Duration: d}
}

// NewPlanTiming converts the estimate a timed plan was made with (and the Deployment's
// minReadySeconds) to its API object.
func NewPlanTiming(e *estimate.Estimate, minReadySeconds int32) *v1alpha1.PlanTiming {
	t := &v1alpha1.PlanTiming{
		Source:            string(e.Source),
		ReadyAfterMin:     metav1.Duration{Duration: e.Min},
		ReadyAfterMedian:  metav1.Duration{Duration: e.Median},
		ReadyAfterMax:     metav1.Duration{Duration: e.Max},
		MinReadySeconds:   minReadySeconds,
		Samples:           e.Samples,
		ReplicaSets:       e.ReplicaSets,
		SyncLatency:       metav1.Duration{Duration: e.Latency.PerWrite},
		SyncLatencySource: string(e.Latency.Source),
		SyncLatencyNote:   e.Latency.Why,
	}
	if e.Latency.Source == estimate.LatencyRollout {
		t.SyncLatencyReplicaSet = e.Latency.ReplicaSet
		t.SyncLatencyTook = &metav1.Duration{Duration: e.Latency.Took}
		t.SyncLatencyModelled = &metav1.Duration{Duration: e.Latency.Modelled}
	}
	return t
}

package status

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
)

// podsOf returns n pods of rs created at created, Ready readyAfter later (readyAfter < 0:
// not Ready).
func podsOf(rs *appsv1.ReplicaSet, n int, created time.Time, readyAfter time.Duration) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", rs.Name, i), Namespace: rs.Namespace,
			CreationTimestamp: metav1.NewTime(created),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}}}
		if readyAfter >= 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(created.Add(readyAfter))}}
		}
		out = append(out, p)
	}
	return out
}

// timedOptions returns the Options UseTimedModel sets.
func timedOptions(st *cluster.State, pods []*corev1.Pod, flag *estimate.Estimate, latency *estimate.Latency, now time.Time) Options {
	var o Options
	o.UseTimedModel(st, pods, flag, latency, now)
	return o
}

// TestUseTimedModelETA: measured on the pods (the old ones took 2 s), the 5 new pods
// created 1 s ago are Ready in 1 s, then the last 5 take 2 s: ETA 3 s. New pods not Ready
// after 10 s are overdue: no ETA, and why. With --sync-latency 500ms the last 5 start 0.5 s
// after their write: ETA 3.5 s.
func TestUseTimedModelETA(t *testing.T) {
	now := testutil.Time(60).Time
	d, rss := point{oldReplicas: 8, oldAvailable: 8, newReplicas: 5, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	st := &cluster.State{Deployment: d, ReplicaSets: rss}
	pods := append(podsOf(rss[0], 8, now.Add(-time.Hour), 2*time.Second), podsOf(rss[1], 5, now.Add(-time.Second), -1)...)
	o := timedOptions(st, pods, nil, nil, now)
	if o.Rest == nil || o.RestBasis != "pods Ready after 2s (median of 8 pods, 2s)" {
		t.Fatalf("basis %q (rest %v)", o.RestBasis, o.Rest != nil)
	}
	s := Compute(d, rss, now, o)
	if !s.HasETA || s.ETA != 3*time.Second {
		t.Errorf("ETA %v (known %v), want 3s", s.ETA, s.HasETA)
	}
	latency := estimate.Latency{Source: estimate.LatencyFlag, PerWrite: 500 * time.Millisecond}
	o = timedOptions(st, pods, nil, &latency, now)
	if s := Compute(d, rss, now, o); !s.HasETA || s.ETA != 3500*time.Millisecond ||
		o.RestBasis != "pods Ready after 2s (median of 8 pods, 2s), 500ms per write (--sync-latency)" {
		t.Errorf("with --sync-latency 500ms: ETA %v (known %v), basis %q; want 3.5s", s.ETA, s.HasETA, o.RestBasis)
	}
	pods = append(podsOf(rss[0], 8, now.Add(-time.Hour), 2*time.Second), podsOf(rss[1], 5, now.Add(-10*time.Second), -1)...)
	o = timedOptions(st, pods, nil, nil, now)
	if o.Rest != nil || o.Plan != nil || !strings.HasPrefix(o.RestBasis, "none: 5 pods are not Ready after 10s, longer than the time model's pods Ready after 2s") {
		t.Errorf("overdue pods: rest %v, plan %v, basis %q", o.Rest != nil, o.Plan != nil, o.RestBasis)
	}
	s = Compute(d, rss, now, o)
	if s.HasETA || s.ETABasis != o.RestBasis {
		t.Errorf("overdue: ETA known %v, basis %q", s.HasETA, s.ETABasis)
	}
}

// TestUseTimedModelSteps: step k of n counts against the timed plan. 10 replicas 25%/25%
// (maxSurge 3, maxUnavailable 2), pods Ready 1s..4s spread over pods (--pod-ready-after:
// 1s, 2.6s, 1.8s, 3.4s, 1.4s, 3s, ...). The batched plan has 6 steps (create new 3, old
// 10->8, new 3->5, old 8->3, new 5->10, old 3->0). The timed one starts the same, then the
// controller reacts to each pod: at 1 s pod 0 is available (9 available, 4 new unavailable:
// 13-8-4 = 1 may go): old 8->7, then new 5->6 (12 < 13 pods); at 1.4 s pod 4: old 7->6 ...
// So with old at 7 and new at 6 the rollout has reached 5 steps of the timed plan (it is
// about to write old 7->6), but only 3 of the batched one (old 8->3 is not reached). With
// pod readiness measured on the pods, the batched plan stays (see UseTimedModel).
func TestUseTimedModelSteps(t *testing.T) {
	now := testutil.Time(60).Time
	d, rss := point{oldReplicas: 7, oldAvailable: 7, newReplicas: 6, newAvailable: 1, observed: true}.state(testutil.RollingUpdate("25%", "25%"))
	st := &cluster.State{Deployment: d, ReplicaSets: rss}
	if s := Compute(d, rss, now, Options{}); s.Step != 3 || s.Steps != 6 {
		t.Fatalf("batched: step %d of %d, want 3 of 6", s.Step, s.Steps)
	}
	flag, err := estimate.ParseReadyAfter("1s..4s")
	if err != nil {
		t.Fatal(err)
	}
	s := Compute(d, rss, now, timedOptions(st, nil, &flag, nil, now))
	if s.Plan == nil || s.Step != 5 || s.Steps <= 6 {
		t.Fatalf("timed: step %d of %d (plan %v), want 5 of more than 6", s.Step, s.Steps, s.Plan != nil)
	}
	var first []string
	for _, st := range s.Plan.Steps[:6] {
		which := "old"
		if s.Plan.ReplicaSets[st.ReplicaSet].New {
			which = "new"
		}
		first = append(first, fmt.Sprintf("%s %d->%d at %s", which, st.From, st.To, st.At))
	}
	want := []string{"new 0->3 at 0s", "old 10->8 at 0s", "new 3->5 at 0s", "old 8->7 at 1s", "new 5->6 at 1s", "old 7->6 at 1.4s"}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("the timed plan's first steps (-want +got):\n%s", diff)
	}
	// Without a Ready pod to measure (and no flag), the plan stays batched and there is no ETA.
	if o := timedOptions(st, nil, nil, nil, now); o.Plan != nil || o.Rest != nil {
		t.Errorf("no pods, no flag: plan %v, rest %v; want neither", o.Plan != nil, o.Rest != nil)
	}
	// Measured on pods (the rollout's own pods become samples as it goes), the plan stays
	// batched: an ETA, but step 3 of 6.
	pods := podsOf(rss[0], 7, now.Add(-time.Hour), 2*time.Second)
	if s := Compute(d, rss, now, timedOptions(st, pods, nil, nil, now)); !s.HasETA || s.Step != 3 || s.Steps != 6 {
		t.Errorf("measured pods: step %d of %d, ETA known %v; want 3 of 6 (batched) with an ETA", s.Step, s.Steps, s.HasETA)
	}
}

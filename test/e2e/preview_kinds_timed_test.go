//go:build e2e

package e2e

import (
	"encoding/json"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestPreviewKindsTimedStatefulSet: the timed model of an OrderedReady StatefulSet (3
// replicas, minReadySeconds 3: each ordinal waits for the previous pod to be available),
// with the pods' creation-to-Ready measured on its own pods, predicts the rollout's duration
// within 25% (or 2 s) of the one measured from the update until every pod is updated and
// available. Not parallel, as TestTimedPredictionMatchesRollout: it measures time.
func TestPreviewKindsTimedStatefulSet(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3), ServiceName: "db", MinReadySeconds: 3,
			Template: kindsPodTemplate("db", "nginx:1.18"),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}
	if _, err := c.Client.AppsV1().StatefulSets(ns).Create(t.Context(), sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kindRolledOut(t, c, ns, "sts/db")
	res := c.Plugin(t, "preview", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--readiness", "timed", "--sync-latency", "0", "-o", "json")
	var p v1alpha1.RolloutPlan
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &p) != nil || p.Duration == nil || p.Timing == nil || p.Timing.Source != "pods" {
		t.Fatalf("preview --readiness timed: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	for _, op := range p.PodOperations {
		if op.At == nil {
			t.Fatalf("operation %+v has no time", op)
		}
	}
	predicted := p.Duration.Duration
	began := time.Now()
	setKindImage(t, c, ns, "sts", "db", "nginx:1.19")
	deadline := began.Add(60 * time.Second)
	for {
		s, err := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), "db", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Status.ObservedGeneration == s.Generation && s.Status.UpdatedReplicas == 3 && s.Status.AvailableReplicas == 3 && s.Status.CurrentRevision == s.Status.UpdateRevision {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rollout not complete after 60s: %+v", s.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	measured := time.Since(began)
	t.Logf("predicted %s (pods Ready %s after creation, median of %d), measured %s", predicted, p.Timing.ReadyAfterMedian.Duration, p.Timing.Samples, measured.Round(10*time.Millisecond))
	if d := (predicted - measured).Abs(); d > max(measured/4, 2*time.Second) {
		t.Errorf("predicted %s, measured %s: off by %s, more than 25%% (or 2 s)", predicted, measured.Round(10*time.Millisecond), d.Round(10*time.Millisecond))
	}
}

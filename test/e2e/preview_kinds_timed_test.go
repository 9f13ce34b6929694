//go:build e2e

package e2e

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

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
	timedPredictionMatches(t, c, ns, "sts", "db", 0, 60*time.Second, stsComplete(t, c, ns, "db", 3))
}

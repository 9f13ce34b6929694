package cmd

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestKindsStatusOutputWatch: -o yaml --watch prints a WorkloadStatus at every change, one
// YAML document each ("---" between them), the last one done.
func TestKindsStatusOutputWatch(t *testing.T) {
	w, objs := kindsFixture(t, target.KindStatefulSet)
	w.StatefulSet.Generation, w.StatefulSet.Status.ObservedGeneration, w.StatefulSet.Status.ReadyReplicas = 1, 1, 1
	c := fake.NewClientset(objs...)
	o, out, _ := kindsOptions("status", c, "sts/db")
	o.Output, o.Watch, o.Timeout = "yaml", true, 5*time.Second
	done := make(chan error)
	go func() { done <- o.Run(context.Background()) }()
	time.Sleep(300 * time.Millisecond)
	s := w.StatefulSet.DeepCopy()
	s.Status.ReadyReplicas, s.Status.UpdatedReplicas, s.Status.CurrentReplicas = 2, 2, 2
	s.Status.CurrentRevision, s.Status.UpdateRevision = "db-h3", "db-h3"
	if _, err := c.AppsV1().StatefulSets("ns").UpdateStatus(context.Background(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("%v; printed %q", err, out)
	}
	got := out.String()
	if strings.Count(got, "kind: WorkloadStatus") != 2 || strings.Count(got, "\n---\n") != 1 || !strings.Contains(got, "done: true") ||
		!strings.Contains(got, "message: Waiting for 1 pods to be ready...") {
		t.Errorf("status -o yaml --watch: want two documents, the first waiting, the last done:\n%s", got)
	}
}

// TestKindsStatusWatchTimeout: --watch --timeout that passes before the rollout completes
// exits ExitTimedOut naming the object.
func TestKindsStatusWatchTimeout(t *testing.T) {
	w, objs := kindsFixture(t, target.KindStatefulSet)
	w.StatefulSet.Generation, w.StatefulSet.Status.ObservedGeneration, w.StatefulSet.Status.ReadyReplicas = 1, 1, 1
	o, out, _ := kindsOptions("status", fake.NewClientset(objs...), "sts/db")
	o.Watch, o.Timeout = true, 300*time.Millisecond
	var b strings.Builder
	err := o.Run(context.Background())
	if code := HandleError(&b, err); code != ExitTimedOut || b.String() != "error: timed out after 300ms waiting for the rollout of statefulset.apps/db to finish\n" ||
		!strings.HasPrefix(out.String(), "Waiting for 1 pods to be ready...") {
		t.Errorf("exit %d %q; printed %q", code, b.String(), out)
	}
}

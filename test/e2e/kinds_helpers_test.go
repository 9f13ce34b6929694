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

// stsUnderCPUQuota creates StatefulSet db in ns (2 pods without requests, Parallel, image
// nginx:1.18), waits for it to roll out, then adds a LimitRange defaulting cpu requests to
// 200m and a requests.cpu quota of 250m, and waits until the quota counts both pods: a new
// pod is charged 200m, so of two replacements the second is refused.
func stsUnderCPUQuota(t *testing.T, c *framework.Cluster, ns string) {
	t.Helper()
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](2), ServiceName: "db", Template: kindsPodTemplate("db", "nginx:1.18"),
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}}}
	if _, err := c.Client.AppsV1().StatefulSets(ns).Create(t.Context(), sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kindRolledOut(t, c, ns, "sts/db")
	createDefaultCPURequest(t, c, ns, "200m")
	createCPUQuota(t, c, ns, "250m")
	waitQuotaUsed(t, c, ns, "cpu", 2, 60*time.Second)
}

// timedPredictionMatches previews kind/name's change to nginx:1.19 under the timed model
// (`--readiness timed --sync-latency 0 -o json`, pods' creation-to-Ready measured on its own
// pods; wantOps > 0: that many pod operations), requires a time on every operation, then
// makes the change and waits up to timeout for complete (it reads the object: done, and its
// status to report) and checks the predicted duration is within 25% (or 2 s) of the one
// measured from the update.
func timedPredictionMatches(t *testing.T, c *framework.Cluster, ns, kind, name string, wantOps int, timeout time.Duration, complete func() (bool, any)) {
	t.Helper()
	res := c.Plugin(t, "preview", kind+"/"+name, "-n", ns, "--image", "app=nginx:1.19", "--readiness", "timed", "--sync-latency", "0", "-o", "json")
	var p v1alpha1.RolloutPlan
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &p) != nil || p.Duration == nil || p.Timing == nil || p.Timing.Source != "pods" {
		t.Fatalf("preview --readiness timed: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if wantOps > 0 && len(p.PodOperations) != wantOps {
		t.Fatalf("%d pod operations, want %d: %+v", len(p.PodOperations), wantOps, p.PodOperations)
	}
	for _, op := range p.PodOperations {
		if op.At == nil {
			t.Fatalf("operation %+v has no time", op)
		}
	}
	predicted := p.Duration.Duration
	began := time.Now()
	setKindImage(t, c, ns, kind, name, "nginx:1.19")
	deadline := began.Add(timeout)
	for {
		done, status := complete()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rollout not complete after %s: %+v", timeout, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	measured := time.Since(began)
	t.Logf("predicted %s (pods Ready %s after creation, median of %d), measured %s", predicted, p.Timing.ReadyAfterMedian.Duration, p.Timing.Samples, measured.Round(10*time.Millisecond))
	if d := (predicted - measured).Abs(); d > max(measured/4, 2*time.Second) {
		t.Errorf("predicted %s, measured %s: off by %s, more than 25%% (or 2 s)", predicted, measured.Round(10*time.Millisecond), d.Round(10*time.Millisecond))
	}
}

// stsComplete returns a complete func for timedPredictionMatches: StatefulSet name in ns has
// observed its generation and runs replicas updated, available pods on its update revision.
func stsComplete(t *testing.T, c *framework.Cluster, ns, name string, replicas int32) func() (bool, any) {
	return func() (bool, any) {
		s, err := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := s.Status
		return st.ObservedGeneration == s.Generation && st.UpdatedReplicas == replicas && st.AvailableReplicas == replicas && st.CurrentRevision == st.UpdateRevision, st
	}
}

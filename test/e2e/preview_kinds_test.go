//go:build e2e

package e2e

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// previewKind runs `preview REF ARGS... -o json` and returns the plan.
func previewKind(t *testing.T, c *framework.Cluster, ns, ref string, args ...string) *v1alpha1.RolloutPlan {
	t.Helper()
	res := c.Plugin(t, append([]string{"preview", ref, "-n", ns, "-o", "json"}, args...)...)
	var p v1alpha1.RolloutPlan
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &p) != nil {
		t.Fatalf("preview %s %v: exit %d\n%s\n%s", ref, args, res.ExitCode, res.Stdout, res.Stderr)
	}
	return &p
}

// deletions watches the pods of ns and returns, once stopped, the names of the pods deleted
// whose revision label is not skip (the old pods the rollout replaces), in the order the API
// server reported them.
func deletions(t *testing.T, c *framework.Cluster, ns, skip string) func() []string {
	t.Helper()
	w, err := c.Client.CoreV1().Pods(ns).Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Deleted && p.Labels[appsv1.StatefulSetRevisionLabel] != skip && p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != skip {
				out = append(out, p.Name)
			}
		}
	}()
	return func() []string {
		w.Stop()
		<-done
		return out
	}
}

// checkRevision checks the ControllerRevision name exists with number n.
func checkRevision(t *testing.T, c *framework.Cluster, ns, name string, n int64) {
	t.Helper()
	cr, err := c.Client.AppsV1().ControllerRevisions(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil || cr.Revision != n {
		t.Errorf("predicted ControllerRevision %s number %d: live %v, err %v", name, n, cr, err)
	}
}

// TestPreviewKindsDaemonSet previews an image change of a DaemonSet on the kwok nodes, applies
// it, and checks the controller replaced the pod of each predicted node (the pods deleted,
// the nodes of the new pods) with the predicted ControllerRevision name and number.
func TestPreviewKindsDaemonSet(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	createKind(t, c, ns, "ds", "agent")
	kindRolledOut(t, c, ns, "ds/agent")
	p := previewKind(t, c, ns, "ds/agent", "--image", "app=nginx:1.19")
	if p.Workload == nil || *p.Workload != (v1alpha1.PlanWorkload{Kind: "DaemonSet", Namespace: ns, Name: "agent", Strategy: "RollingUpdate"}) || p.Kind != "RolloutPlan" || p.Outcome != "Complete" || p.UpdateRevisionNumber != 2 {
		t.Fatalf("plan: %+v", p)
	}
	var wantDeleted, wantNodes []string
	for _, op := range p.PodOperations {
		if op.Action == "Delete" {
			wantDeleted = append(wantDeleted, op.Pod)
		} else {
			wantNodes = append(wantNodes, op.Node)
			if op.Revision != p.UpdateRevision {
				t.Errorf("create on %s: revision %s, update revision %s", op.Node, op.Revision, p.UpdateRevision)
			}
		}
	}
	if len(wantNodes) == 0 {
		t.Fatalf("no create predicted: %+v", p.PodOperations)
	}
	stop := deletions(t, c, ns, strings.TrimPrefix(p.UpdateRevision, "agent-"))
	setKindImage(t, c, ns, "ds", "agent", "nginx:1.19")
	kindRolledOut(t, c, ns, "ds/agent")
	deleted := stop()
	checkRevision(t, c, ns, p.UpdateRevision, p.UpdateRevisionNumber)
	pods, err := c.Client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=agent"})
	if err != nil {
		t.Fatal(err)
	}
	var gotNodes []string
	hash := strings.TrimPrefix(p.UpdateRevision, "agent-")
	for _, pod := range pods.Items {
		if pod.DeletionTimestamp == nil && pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
			gotNodes = append(gotNodes, pod.Spec.NodeName)
		}
	}
	sort.Strings(wantDeleted)
	sort.Strings(deleted)
	sort.Strings(wantNodes)
	sort.Strings(gotNodes)
	if !slices.Equal(deleted, wantDeleted) || !slices.Equal(gotNodes, wantNodes) {
		t.Errorf("controller deleted %v and created on %v; predicted %v and %v", deleted, gotNodes, wantDeleted, wantNodes)
	}
}

// TestPreviewKindsStatefulSet previews an image change with --partition 1 of a 3-replica
// StatefulSet, applies the same change, and checks the controller deleted the predicted pods
// in the predicted (descending ordinal) order, stopped at the partition, and stored the
// predicted ControllerRevision.
func TestPreviewKindsStatefulSet(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	_, err := c.Client.AppsV1().StatefulSets(ns).Create(t.Context(), &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{
		Replicas: ptr.To[int32](3), Selector: sel, ServiceName: "db", Template: kindsPodTemplate("db", "nginx:1.18"),
		PodManagementPolicy: appsv1.ParallelPodManagement,
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kindRolledOut(t, c, ns, "sts/db")
	p := previewKind(t, c, ns, "sts/db", "--image", "app=nginx:1.19", "--partition", "1")
	var want []string
	for _, op := range p.PodOperations {
		if op.Action == "Delete" {
			want = append(want, op.Pod)
		}
	}
	if p.Outcome != "Partitioned" || p.UpdateRevisionNumber != 2 || !slices.Equal(want, []string{"db-2", "db-1"}) {
		t.Fatalf("plan: outcome %s, revision %d, deletes %v", p.Outcome, p.UpdateRevisionNumber, want)
	}
	stop := deletions(t, c, ns, p.UpdateRevision)
	patch := `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":1}},"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.19"}]}}}}`
	if res := c.Kubectl(t, "-n", ns, "patch", "sts/db", "-p", patch); res.ExitCode != 0 {
		t.Fatalf("patch: %s", res.Stderr)
	}
	kindRolledOut(t, c, ns, "sts/db")
	time.Sleep(500 * time.Millisecond) // the last DELETED event
	got := stop()
	if !slices.Equal(got, want) {
		t.Errorf("controller deleted %v, predicted %v", got, want)
	}
	checkRevision(t, c, ns, p.UpdateRevision, p.UpdateRevisionNumber)
	db0, err := c.Client.CoreV1().Pods(ns).Get(t.Context(), "db-0", metav1.GetOptions{})
	if err != nil || db0.Labels[appsv1.StatefulSetRevisionLabel] == p.UpdateRevision {
		t.Errorf("db-0 (below the partition) is on the update revision or gone: %v", err)
	}
}

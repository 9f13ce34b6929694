package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

// statusQuotaCluster is web mid-rollout (4 replicas, maxSurge 2, maxUnavailable 0): the
// controller scaled the new ReplicaSet to 2, whose pods the pods quota (hard, used 4: the
// old pods) refuses when hard is 4.
func statusQuotaCluster(hardPods string) *fake.Clientset {
	old := testutil.Deployment("web").Replicas(4).MaxSurge("2").MaxUnavailable("0").Build()
	d := testutil.Deployment("web").Replicas(4).MaxSurge("2").MaxUnavailable("0").Image("nginx:1.19").Revision(2).
		ProgressDeadlineSeconds(600).Status(4, 0, 4, 4).Build()
	oldRS := testutil.ReplicaSetFor(old).Name("web-old").Revision(1).Replicas(4).Available(4).Build()
	newRS := testutil.ReplicaSetFor(d).Revision(2).Replicas(2).Status(0, 0, 0).Build()
	newRS.CreationTimestamp = metav1.NewTime(statusNow.Add(-30 * time.Second))
	d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
		Reason: "ReplicaSetUpdated", LastUpdateTime: metav1.NewTime(statusNow.Add(-30 * time.Second))}}
	hard := corev1.ResourceList{corev1.ResourcePods: resource.MustParse(hardPods)}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: "pods"},
		Spec:   corev1.ResourceQuotaSpec{Hard: hard},
		Status: corev1.ResourceQuotaStatus{Hard: hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4")}}}
	objs := []runtime.Object{d, oldRS, newRS, q}
	for i, rs := range []*appsv1.ReplicaSet{oldRS, oldRS, oldRS, oldRS} {
		objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: fmt.Sprintf("%s-%d", rs.Name, i),
			Labels: rs.Spec.Template.Labels, OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
			Spec: rs.Spec.Template.Spec, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
	}
	return fake.NewClientset(objs...)
}

// A pods quota with no room for the new ReplicaSet's surge pods: status names the stall of
// the remaining plan (before its next write), with the quota, in the human block and in
// -o json; a quota with room for them finds nothing, and the block is as without checks.
func TestStatusFeasibilityQuotaStall(t *testing.T) {
	o, out := newStatusTest(statusQuotaCluster("4"), "deploy/web")
	mustRun(t, o.Run)
	if !strings.Contains(out.String(), "Will stall before the next write: Quota: ") || !strings.Contains(out.String(), "exceeded quota: pods") {
		t.Errorf("want the predicted quota stall:\n%s", out)
	}

	o, out = newStatusTest(statusQuotaCluster("4"))
	o.Selection.All = true
	mustRun(t, o.Run)
	if !strings.Contains(out.String(), "  WILL STALL: Quota") {
		t.Errorf("want the line to say it will stall on a quota:\n%s", out)
	}

	o, out = newStatusTest(statusQuotaCluster("4"), "web")
	o.Output.Output = "json"
	mustRun(t, o.Run)
	var got v1alpha1.RolloutStatus
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	f := got.Feasibility
	if f == nil || f.Stall == nil || f.Stall.Reason != "Quota" || len(f.Stall.Objects) != 1 || f.Stall.Objects[0] != "resourcequota/pods" {
		t.Errorf("feasibility = %+v, want a Quota stall naming resourcequota/pods", f)
	}

	o, out = newStatusTest(statusQuotaCluster("6"), "deploy/web")
	mustRun(t, o.Run)
	o, none := newStatusTest(statusQuotaCluster("6"), "deploy/web")
	o.Checks = "none"
	mustRun(t, o.Run)
	if out.String() != none.String() {
		t.Errorf("room for the surge: want the block of --checks=none\n%s\ngot\n%s", none, out)
	}
}

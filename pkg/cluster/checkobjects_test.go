package cluster

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

func TestLoadCheckObjects(t *testing.T) {
	meta := func(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }
	client := fake.NewClientset(
		&corev1.ResourceQuota{ObjectMeta: meta("shop", "compute")},
		&corev1.ResourceQuota{ObjectMeta: meta("other", "compute")},
		&corev1.LimitRange{ObjectMeta: meta("shop", "defaults")},
		&policyv1.PodDisruptionBudget{ObjectMeta: meta("shop", "web")},
		&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta("shop", "web")},
		&corev1.Pod{ObjectMeta: meta("shop", "web-1")},
		&corev1.Pod{ObjectMeta: meta("other", "db-1")},
	)
	client.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", nil)
	})
	c := LoadCheckObjects(context.Background(), client, "shop", nil, 500)
	lists := map[string]int{}
	for _, a := range client.Actions() {
		if a.GetVerb() != "list" {
			t.Errorf("unexpected %s %s", a.GetVerb(), a.GetResource().Resource)
		}
		lists[a.GetResource().Resource+" "+a.GetNamespace()]++
	}
	wantLists := map[string]int{"resourcequotas shop": 1, "limitranges shop": 1, "nodes ": 1, "pods ": 1,
		"poddisruptionbudgets shop": 1, "horizontalpodautoscalers shop": 1}
	if diff := cmp.Diff(wantLists, lists); diff != "" {
		t.Errorf("LISTs (-want +got):\n%s", diff)
	}
	if c.Nodes != nil || c.NodeReason != "forbidden to list nodes" {
		t.Errorf("nodes %v, reason %q; want nil, forbidden to list nodes", c.Nodes, c.NodeReason)
	}
	if len(c.ResourceQuotas) != 1 || len(c.LimitRanges) != 1 || len(c.PodDisruptionBudgets) != 1 ||
		len(c.HorizontalPodAutoscalers) != 1 || len(c.Pods) != 2 {
		t.Errorf("got %d quotas, %d limitranges, %d pdbs, %d hpas, %d pods; want 1, 1, 1, 1, 2 (pods of every namespace)",
			len(c.ResourceQuotas), len(c.LimitRanges), len(c.PodDisruptionBudgets), len(c.HorizontalPodAutoscalers), len(c.Pods))
	}
	res, err := feasibility.Check(feasibility.Input{Plan: planInputForTest(t), Cluster: c, Checks: []string{feasibility.CheckCapacity}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]feasibility.Unchecked{{Check: "capacity", Reason: "forbidden to list nodes"}}, res.Unchecked); diff != "" {
		t.Errorf("Unchecked (-want +got):\n%s", diff)
	}

	// quota without capacity lists the namespace's pods only; --checks=none lists nothing.
	client = fake.NewClientset()
	LoadCheckObjects(context.Background(), client, "shop", []string{feasibility.CheckQuota}, 0)
	for _, a := range client.Actions() {
		if a.GetResource().Resource == "pods" && a.GetNamespace() != "shop" {
			t.Errorf("quota only: pods listed in %q, want shop", a.GetNamespace())
		}
	}
	// The namespace's read beside capacity's leaves the pods to the read of every pod: the
	// namespace's pods are not listed twice.
	managed := meta("shop", "web-1")
	managed.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}}
	client = fake.NewClientset(&corev1.Pod{ObjectMeta: managed})
	ns := LoadNamespaceCheckObjects(context.Background(), client, "shop", nil, 0)
	all := LoadClusterCheckObjects(context.Background(), client, nil, 0)
	lists = map[string]int{}
	for _, a := range client.Actions() {
		lists[a.GetResource().Resource+" "+a.GetNamespace()]++
	}
	if diff := cmp.Diff(wantLists, lists); diff != "" {
		t.Errorf("namespace and cluster reads: LISTs (-want +got):\n%s", diff)
	}
	if ns.Pods != nil || len(all.Pods) != 1 || all.Nodes == nil {
		t.Errorf("namespace read: pods %v; cluster read: %d pods, nodes %v; want nil, 1, read", ns.Pods, len(all.Pods), all.Nodes)
	}
	if len(all.Pods) == 1 && all.Pods[0].ManagedFields != nil {
		t.Errorf("listed pod keeps its managedFields %v: no check reads them", all.Pods[0].ManagedFields)
	}
	client = fake.NewClientset()
	if c := LoadClusterCheckObjects(context.Background(), client, []string{feasibility.CheckQuota}, 0); c.Nodes != nil || c.Pods != nil || len(client.Actions()) != 0 {
		t.Errorf("cluster read without capacity: %d requests, nodes %v, pods %v; want none", len(client.Actions()), c.Nodes, c.Pods)
	}
	client = fake.NewClientset()
	LoadCheckObjects(context.Background(), client, "shop", []string{}, 0)
	if n := len(client.Actions()); n != 0 {
		t.Errorf("no checks: %d requests", n)
	}
}

func TestStateFileCheckObjects(t *testing.T) {
	file := strings.Join([]string{webYAML(t),
		"apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: compute, namespace: default}\nspec: {hard: {pods: \"3\"}}\n",
		"apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: elsewhere, namespace: other}\nspec: {hard: {pods: \"3\"}}\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: \"2\", pods: \"110\"}}\n",
		"apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: default}\nspec: {maxReplicas: 3, scaleTargetRef: {kind: Deployment, name: web}}\n",
	}, "---\n")
	s, err := LoadReader(strings.NewReader(file), "state.yaml", "", "web")
	if err != nil {
		t.Fatal(err)
	}
	c := s.CheckObjects
	if len(c.ResourceQuotas) != 1 || c.ResourceQuotas[0].Name != "compute" || len(c.Nodes) != 1 {
		t.Errorf("quotas %v, nodes %v: want compute of default and node a", c.ResourceQuotas, c.Nodes)
	}
	if c.Pods != nil || c.PodReason != "no pods in the state file" {
		t.Errorf("pods %v, reason %q", c.Pods, c.PodReason)
	}
	// An autoscaling/v1 HPA is not read (kubectl prints autoscaling/v2).
	if c.HorizontalPodAutoscalers != nil || c.HPAReason != "no horizontalpodautoscalers in the state file" {
		t.Errorf("hpas %v, reason %q", c.HorizontalPodAutoscalers, c.HPAReason)
	}
}

func webYAML(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/web.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// planInputForTest is the planner input of the sample state (testdata/web.yaml).
func planInputForTest(t *testing.T) planner.Input {
	t.Helper()
	s, err := LoadFile("testdata/web.yaml", "", "web")
	if err != nil {
		t.Fatal(err)
	}
	return planner.Input{Deployment: s.Deployment, ReplicaSets: s.ReplicaSets}
}

package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

func cpu(v string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v)}
}

func fakeLive(objs ...runtime.Object) *Live {
	cs := fake.NewClientset(objs...)
	return NewLive("", "ns", func() (kubernetes.Interface, error) { return cs, nil })
}

// computeQuota is ResourceQuota ns/compute: requests.cpu hard and used as given.
func computeQuota(hard, used string) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "compute", Namespace: "ns"},
		Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse(hard)}},
		Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse(hard)}, Used: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse(used)}}}
}

// TestCheckKindStatefulSetQuota: web's 3 pods request 100m each under a quota of 300m, all
// used. Raising the request to 200m: the controller deletes web-2 (200m used), then its
// create (200m more) is refused: the stall is that Create's sync, with quota admission's
// message. Keeping 100m, every create fits the room its delete made.
func TestCheckKindStatefulSetQuota(t *testing.T) {
	for _, tc := range []struct {
		request string
		stall   bool
	}{{"200m", true}, {"100m", false}} {
		t.Run(tc.request, func(t *testing.T) {
			w, revs, pods := stsFixture(t)
			for _, p := range pods {
				p.Spec.Containers = []corev1.Container{{Name: "c", Image: "v1", Resources: corev1.ResourceRequirements{Requests: cpu("100m")}}}
			}
			mod, err := (KindChange{Images: []string{"c=v2"}}).Modify(w, revs)
			if err != nil {
				t.Fatal(err)
			}
			mod.StatefulSet.Spec.Template.Spec.Containers[0].Resources.Requests = cpu(tc.request)
			p, err := PlanKind(mod, revs, pods, nil, planner.ReadinessBatched, kindNow)
			if err != nil {
				t.Fatal(err)
			}
			cfg := &Config{Feasibility: []string{feasibility.CheckQuota}}
			cfg.CheckKind(context.Background(), fakeLive(computeQuota("300m", "300m")), p)
			if !tc.stall {
				if p.Feasibility != nil {
					t.Fatalf("feasibility %+v, want nothing to say", p.Feasibility)
				}
				return
			}
			if p.Feasibility == nil || p.Feasibility.Stall == nil {
				t.Fatalf("no stall: %+v", p.Feasibility)
			}
			var create planner.PodOperation
			for _, op := range p.PodOperations {
				if op.Action == "Create" {
					create = op
					break
				}
			}
			s := p.Feasibility.Stall
			want := "exceeded quota: compute, requested: requests.cpu=200m, used: requests.cpu=200m, limited: requests.cpu=300m"
			if s.Step != create.Step || create.Pod != "web-2" || s.Reason != feasibility.ReasonQuota || !strings.Contains(s.Message, want) || s.Objects[0] != "resourcequota/compute" {
				t.Errorf("stall %+v, want step %d (create of web-2), Quota, message with %q", s, create.Step, want)
			}
		})
	}
}

// surgeFixture is DaemonSet ns/agent on node n1 (allocatable cpu 1): one Ready pod of revision 1
// requesting 600m; the change (image v2) has maxSurge as given.
func surgeFixture(t *testing.T, maxSurge, maxUnavailable string) (workload.Workload, []*appsv1.ControllerRevision, []*corev1.Pod, []*corev1.Node) {
	t.Helper()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "u2"}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}
	ds.Spec.Template.Labels = map[string]string{"app": "agent"}
	ds.Spec.Template.Spec.Containers = []corev1.Container{{Name: "a", Image: "v1", Resources: corev1.ResourceRequirements{Requests: cpu("600m")}}}
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.Parse(maxUnavailable)), MaxSurge: ptr.To(intstr.Parse(maxSurge))}}
	hash := planner.ComputeHash(&ds.Spec.Template, nil)
	data, err := revisions.Patch(&ds.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	cr := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "agent-" + hash, Namespace: "ns",
		Labels: map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash}}, Revision: 1}
	cr.Data.Raw = data
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi"), corev1.ResourcePods: resource.MustParse("10")}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-abcde", Namespace: "ns",
		Labels: map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash}},
		Spec:   *ds.Spec.Template.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	pod.Spec.NodeName = "n1"
	w := workload.Workload{DaemonSet: ds}
	mod, err := (KindChange{Images: []string{"a=v2"}}).Modify(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return mod, []*appsv1.ControllerRevision{cr}, []*corev1.Pod{pod}, []*corev1.Node{node}
}

// TestCheckKindDaemonSetCapacity: with maxSurge 1 the new pod (600m) is created beside the
// old one (600m) on a node of cpu 1: it stays Pending, as the scheduler words it; deleting
// first (maxSurge 0) frees the room and completes.
func TestCheckKindDaemonSetCapacity(t *testing.T) {
	for _, tc := range []struct {
		surge, unavailable string
		stall              bool
	}{{"1", "0", true}, {"0", "1", false}} {
		t.Run("maxSurge="+tc.surge, func(t *testing.T) {
			mod, revs, pods, nodes := surgeFixture(t, tc.surge, tc.unavailable)
			p, err := PlanKind(mod, revs, pods, nodes, planner.ReadinessBatched, kindNow)
			if err != nil {
				t.Fatal(err)
			}
			var ops []string
			for _, op := range p.PodOperations {
				ops = append(ops, fmt.Sprintf("%d %s %s", op.Step, op.Action, op.Node))
			}
			objs := []runtime.Object{nodes[0], pods[0]}
			cfg := &Config{Feasibility: []string{feasibility.CheckCapacity}}
			cfg.CheckKind(context.Background(), fakeLive(objs...), p)
			if !tc.stall {
				if p.Feasibility != nil {
					t.Fatalf("ops %v: feasibility %+v, want nothing to say", ops, p.Feasibility)
				}
				return
			}
			if p.Feasibility == nil || p.Feasibility.Stall == nil {
				t.Fatalf("ops %v: no stall: %+v", ops, p.Feasibility)
			}
			s := p.Feasibility.Stall
			if s.Step != p.PodOperations[0].Step || p.PodOperations[0].Action != "Create" || s.Reason != feasibility.ReasonUnschedulable ||
				!strings.Contains(s.Message, "0/1 nodes are available: 1 Insufficient cpu.") || !strings.Contains(s.Message, "on node n1") {
				t.Errorf("ops %v: stall %+v", ops, s)
			}
		})
	}
}

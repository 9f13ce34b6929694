package pipeline

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// stsMidRollout is stsFixture after `--image c=v2` reached the API: revision 2 is the update
// revision, web-2 runs it (Ready as readyNew says), web-0 and web-1 still run revision 1.
func stsMidRollout(t *testing.T, readyNew bool, partition int32) (workload.Workload, []*appsv1.ControllerRevision, []*corev1.Pod) {
	t.Helper()
	w, revs, pods := stsFixture(t)
	s := w.StatefulSet
	s.Spec.Template.Spec.Containers[0].Image = "v2"
	s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To(partition)
	p, err := revisions.Patch(&s.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	r2 := &appsv1.ControllerRevision{Revision: 2}
	r2.Data.Raw = p
	r2.Name = revisions.Name("web", revisions.Hash(p, nil))
	s.Status.UpdateRevision = r2.Name
	pods[2].Labels[appsv1.StatefulSetRevisionLabel] = r2.Name
	if !readyNew {
		pods[2].Status.Conditions[0].Status = corev1.ConditionFalse
	}
	return w, append(revs, r2), pods
}

func TestProgressOfKindStatefulSet(t *testing.T) {
	t.Run("new pod Ready: the controller deletes the next ordinal now", func(t *testing.T) {
		w, revs, pods := stsMidRollout(t, true, 0)
		p, err := ProgressOfKind(w, revs, pods, nil, kindNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.Updated != 1 || p.Total != 3 || p.UpdateRevision != revs[1].Name {
			t.Errorf("step %d of %d, update revision %s; want 1 of 3, %s", p.Updated, p.Total, p.UpdateRevision, revs[1].Name)
		}
		if len(p.Next) != 1 || p.Next[0].Action != "Delete" || p.Next[0].Pod != "web-1" || p.Waiting != "" {
			t.Errorf("next %+v, waiting %q; want Delete web-1, nothing waited for", p.Next, p.Waiting)
		}
	})
	t.Run("new pod not Ready: the controller waits for it", func(t *testing.T) {
		w, revs, pods := stsMidRollout(t, false, 0)
		p, err := ProgressOfKind(w, revs, pods, nil, kindNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.Updated != 0 || p.Total != 3 || len(p.Next) != 0 || !strings.Contains(p.Waiting, "web-2") {
			t.Errorf("step %d of %d, next %+v, waiting %q; want 0 of 3, no operation, waiting for web-2", p.Updated, p.Total, p.Next, p.Waiting)
		}
	})
	t.Run("reverted after a broken update: OrderedReady's trap is named", func(t *testing.T) {
		w, revs, pods := stsMidRollout(t, false, 0)
		w.StatefulSet.Spec.Template.Spec.Containers[0].Image = "v1"
		w.StatefulSet.Status.UpdateRevision = revs[0].Name
		p, err := ProgressOfKind(w, revs, pods, nil, kindNow)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Next) != 0 || !strings.Contains(p.Waiting, "kubernetes/kubernetes#67250") || !strings.Contains(p.Waiting, "web-2") {
			t.Errorf("next %+v, waiting %q; want no operation and the trap named on web-2", p.Next, p.Waiting)
		}
	})
	t.Run("partition 2: done at the partition", func(t *testing.T) {
		w, revs, pods := stsMidRollout(t, true, 2)
		p, err := ProgressOfKind(w, revs, pods, nil, kindNow)
		if err != nil {
			t.Fatal(err)
		}
		if p.Updated != 1 || p.Total != 1 || len(p.Next) != 0 || p.Waiting != "" {
			t.Errorf("step %d of %d, next %+v, waiting %q; want 1 of 1, nothing next or waited for", p.Updated, p.Total, p.Next, p.Waiting)
		}
	})
}

func TestProgressOfKindDaemonSet(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "u2"}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}
	ds.Spec.Template.Labels = map[string]string{"app": "agent"}
	ds.Spec.Template.Spec.Containers = []corev1.Container{{Name: "a", Image: "v2"}}
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{}}
	ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intOrStr(1))
	ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = ptr.To(intOrStr(0))
	ds.Status.DesiredNumberScheduled = 3
	mk := func(rev string) *appsv1.ControllerRevision {
		tmpl := ds.Spec.Template.DeepCopy()
		tmpl.Spec.Containers[0].Image = rev
		p, err := revisions.Patch(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		r := &appsv1.ControllerRevision{}
		r.Data.Raw = p
		r.Name = revisions.Name("agent", revisions.Hash(p, nil))
		r.Labels = map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: strings.TrimPrefix(r.Name, "agent-")}
		r.OwnerReferences = []metav1.OwnerReference{{UID: "u2", Controller: ptr.To(true), Kind: "DaemonSet", Name: "agent", APIVersion: "apps/v1"}}
		return r
	}
	r1, r2 := mk("v1"), mk("v2")
	r1.Revision, r2.Revision = 1, 2
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i, rev := range []*appsv1.ControllerRevision{r2, r1, r1} {
		n := fmt.Sprintf("n%d", i+1)
		nodes = append(nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-" + n, Namespace: "ns",
			Labels:          map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]},
			OwnerReferences: r1.OwnerReferences}, Spec: corev1.PodSpec{NodeName: n}}
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(kindNow.Add(-time.Minute))}}
		pods = append(pods, pod)
	}
	w := workload.Workload{DaemonSet: ds}
	p, err := ProgressOfKind(w, []*appsv1.ControllerRevision{r1, r2}, pods, nodes, kindNow)
	if err != nil {
		t.Fatal(err)
	}
	if p.Updated != 1 || p.Total != 3 || p.UpdateRevision != r2.Name {
		t.Errorf("step %d of %d, update revision %s; want 1 of 3, %s", p.Updated, p.Total, p.UpdateRevision, r2.Name)
	}
	if len(p.Next) != 1 || p.Next[0].Action != "Delete" || p.Next[0].Node != "n2" || p.Waiting != "" {
		t.Errorf("next %+v, waiting %q; want the old pod of n2 deleted (maxUnavailable 1, nodes by name)", p.Next, p.Waiting)
	}

	pods[0].Status.Conditions[0].Status = corev1.ConditionFalse // the new pod on n1 not Ready: the budget is used
	p, err = ProgressOfKind(w, []*appsv1.ControllerRevision{r1, r2}, pods, nodes, kindNow)
	if err != nil {
		t.Fatal(err)
	}
	if p.Updated != 0 || len(p.Next) != 0 || !strings.Contains(p.Waiting, "agent-n1") {
		t.Errorf("step %d, next %+v, waiting %q; want 0, no operation, waiting for agent-n1", p.Updated, p.Next, p.Waiting)
	}
}

func intOrStr(i int) intstr.IntOrString { return intstr.FromInt32(int32(i)) }

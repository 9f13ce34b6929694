package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// controlled sets o's controller reference to owner, as the controllers do.
func controlled(o, owner metav1.Object, kind string) {
	o.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: owner.GetName(), UID: owner.GetUID(), Controller: ptr.To(true)}})
}

// dsFixture is DaemonSet ns/agent on nodes n1 and n2 (n3 tainted NoSchedule), revision 1
// (image v1), one Ready pod a node, with the server's default update strategy.
func dsFixture(t *testing.T) (workload.Workload, []*appsv1.ControllerRevision, []*corev1.Pod, []*corev1.Node) {
	t.Helper()
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "u2", Labels: map[string]string{"tier": "node"}}}
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}
	ds.Spec.Template.Labels = map[string]string{"app": "agent"}
	ds.Spec.Template.Spec.Containers = []corev1.Container{{Name: "a", Image: "v1"}}
	ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: ptr.To(intstr.FromInt32(0))}}
	// The template as the API server stores it (kubectl get prints its defaults).
	ds.Spec.Template = change.ApplyDefaults(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: ds.Spec.Template}}).Spec.Template
	p, err := revisions.Patch(&ds.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	hash := revisions.Hash(p, nil)
	r := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: revisions.Name("agent", hash), Namespace: "ns",
		Labels: map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash}}, Revision: 1}
	r.Data.Raw = p
	controlled(r, ds, "DaemonSet")
	nodes := []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, {ObjectMeta: metav1.ObjectMeta{Name: "n2"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "n3"}, Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}}}}
	var pods []*corev1.Pod
	for _, n := range []string{"n1", "n2"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-" + n, Namespace: "ns",
			Labels: map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: hash}}}
		pod.Spec.NodeName = n
		pod.Spec.Containers = ds.Spec.Template.Spec.Containers
		pod.Status.Phase = corev1.PodRunning
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(kindNow.Add(-time1m))}}
		controlled(pod, ds, "DaemonSet")
		pods = append(pods, pod)
	}
	return workload.Workload{DaemonSet: ds}, []*appsv1.ControllerRevision{r}, pods, nodes
}

// writeStateFile writes objs as `kubectl get sts,ds,controllerrevisions,pods,nodes -o yaml`
// prints them (a v1 List, each item with its apiVersion and kind) and returns its path.
func writeStateFile(t *testing.T, objs ...runtime.Object) string {
	t.Helper()
	var items []string
	for _, o := range objs {
		gvk := map[string]string{"StatefulSet": "apps/v1", "DaemonSet": "apps/v1", "ControllerRevision": "apps/v1", "Deployment": "apps/v1", "Pod": "v1", "Node": "v1", "Service": "v1"}
		kind := strings.TrimPrefix(fmt.Sprintf("%T", o), "*v1.")
		o.GetObjectKind().SetGroupVersionKind(schemaGVK(gvk[kind], kind))
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, "- "+strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", "\n  "))
	}
	path := filepath.Join(t.TempDir(), "state.yaml")
	doc := "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n" + strings.Join(items, "\n") + "\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// stateFixture is the state file of stsFixture's ns/web, dsFixture's ns/agent, a
// StatefulSet web in namespace other, a Deployment and a Service (skipped).
func stateFixture(t *testing.T) string {
	t.Helper()
	sts, srevs, spods := stsFixture(t)
	for _, r := range srevs {
		r.Namespace = "ns"
		controlled(r, sts.StatefulSet, "StatefulSet")
	}
	objs := []runtime.Object{sts.StatefulSet, srevs[0]}
	for _, p := range spods {
		controlled(p, sts.StatefulSet, "StatefulSet")
		objs = append(objs, p)
	}
	ds, drevs, dpods, nodes := dsFixture(t)
	objs = append(objs, ds.DaemonSet, drevs[0], dpods[0], dpods[1], nodes[0], nodes[1], nodes[2])
	other := sts.StatefulSet.DeepCopy()
	other.Namespace, other.UID = "other", "u3"
	objs = append(objs, other, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}})
	return writeStateFile(t, objs...)
}

func opsOf(p *KindPlan) []string {
	var got []string
	for _, op := range p.PodOperations {
		pod := op.Pod
		if pod == "" {
			pod = "(new)"
		}
		got = append(got, fmt.Sprintf("%s %s %s r%d", op.Action, pod, op.Node, op.RevisionNumber))
	}
	return got
}

func TestKindFileStatefulSetByName(t *testing.T) {
	src := NewKindFile(stateFixture(t))
	ctx := context.Background()
	ms, err := src.SelectKinds(ctx, KindSelection{Refs: []target.KindRef{{Kind: target.KindStatefulSet, Namespace: "ns", Name: "web"}}})
	if err != nil || len(ms) != 1 || ms[0].Err != nil {
		t.Fatalf("select: %v %+v", err, ms)
	}
	if m := ms[0]; len(m.State.Revisions) != 2 || len(m.State.Pods) != 5 || m.Nodes != nil {
		t.Errorf("ns/web: %d revisions, %d pods, %d nodes; want the namespace's 2 and 5 (PlanKind keeps the owned), no nodes", len(m.State.Revisions), len(m.State.Pods), len(m.Nodes))
	}
	p, err := PlanKindMember(ctx, src, ms[0], KindChange{Images: []string{"c=v2"}, Now: kindNow}, "")
	if err != nil {
		t.Fatal(err)
	}
	// The ordinals from the highest down, each deleted then created at the update revision.
	want := []string{"Delete web-2  r1", "Create web-2  r2", "Delete web-1  r1", "Create web-1  r2", "Delete web-0  r1", "Create web-0  r2"}
	if diff := cmp.Diff(want, opsOf(p)); diff != "" {
		t.Errorf("pod operations (-want +got):\n%s", diff)
	}
	for i := 1; i < len(p.PodOperations); i++ {
		if p.PodOperations[i].Step <= p.PodOperations[i-1].Step {
			t.Errorf("operation %d in sync %d, not after sync %d: one pod write a sync", i, p.PodOperations[i].Step, p.PodOperations[i-1].Step)
		}
	}
	if p.Outcome != "Complete" || p.UpdateRevisionNumber != 2 {
		t.Errorf("outcome %s, update revision %d", p.Outcome, p.UpdateRevisionNumber)
	}
	// No change: nothing to do, the current revision.
	p, err = PlanKindMember(ctx, src, ms[0], KindChange{Now: kindNow}, "")
	if err != nil || len(p.PodOperations) != 0 || p.UpdateRevisionNumber != 1 {
		t.Errorf("no change: %v, %v, revision %d", err, opsOf(p), p.UpdateRevisionNumber)
	}
}

func TestKindFileDaemonSetPerNode(t *testing.T) {
	src := NewKindFile(stateFixture(t))
	ms, err := src.SelectKinds(context.Background(), KindSelection{Bulk: true, Kind: target.KindDaemonSet, Selector: "tier=node"})
	if err != nil || len(ms) != 1 || ms[0].Ref != (target.KindRef{Kind: target.KindDaemonSet, Namespace: "ns", Name: "agent"}) || len(ms[0].Nodes) != 3 {
		t.Fatalf("select -l tier=node -A: %v %+v", err, ms)
	}
	p, err := PlanKindMember(context.Background(), src, ms[0], KindChange{Images: []string{"a=v2"}, Now: kindNow}, "")
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string][]string{}
	for _, op := range p.PodOperations {
		nodes[op.Node] = append(nodes[op.Node], fmt.Sprintf("%s r%d", op.Action, op.RevisionNumber))
	}
	want := map[string][]string{"n1": {"Delete r1", "Create r2"}, "n2": {"Delete r1", "Create r2"}}
	if diff := cmp.Diff(want, nodes); diff != "" {
		t.Errorf("operations per node (-want +got):\n%s", diff)
	}
	// maxUnavailable 1: n2's pod is deleted only after n1's new pod is created.
	if ops := p.PodOperations; len(ops) == 4 && ops[2].Step <= ops[1].Step {
		t.Errorf("n2 deleted in sync %d, not after n1's create in sync %d", ops[2].Step, ops[1].Step)
	}
	if len(p.Nodes) != 3 || p.Nodes[2].ShouldRun || !strings.Contains(p.Nodes[2].Reason, "gpu") {
		t.Errorf("nodes %+v: want n3 without pod for its taint", p.Nodes)
	}
}

func TestKindFileSelection(t *testing.T) {
	src := NewKindFile(stateFixture(t))
	ctx := context.Background()
	ms, err := src.SelectKinds(ctx, KindSelection{Bulk: true, Kind: target.KindStatefulSet})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Ref.Namespace+"/"+m.Ref.Name)
	}
	if diff := cmp.Diff([]string{"ns/web", "other/web"}, got); diff != "" {
		t.Errorf("-A (-want +got):\n%s", diff)
	}
	ms, _ = src.SelectKinds(ctx, KindSelection{Bulk: true, Kind: target.KindStatefulSet, Namespace: "other"})
	if len(ms) != 1 || ms[0].Ref.Namespace != "other" {
		t.Errorf("--all -n other: %+v", ms)
	}
	ms, _ = src.SelectKinds(ctx, KindSelection{Refs: []target.KindRef{{Kind: target.KindStatefulSet, Name: "web"}, {Kind: target.KindDaemonSet, Name: "nope"}, {Kind: target.KindDaemonSet, Name: "agent"}}})
	if len(ms) != 3 || ms[0].Err == nil || !strings.Contains(ms[0].Err.Error(), "2 namespaces") ||
		ms[1].Err == nil || !strings.Contains(ms[1].Err.Error(), "not found") || ms[2].Err != nil || ms[2].Ref.Namespace != "ns" {
		t.Errorf("names without -n: %+v", ms)
	}
	if _, err := PlanKindMember(ctx, src, ms[1], KindChange{}, ""); err == nil {
		t.Error("plan of a member not found: no error")
	}
}

func TestDecodeKindObjectsErrors(t *testing.T) {
	if _, err := DecodeKindObjects([]byte("apiVersion: v1\nkind: List\nitems: []\n"), "s.yaml"); err == nil || !strings.Contains(err.Error(), "no apps/v1 StatefulSet or DaemonSet") {
		t.Errorf("empty list: %v", err)
	}
	if _, err := DecodeKindObjects([]byte("kind: [\n"), "s.yaml"); err == nil || !strings.Contains(err.Error(), "s.yaml") {
		t.Errorf("bad YAML: %v", err)
	}
}

const time1m = 60 * 1e9

func schemaGVK(apiVersion, kind string) schema.GroupVersionKind {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.WithKind(kind)
}

// manifestOf returns w as a manifest (unstructured), image set on every container.
func manifestOf(t *testing.T, w workload.Workload, image string) *unstructured.Unstructured {
	t.Helper()
	obj, _ := workload.Of(w.Object().DeepCopyObject())
	for i := range obj.Template().Spec.Containers {
		obj.Template().Spec.Containers[i].Image = image
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj.Object())
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("apps/v1")
	u.SetKind(string(w.Kind()))
	return u
}

func TestPlanKindManifestFromFile(t *testing.T) {
	src := NewKindFile(stateFixture(t))
	ctx := context.Background()
	now := metav1.NewTime(kindNow)
	ds, _, _, _ := dsFixture(t)
	// Unchanged: no pod operation.
	p, err := PlanKindManifest(ctx, src, manifestOf(t, ds, "v1"), "", now, KindTiming{})
	if err != nil || !p.NoChange || p.Created || len(p.Plan.PodOperations) != 0 || p.Plan.UpdateRevisionNumber != 1 {
		t.Fatalf("unchanged DaemonSet: %v %+v", err, p)
	}
	// An image: each node's pod replaced, the template generation bumped as the server does.
	p, err = PlanKindManifest(ctx, src, manifestOf(t, ds, "v2"), "", now, KindTiming{})
	if err != nil || p.NoChange || len(p.Plan.PodOperations) != 4 || p.Plan.UpdateRevisionNumber != 2 {
		t.Fatalf("DaemonSet image v2: %v %+v", err, p)
	}
	// A StatefulSet not in the file: created, every ordinal created at revision 1.
	sts, _, _ := stsFixture(t)
	sts.StatefulSet.Name, sts.StatefulSet.Namespace = "cache", "ns"
	p, err = PlanKindManifest(ctx, src, manifestOf(t, sts, "v1"), "", now, KindTiming{})
	if err != nil || !p.Created {
		t.Fatalf("new StatefulSet: %v %+v", err, p)
	}
	if want := []string{"Create cache-0  r1", "Create cache-1  r1", "Create cache-2  r1"}; !cmp.Equal(opsOf(p.Plan), want) {
		t.Errorf("new StatefulSet: %v, want %v", opsOf(p.Plan), want)
	}
}

func TestPrepareForUpdateDaemonSet(t *testing.T) {
	ds, _, _, _ := dsFixture(t)
	ds.DaemonSet.Generation = 3
	ds.DaemonSet.Annotations = map[string]string{appsv1.DeprecatedTemplateGeneration: "3"}
	mod, err := (KindChange{Images: []string{"a=v2"}}).Modify(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := prepareForUpdate(ds, mod)
	if got.DaemonSet.Generation != 4 || got.DaemonSet.Annotations[appsv1.DeprecatedTemplateGeneration] != "4" || ds.DaemonSet.Annotations[appsv1.DeprecatedTemplateGeneration] != "3" {
		t.Errorf("generation %d, template generation %s (input's %s); want 4, 4 (3)", got.DaemonSet.Generation, got.DaemonSet.Annotations[appsv1.DeprecatedTemplateGeneration], ds.DaemonSet.Annotations[appsv1.DeprecatedTemplateGeneration])
	}
	if same := prepareForUpdate(ds, ds); same.DaemonSet.Generation != 3 {
		t.Errorf("no change: generation %d, want 3", same.DaemonSet.Generation)
	}
}

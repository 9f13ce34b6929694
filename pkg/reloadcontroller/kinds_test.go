package reloadcontroller

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// statefulSet is an opted-in StatefulSet in ns whose container reads key of ConfigMap cm,
// rolled out and complete (1 replica) at generation 1, with checksums recorded of objs.
func statefulSet(name, cm, key string, objs ...*corev1.ConfigMap) *appsv1.StatefulSet {
	d := recorded(deployment(name, cm, key), objs...)
	return &appsv1.StatefulSet{
		ObjectMeta: d.ObjectMeta,
		Spec:       appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Selector: d.Spec.Selector, Template: d.Spec.Template},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1,
			CurrentRevision: name + "-1", UpdateRevision: name + "-1"},
	}
}

// daemonSet is statefulSet's DaemonSet twin, on one node.
func daemonSet(name, cm, key string, objs ...*corev1.ConfigMap) *appsv1.DaemonSet {
	d := recorded(deployment(name, cm, key), objs...)
	return &appsv1.DaemonSet{
		ObjectMeta: d.ObjectMeta,
		Spec:       appsv1.DaemonSetSpec{Selector: d.Spec.Selector, Template: d.Spec.Template},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 1, CurrentNumberScheduled: 1,
			UpdatedNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1},
	}
}

// kindPatches lists "resource/name" of the StatefulSet and DaemonSet patches so far.
func kindPatches(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && a.GetResource().Resource != "deployments" && a.GetResource().Resource != "events" {
			out = append(out, a.GetResource().Resource+"/"+p.GetName())
		}
	}
	return out
}

func TestStatefulSetsAndDaemonSetsRestartedOnTheKeyTheyRead(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1", "b": "1"})
	db := statefulSet("db", "app", "a", cm)
	agent := daemonSet("agent", "app", "a", cm)
	other := statefulSet("other", "app", "b", cm)
	h := start(t, Config{}, cm, db, agent, other)
	settle(0)
	if p := kindPatches(h.cs); len(p) != 0 {
		t.Fatalf("patched %v before any change, want nothing (every object is current)", p)
	}

	// A change of b: only "other" reads it.
	h.updateConfigMap(configMap("app", map[string]string{"a": "1", "b": "2"}))
	h.eventually("one restart", func() bool { return len(kindPatches(h.cs)) == 1 })
	settle(0)
	if diff := cmp.Diff([]string{"statefulsets/other"}, kindPatches(h.cs)); diff != "" {
		t.Fatalf("patches after a change of b (-want +got):\n%s", diff)
	}

	h.updateConfigMap(configMap("app", map[string]string{"a": "2", "b": "2"}))
	h.eventually("three restarts", func() bool { return len(kindPatches(h.cs)) == 3 })
	settle(0)
	if diff := cmp.Diff([]string{"daemonsets/agent", "statefulsets/db", "statefulsets/other"}, sortedCopy(kindPatches(h.cs))); diff != "" {
		t.Errorf("patches after a change of a (-want +got):\n%s", diff)
	}
	got, err := h.cs.AppsV1().StatefulSets(ns).Get(context.Background(), "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur := map[reload.ObjectKey]reload.Object{{Namespace: ns, Kind: reload.ConfigMap, Name: "app"}: reload.ConfigMapObject(configMap("app", map[string]string{"a": "2", "b": "2"}))}
	if dec := reload.DecideWorkload(workload.Workload{StatefulSet: got}, cur); dec.Stale || dec.Refused() {
		t.Errorf("after the restart: %v, want current", dec)
	}
	for _, name := range []string{"db", "agent"} {
		if ev, ok := h.eventsWith(name, ReasonRestarted+" restarted for changed config: ConfigMap/app [a]"); !ok {
			t.Errorf("events on %s: %q, want a %s naming ConfigMap/app [a]", name, ev, ReasonRestarted)
		}
	}
	for kind, want := range map[string]float64{"StatefulSet": 2, "DaemonSet": 1, "Deployment": 0} {
		if got := kindCounter(t, h.metrics, "rollplan_reload_deployment_restarts_total", kind); got != want {
			t.Errorf("rollplan_reload_deployment_restarts_total{kind=%q} = %v, want %v", kind, got, want)
		}
	}
	for _, line := range []string{"statefulset.apps/db restarted (namespace shop)", "daemonset.apps/agent restarted (namespace shop)"} {
		if !strings.Contains(h.out.String(), line) {
			t.Errorf("output %q lacks %q", h.out.String(), line)
		}
	}
}

func TestStatefulSetAdoptedAtFirstSight(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	db := statefulSet("db", "app", "a")
	db.Spec.Template.Annotations = nil
	h := start(t, Config{}, cm, db)
	h.eventually("the adoption", func() bool { return len(kindPatches(h.cs)) == 1 })
	got, err := h.cs.AppsV1().StatefulSets(ns).Get(context.Background(), "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations[reload.AdoptedAnnotation] == "" || got.Spec.Template.Annotations[reload.ChecksumsAnnotation] != "" {
		t.Errorf("annotations %v, template %v: want the checksums adopted on the object, the template untouched", got.Annotations, got.Spec.Template.Annotations)
	}
	if ev, ok := h.eventsWith("db", ReasonAdopted); !ok {
		t.Errorf("events on db: %q, want %s", ev, ReasonAdopted)
	}
}

func TestKindsForbiddenGoesOnWithDeployments(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	web := recorded(deployment("web", "app", ""), cm)
	cs := fake.NewClientset(cm, web, statefulSet("db", "app", "a", cm))
	cs.PrependReactor("list", "statefulsets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "", nil)
	})
	var warned []string
	h := startOn(t, cs, Config{Warn: func(s string) { warned = append(warned, s) }}, nil)
	h.updateConfigMap(configMap("app", map[string]string{"a": "2"}))
	h.eventually("the Deployment restarted", func() bool { return len(h.patches()) == 1 })
	if len(warned) != 1 || !strings.Contains(warned[0], "may not list them") {
		t.Errorf("warnings %q, want one saying StatefulSets and DaemonSets may not be listed", warned)
	}
	if p := kindPatches(cs); len(p) != 0 {
		t.Errorf("patched %v, want no StatefulSet written", p)
	}
}

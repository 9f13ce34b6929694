package stsdrive

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/utils/ptr"
)

func sts() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](3),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "init", Image: "busybox:1"}},
				Containers:     []corev1.Container{{Name: "db", Image: "pg:15"}, {Name: "side", Image: "envoy:1"}},
			}},
		},
	}
}

// apply applies patch to s as the API server would (a strategic merge).
func apply(t *testing.T, s *appsv1.StatefulSet, patch []byte) *appsv1.StatefulSet {
	t.Helper()
	orig, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(orig, patch, &appsv1.StatefulSet{})
	if err != nil {
		t.Fatal(err)
	}
	out := &appsv1.StatefulSet{}
	if err := json.Unmarshal(merged, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStartPatchImageSetsPartitionAndOneContainer(t *testing.T) {
	s := sts()
	p, err := StartPatch(s, Change{Images: []string{"db=pg:16"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := apply(t, s, p)
	if got.Spec.Template.Spec.Containers[0].Image != "pg:16" || got.Spec.Template.Spec.Containers[1].Image != "envoy:1" || got.Spec.Template.Spec.InitContainers[0].Image != "busybox:1" {
		t.Errorf("images after patch: %+v", got.Spec.Template.Spec)
	}
	if got.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType || ptr.Deref(got.Spec.UpdateStrategy.RollingUpdate.Partition, -1) != 3 {
		t.Errorf("updateStrategy after patch: %+v", got.Spec.UpdateStrategy)
	}
}

func TestStartPatchStarAndRestart(t *testing.T) {
	s := sts()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p, err := StartPatch(s, Change{Images: []string{"*=x:2"}, Restart: true}, now)
	if err != nil {
		t.Fatal(err)
	}
	got := apply(t, s, p)
	for _, c := range append(got.Spec.Template.Spec.InitContainers, got.Spec.Template.Spec.Containers...) {
		if c.Image != "x:2" {
			t.Errorf("container %s image %s, want x:2", c.Name, c.Image)
		}
	}
	if a := got.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"]; a != "2026-01-02T03:04:05Z" {
		t.Errorf("restartedAt = %q", a)
	}
}

func TestStartPatchUnknownContainer(t *testing.T) {
	_, err := StartPatch(sts(), Change{Images: []string{"web=nginx"}}, time.Now())
	if err == nil || !strings.Contains(err.Error(), `"web"`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line naming container web", err)
	}
}

func TestAbortPatchRestoresTemplateAndZeroesPartition(t *testing.T) {
	old := sts()
	data, err := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{
		"spec": map[string]any{"containers": []any{map[string]any{"name": "db", "image": "pg:15"}}}, "$patch": "replace"}}})
	if err != nil {
		t.Fatal(err)
	}
	cur := old.DeepCopy()
	cur.Spec.Template.Spec.Containers[0].Image = "pg:16"
	cur.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
	p, err := AbortPatch(&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "db-1"}, Data: runtime.RawExtension{Raw: data}})
	if err != nil {
		t.Fatal(err)
	}
	got := apply(t, cur, p)
	if cs := got.Spec.Template.Spec.Containers; len(cs) != 1 || cs[0].Image != "pg:15" {
		t.Errorf("containers after abort: %+v", cs)
	}
	if ptr.Deref(got.Spec.UpdateStrategy.RollingUpdate.Partition, -1) != 0 {
		t.Errorf("partition after abort: %+v", got.Spec.UpdateStrategy.RollingUpdate)
	}
}

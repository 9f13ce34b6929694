package reload

import (
	"encoding/json"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

func kindsTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "app:1",
		Env: []corev1.EnvVar{{Name: "MODE", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Key: "mode"}}}},
	}}}}
}

func kindsWorkloads() []workload.Workload {
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "w", UID: "u-1", Generation: 3, ResourceVersion: "7",
		Annotations: map[string]string{ReloadAnnotation: "true"}}
	sts := &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Template: kindsTemplate()}}
	ds := &appsv1.DaemonSet{ObjectMeta: *meta.DeepCopy(), Spec: appsv1.DaemonSetSpec{Template: kindsTemplate()}}
	return []workload.Workload{{StatefulSet: sts}, {DaemonSet: ds}}
}

// TestWorkloadRestartCycle decides, patches (applied as the API server applies a JSON
// patch), then decides again after a key change, for both kinds.
func TestWorkloadRestartCycle(t *testing.T) {
	for _, w := range kindsWorkloads() {
		t.Run(string(w.Kind()), func(t *testing.T) {
			if !OptedInWorkload(w) {
				t.Fatal("OptedInWorkload = false, want true")
			}
			cm := func(v string) Object {
				return NewObject(ConfigMap, "app", "cm-uid", map[string]string{"mode": v, "other": "x"}, nil)
			}
			objs := map[ObjectKey]Object{KeyOf("ns", cm("a")): cm("a")}
			d := DecideWorkload(w, objs)
			if d.Refused() || !d.FirstSight() || d.Stale {
				t.Fatalf("first decision = %v, want first sight, not stale", d)
			}
			patch, err := WorkloadRestartPatch(w, d.Checksums)
			if err != nil {
				t.Fatal(err)
			}
			p, err := jsonpatch.DecodePatch(patch)
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := json.Marshal(w.Object())
			out, err := p.Apply(doc)
			if err != nil {
				t.Fatalf("apply %s: %v", patch, err)
			}
			var after workload.Workload
			if w.StatefulSet != nil {
				after.StatefulSet = &appsv1.StatefulSet{}
				err = json.Unmarshal(out, after.StatefulSet)
			} else {
				after.DaemonSet = &appsv1.DaemonSet{}
				err = json.Unmarshal(out, after.DaemonSet)
			}
			if err != nil {
				t.Fatal(err)
			}
			after.Meta().SetGeneration(4)
			if got := after.Template().Annotations[ChecksumsAnnotation]; got != EncodeChecksums(d.Checksums) {
				t.Fatalf("template annotation = %q, want %q", got, EncodeChecksums(d.Checksums))
			}
			// A key the pods do not see: current.
			objs2 := map[ObjectKey]Object{KeyOf("ns", cm("a")): NewObject(ConfigMap, "app", "cm-uid", map[string]string{"mode": "a", "other": "y"}, nil)}
			if d2 := DecideWorkload(after, objs2); d2.Stale {
				t.Fatalf("unseen key change: %v, want not stale", d2)
			}
			if _, changed := ChangesForWorkload(after, &[]Object{cm("a")}[0], &[]Object{cm("b")}[0]); !changed {
				t.Fatal("ChangesForWorkload(mode a->b) = false, want true")
			}
			d3 := DecideWorkload(after, map[ObjectKey]Object{KeyOf("ns", cm("b")): cm("b")})
			if !d3.Stale {
				t.Fatalf("seen key change: %v, want stale", d3)
			}
			// The second patch tests the recorded value and the new generation.
			p2, err := WorkloadRestartPatch(after, d3.Checksums)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(p2), `"op":"replace"`) || !strings.Contains(string(p2), `"value":4`) {
				t.Fatalf("second patch %s: want a guarded replace at generation 4", p2)
			}
			// A missing ConfigMap refuses, naming the kind.
			d4 := DecideWorkload(after, nil)
			if !d4.Refused() || !strings.Contains(d4.Refusal.Error(), strings.ToLower(string(w.Kind()))+" ns/w") {
				t.Fatalf("refusal = %v, want one naming %s ns/w", d4.Refusal, w.Kind())
			}
		})
	}
}

func TestWorkloadRestartPatchErrors(t *testing.T) {
	if _, err := WorkloadRestartPatch(workload.Workload{}, map[string]string{}); err == nil {
		t.Error("zero workload: no error")
	}
	w := kindsWorkloads()[0]
	if _, err := WorkloadRestartPatch(w, nil); err == nil {
		t.Error("nil checksums: no error")
	}
	w.StatefulSet.UID = ""
	if _, err := WorkloadRestartPatch(w, map[string]string{}); err == nil || !strings.Contains(err.Error(), "statefulset ns/w") {
		t.Errorf("no uid: err = %v", err)
	}
}

// TestRestartBackToAdopted: a restart whose checksums equal the adopted record removes the
// template's checksums (the adopted template again, so its revision is reused), for all
// three kinds.
func TestRestartBackToAdopted(t *testing.T) {
	adopted := map[string]string{"configmap/app": "c1"}
	later := map[string]string{"configmap/app": "c2"}
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "w", UID: "u", Generation: 2,
		Annotations: map[string]string{AdoptedAnnotation: EncodeChecksums(adopted)}}
	tmpl := kindsTemplate()
	tmpl.Annotations = map[string]string{ChecksumsAnnotation: EncodeChecksums(later)}
	dep := &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Template: tmpl}}
	wantRemove := `{"op":"remove","path":"/spec/template/metadata/annotations/rollplan.dev~1config-checksums"}`
	p, err := RestartPatch(dep, adopted)
	if err != nil || !strings.Contains(string(p), wantRemove) {
		t.Fatalf("deployment patch %s (%v): want %s", p, err, wantRemove)
	}
	if r := Restarted(dep, adopted); r.Spec.Template.Annotations[ChecksumsAnnotation] != "" {
		t.Errorf("Restarted kept %q", r.Spec.Template.Annotations[ChecksumsAnnotation])
	}
	if p, _ := RestartPatch(dep, map[string]string{"configmap/app": "c3"}); strings.Contains(string(p), `"remove"`) {
		t.Errorf("other checksums: patch %s removes", p)
	}
	for _, w := range []workload.Workload{
		{StatefulSet: &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Template: tmpl}}},
		{DaemonSet: &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Template: tmpl}}},
	} {
		if p, err := WorkloadRestartPatch(w, adopted); err != nil || !strings.Contains(string(p), wantRemove) {
			t.Errorf("%s patch %s (%v): want %s", w.Kind(), p, err, wantRemove)
		}
	}
}

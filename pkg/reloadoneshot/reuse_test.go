package reloadoneshot

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// reuseWorkload is an opted-in StatefulSet or DaemonSet w reading key mode of ConfigMap app.
func reuseWorkload(kind string) workload.Workload {
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "w", UID: "u", Generation: 1,
		Annotations: map[string]string{reload.ReloadAnnotation: "true"}}
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "w"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1",
			Env: []corev1.EnvVar{{Name: "MODE", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Key: "mode"}}}}}}},
	}
	if kind == "StatefulSet" {
		return workload.Workload{StatefulSet: &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Template: tmpl}}}
	}
	return workload.Workload{DaemonSet: &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Template: tmpl}}}
}

// record is the revision the kind's controller makes for w's template among revs (the
// revision resolver, v1.36.3's rules), appended to revs.
func record(t *testing.T, w workload.Workload, revs []*appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	t.Helper()
	var rev *appsv1.ControllerRevision
	if w.StatefulSet != nil {
		res, err := revisions.ResolveStatefulSet(w.StatefulSet, revs)
		if err != nil {
			t.Fatal(err)
		}
		rev = res.Update
	} else {
		res, err := revisions.ResolveDaemonSet(w.DaemonSet, revs)
		if err != nil {
			t.Fatal(err)
		}
		rev = res.Current
	}
	return append(revs, rev)
}

func modeObjects(v string) map[reload.ObjectKey]reload.Object {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app", UID: "cm"}, Data: map[string]string{"mode": v}}
	return map[reload.ObjectKey]reload.Object{{Namespace: "ns", Kind: reload.ConfigMap, Name: "app"}: reload.ConfigMapObject(cm)}
}

// TestReuseOfAdoptedRevision: adopt at mode=1 (revision 1, no checksums in the template),
// change to mode=2 and restart (revision 2), then restore mode=1: the restart gives back
// revision 1's template, so the controller reuses that revision and renumbers it 3. A third
// value makes a new revision (nil).
func TestReuseOfAdoptedRevision(t *testing.T) {
	for _, kind := range []string{"StatefulSet", "DaemonSet"} {
		t.Run(kind, func(t *testing.T) {
			w := reuseWorkload(kind)
			revs := record(t, w, nil) // revision 1, the adopted template
			adopted := reload.DecideWorkload(w, modeObjects("1")).Checksums
			w.Meta().GetAnnotations()[reload.AdoptedAnnotation] = reload.EncodeChecksums(adopted)

			changed := reload.DecideWorkload(w, modeObjects("2"))
			if !changed.Stale {
				t.Fatalf("mode=2: %+v, want stale", changed)
			}
			w = reload.RestartedWorkload(w, changed.Checksums)
			revs = record(t, w, revs) // revision 2

			for _, tc := range []struct {
				mode string
				want *KindReuse
			}{
				{"1", &KindReuse{Name: revs[0].Name, PreviousRevision: 1, Revision: 3}},
				{"3", nil},
			} {
				dec := reload.DecideWorkload(w, modeObjects(tc.mode))
				target := &KindTarget{Workload: w, Decision: dec, Action: chooseKind(dec, false)}
				got, err := ReuseOf(target, revs)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("mode=%s: reuse (-want +got):\n%s", tc.mode, diff)
				}
			}
		})
	}
}

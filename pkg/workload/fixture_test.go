package workload

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

func template(image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}},
	}
}

func statefulSet(image string) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: "sts-uid", ResourceVersion: "7"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](3), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template:       template(image),
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
		},
	}
}

func daemonSet(image string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: "ds-uid", ResourceVersion: "7"},
		Spec: appsv1.DaemonSetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template:       template(image),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
		},
	}
}

// withImage returns a copy of w whose template runs image.
func withImage(t *testing.T, w Workload, image string) Workload {
	t.Helper()
	c, err := Of(w.Object().DeepCopyObject())
	if err != nil {
		t.Fatal(err)
	}
	c.Template().Spec.Containers[0].Image = image
	return c
}

// revision returns the ControllerRevision the controller stores for w with image, numbered
// n: its data is the template patch (the controllers' getPatch), owned by w.
func revision(t *testing.T, w Workload, image string, n int64) *appsv1.ControllerRevision {
	t.Helper()
	data, err := TemplatePatch(withImage(t, w, image))
	if err != nil {
		t.Fatal(err)
	}
	m := w.Meta()
	gvk := w.Object().GetObjectKind().GroupVersionKind()
	hash := fmt.Sprintf("h%d", n)
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: m.GetNamespace(), Name: m.GetName() + "-" + hash,
			Labels:          map[string]string{"app": "db", HashLabel: hash},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(m, gvk)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: n,
	}
}

func pod(w Workload, name, label string, ready bool) *corev1.Pod {
	m := w.Meta()
	gvk := w.Object().GetObjectKind().GroupVersionKind()
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: m.GetNamespace(), Name: name, Labels: map[string]string{"app": "db", HashLabel: label},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(m, gvk)},
		},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}},
	}
}

// kinds returns a StatefulSet and a DaemonSet running image.
func kinds(image string) map[string]Workload {
	return map[string]Workload{"sts": {StatefulSet: statefulSet(image)}, "ds": {DaemonSet: daemonSet(image)}}
}

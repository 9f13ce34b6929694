package workload

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Workload is one StatefulSet or DaemonSet: exactly one of the two pointers is set.
type Workload struct {
	StatefulSet *appsv1.StatefulSet
	DaemonSet   *appsv1.DaemonSet
}

// Of wraps a *appsv1.StatefulSet or *appsv1.DaemonSet. Errors: any other type.
func Of(obj runtime.Object) (Workload, error) {
	switch o := obj.(type) {
	case *appsv1.StatefulSet:
		return Workload{StatefulSet: o}, nil
	case *appsv1.DaemonSet:
		return Workload{DaemonSet: o}, nil
	}
	return Workload{}, fmt.Errorf("%T is neither a StatefulSet nor a DaemonSet", obj)
}

// Kind returns KindStatefulSet or KindDaemonSet.
func (w Workload) Kind() target.Kind {
	if w.StatefulSet != nil {
		return target.KindStatefulSet
	}
	return target.KindDaemonSet
}

// Object returns the wrapped object.
func (w Workload) Object() runtime.Object {
	if w.StatefulSet != nil {
		return w.StatefulSet
	}
	return w.DaemonSet
}

// Meta returns the object's metadata.
func (w Workload) Meta() metav1.Object {
	if w.StatefulSet != nil {
		return w.StatefulSet
	}
	return w.DaemonSet
}

// Ref returns the object's kind, namespace and name.
func (w Workload) Ref() target.KindRef {
	m := w.Meta()
	return target.KindRef{Kind: w.Kind(), Namespace: m.GetNamespace(), Name: m.GetName()}
}

// Template returns the object's pod template.
func (w Workload) Template() *corev1.PodTemplateSpec {
	if w.StatefulSet != nil {
		return &w.StatefulSet.Spec.Template
	}
	return &w.DaemonSet.Spec.Template
}

// Selector returns the object's label selector.
func (w Workload) Selector() *metav1.LabelSelector {
	if w.StatefulSet != nil {
		return w.StatefulSet.Spec.Selector
	}
	return w.DaemonSet.Spec.Selector
}

// RevisionHistoryLimit returns spec.revisionHistoryLimit (nil when unset: the API server
// defaults it to 10).
func (w Workload) RevisionHistoryLimit() *int32 {
	if w.StatefulSet != nil {
		return w.StatefulSet.Spec.RevisionHistoryLimit
	}
	return w.DaemonSet.Spec.RevisionHistoryLimit
}

// UpdateStrategy returns the update strategy's type (RollingUpdate or OnDelete).
func (w Workload) UpdateStrategy() string {
	if w.StatefulSet != nil {
		return string(w.StatefulSet.Spec.UpdateStrategy.Type)
	}
	return string(w.DaemonSet.Spec.UpdateStrategy.Type)
}

// Owned returns the revisions (or pods) controlled by w (metav1.IsControlledBy), as kubectl's
// controlledHistory keeps them.
func Owned[T metav1.Object](w Workload, objs []T) []T {
	var out []T
	for _, o := range objs {
		if metav1.IsControlledBy(o, w.Meta()) {
			out = append(out, o)
		}
	}
	return out
}

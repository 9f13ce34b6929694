package workload

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubectl/pkg/polymorphichelpers"
)

// Verdict is kubectl rollout status's answer for one object.
type Verdict struct {
	// Message is kubectl's line, newline included ("Waiting for 2 pods to be ready...\n").
	Message string
	// Done: the rollout is complete (kubectl stops watching).
	Done bool
	// Err is kubectl's error (an OnDelete strategy: "rollout status is only available for
	// RollingUpdate strategy type"); Done is then true as kubectl returns it.
	Err error
}

// Status returns the verdict of kubectl's StatefulSetStatusViewer or DaemonSetStatusViewer
// (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go, v0.36.3, called as kubectl
// calls it, revision 0) for w. Errors: the object cannot be converted.
func Status(w Workload) (Verdict, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w.Object())
	if err != nil {
		return Verdict{}, err
	}
	var viewer polymorphichelpers.StatusViewer
	if w.StatefulSet != nil {
		viewer = &polymorphichelpers.StatefulSetStatusViewer{}
	} else {
		viewer = &polymorphichelpers.DaemonSetStatusViewer{}
	}
	msg, done, vErr := viewer.Status(&unstructured.Unstructured{Object: content}, 0)
	return Verdict{Message: msg, Done: done, Err: vErr}, nil
}

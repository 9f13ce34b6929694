package watch

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestRolloutComplete(t *testing.T) {
	d := func(observed int64, updated, available int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 4},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(int32(3))},
			Status: appsv1.DeploymentStatus{ObservedGeneration: observed, Replicas: 3, UpdatedReplicas: updated,
				AvailableReplicas: available, Conditions: conds},
		}
	}
	for _, c := range []struct {
		name       string
		d          *appsv1.Deployment
		done       bool
		msg, errIs string
	}{
		{"the controller has not observed the write", d(3, 3, 3), false, "", ""},
		{"observed, 1 of 3 updated", d(4, 1, 3), false, "1 out of 3 new replicas have been updated", ""},
		{"observed, complete", d(4, 3, 3), true, "successfully rolled out", ""},
		{"progress deadline exceeded", d(4, 1, 3, appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded"}), false, "", "exceeded its progress deadline"},
	} {
		msg, done, err := RolloutComplete(c.d, 4)
		if done != c.done || !strings.Contains(msg, c.msg) || (c.errIs == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.errIs) {
			t.Errorf("%s: %q done=%v err=%v; want done=%v, %q, error %q", c.name, msg, done, err, c.done, c.msg, c.errIs)
		}
	}
}

package deployutil_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

var t0 = metav1.NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))

func at(minutes int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute)) }

// rsOf is a ReplicaSet named name created at minute created whose template runs image,
// labelled with the pod-template-hash hash.
func rsOf(name string, created int, image, hash string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: at(created)},
		Spec: appsv1.ReplicaSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", appsv1.DefaultDeploymentUniqueLabelKey: hash}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
		}},
	}
}

func names(rss []*appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, name(rs))
	}
	return out
}

func name(rs *appsv1.ReplicaSet) string {
	if rs == nil {
		return "<nil>"
	}
	return rs.Name
}

func TestByCreationTimestamp(t *testing.T) {
	tests := []struct {
		name string
		in   []*appsv1.ReplicaSet
		want []string
	}{
		{"older first", []*appsv1.ReplicaSet{rsOf("b", 2, "x", "h"), rsOf("a", 1, "x", "h")}, []string{"a", "b"}},
		{"equal times: lower name first", []*appsv1.ReplicaSet{rsOf("web-2", 1, "x", "h"), rsOf("web-1", 1, "x", "h")}, []string{"web-1", "web-2"}},
		{"time before name", []*appsv1.ReplicaSet{rsOf("a", 3, "x", "h"), rsOf("z", 1, "x", "h"), rsOf("m", 1, "x", "h")}, []string{"m", "z", "a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Clone(tc.in)
			slices.SortFunc(got, deployutil.ByCreationTimestamp)
			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
	if a := rsOf("a", 1, "x", "h"); deployutil.ByCreationTimestamp(a, a) != 0 {
		t.Errorf("a ReplicaSet does not compare equal to itself")
	}
}

// TestFindNewReplicaSet holds the cases of TestFindNewReplicaSet in
// pkg/controller/deployment/util/deployment_util_test.go, v1.36.3.
func TestFindNewReplicaSet(t *testing.T) {
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: rsOf("", 0, "nginx", "").Spec.Template}}
	delete(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	newRS := rsOf("new", 1, "nginx", "hash")
	newRSDup := rsOf("new-dup", 0, "nginx", "different-hash")
	oldRS := rsOf("old", 0, "nginx-old-1", "old-hash")
	tests := []struct {
		name string
		rss  []*appsv1.ReplicaSet
		want *appsv1.ReplicaSet
	}{
		{"same template as the Deployment but another pod-template-hash", []*appsv1.ReplicaSet{newRS, oldRS}, newRS},
		{"the oldest of several with the same template", []*appsv1.ReplicaSet{newRS, oldRS, newRSDup}, newRSDup},
		{"none", []*appsv1.ReplicaSet{oldRS}, nil},
		{"no ReplicaSets", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := names(tc.rss)
			if got := deployutil.FindNewReplicaSet(d, tc.rss); got != tc.want {
				t.Errorf("FindNewReplicaSet = %s, want %s", name(got), name(tc.want))
			}
			if diff := cmp.Diff(before, names(tc.rss)); diff != "" {
				t.Errorf("FindNewReplicaSet reordered its input (-before +after):\n%s", diff)
			}
		})
	}
}

package testutil_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// The pod-template-hash labels a v1.36.3 cluster gave the ReplicaSets of
// `kubectl create deployment web --image=nginx:X --replicas=10` (pkg/cluster/testdata/web.yaml).
var realHashes = map[string]string{
	"nginx:1.18": "85987f9d96",
	"nginx:1.19": "7cff7755c7",
	"nginx:1.20": "854998db69",
}

func kubectlCreated(image string) *testutil.DeploymentBuilder {
	return testutil.Deployment("web").Replicas(10).Containers(testutil.DefaultedContainer("nginx", image))
}

// TestReplicaSetForMatchesCluster: a builder Deployment is defaulted as the server defaults
// it, so its ReplicaSet gets the name and hash the cluster gave.
func TestReplicaSetForMatchesCluster(t *testing.T) {
	for image, want := range realHashes {
		t.Run(image, func(t *testing.T) {
			d := kubectlCreated(image).Build()
			if got := planner.ComputeHash(&d.Spec.Template, nil); got != want {
				t.Errorf("planner.ComputeHash = %s, want %s (the cluster's)", got, want)
			}
			rs := testutil.ReplicaSetFor(d).Build()
			if rs.Name != "web-"+want || rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != want {
				t.Errorf("ReplicaSetFor name = %s, hash label %s, want web-%s and %s", rs.Name, rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey], want, want)
			}
		})
	}
}

func TestReplicaSetFor(t *testing.T) {
	d := testutil.Deployment("web").Replicas(10).Revision(3).Build()
	hash := planner.ComputeHash(&d.Spec.Template, nil)
	want := &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              "web-" + hash,
			Namespace:         "default",
			UID:               testutil.UIDFor("ReplicaSet", "web-"+hash),
			Labels:            map[string]string{"app": "web", "pod-template-hash": hash},
			Generation:        1,
			ResourceVersion:   "1",
			CreationTimestamp: testutil.Time(2),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: d.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
			Annotations: map[string]string{
				deployutil.RevisionAnnotation:        "3",
				deployutil.DesiredReplicasAnnotation: "10",
				deployutil.MaxReplicasAnnotation:     "13",
			},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To[int32](4),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "pod-template-hash": hash}},
			Template: func() corev1.PodTemplateSpec {
				t := d.Spec.Template.DeepCopy()
				t.Labels["pod-template-hash"] = hash
				return *t
			}(),
		},
		Status: appsv1.ReplicaSetStatus{Replicas: 4, FullyLabeledReplicas: 4, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 1},
	}
	got := testutil.ReplicaSetFor(d).Replicas(4).Available(2).Created(2).Build()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReplicaSetFor (-want +got):\n%s", diff)
	}
	if d.Spec.Template.Labels["pod-template-hash"] != "" {
		t.Errorf("ReplicaSetFor modified the Deployment's template labels")
	}
}

func TestReplicaSetForVariants(t *testing.T) {
	d := testutil.Deployment("web").Replicas(10).Build()
	tests := []struct {
		name  string
		build *testutil.ReplicaSetBuilder
		check func(t *testing.T, rs *appsv1.ReplicaSet)
	}{
		{"image changes the hash and the name", testutil.ReplicaSetFor(d).Image("nginx:1.17"), func(t *testing.T, rs *appsv1.ReplicaSet) {
			d2 := testutil.Deployment("web").Replicas(10).Image("nginx:1.17").Build()
			if want := "web-" + planner.ComputeHash(&d2.Spec.Template, nil); rs.Name != want {
				t.Errorf("name = %s, want %s", rs.Name, want)
			}
		}},
		{"the Deployment's collision count changes the hash", testutil.ReplicaSetFor(testutil.Deployment("web").Replicas(10).CollisionCount(1).Build()), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if want := planner.ComputeHash(&d.Spec.Template, ptr.To[int32](1)); rs.Labels["pod-template-hash"] != want {
				t.Errorf("hash = %s, want %s", rs.Labels["pod-template-hash"], want)
			}
			if none := planner.ComputeHash(&d.Spec.Template, nil); rs.Labels["pod-template-hash"] == none {
				t.Errorf("hash = %s, the hash without a collision count", none)
			}
		}},
		{"orphan", testutil.ReplicaSetFor(d).Orphan(), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if metav1.GetControllerOf(rs) != nil {
				t.Errorf("orphan has a controller: %v", rs.OwnerReferences)
			}
		}},
		{"no replica annotations", testutil.ReplicaSetFor(d).NoReplicaAnnotations(), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if _, ok := rs.Annotations[deployutil.DesiredReplicasAnnotation]; ok {
				t.Errorf("desired-replicas still set: %v", rs.Annotations)
			}
			if rs.Annotations[deployutil.RevisionAnnotation] != "1" {
				t.Errorf("revision = %q, want the default 1", rs.Annotations[deployutil.RevisionAnnotation])
			}
		}},
		{"recreate has no surge", testutil.ReplicaSetFor(testutil.Deployment("web").Replicas(4).Strategy(testutil.Recreate()).Build()), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if got := rs.Annotations[deployutil.MaxReplicasAnnotation]; got != "4" {
				t.Errorf("max-replicas = %s, want 4", got)
			}
		}},
		{"surge rounds up", testutil.ReplicaSetFor(testutil.Deployment("web").Replicas(3).MaxSurge("10%").Build()), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if got := rs.Annotations[deployutil.MaxReplicasAnnotation]; got != "4" {
				t.Errorf("max-replicas = %s, want 4 (3 + ceil(0.3))", got)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, tc.build.Build()) })
	}
}

package testutil_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// The pod-template-hash labels a v1.36.3 cluster gave the ReplicaSets of
// `kubectl create deployment web --image=nginx:X --replicas=10` (pkg/cluster/samples/web.yaml).
var realHashes = map[string]string{
	"nginx:1.18": "85987f9d96",
	"nginx:1.19": "7cff7755c7",
	"nginx:1.20": "854998db69",
}

func kubectlCreated(image string) *testutil.DeploymentBuilder {
	return testutil.Deployment("web").Replicas(10).Containers(testutil.DefaultedContainer("nginx", image))
}

func TestComputeHashMatchesCluster(t *testing.T) {
	for image, want := range realHashes {
		t.Run(image, func(t *testing.T) {
			d := kubectlCreated(image).Build()
			if got := testutil.ComputeHash(&d.Spec.Template, nil); got != want {
				t.Errorf("ComputeHash = %s, want %s (the cluster's)", got, want)
			}
			if got := planner.ComputeHash(&d.Spec.Template, nil); got != want {
				t.Errorf("planner.ComputeHash = %s, want %s (the cluster's)", got, want)
			}
			rs := testutil.ReplicaSetFor(d).Build()
			if rs.Name != "web-"+want {
				t.Errorf("ReplicaSetFor name = %s, want web-%s", rs.Name, want)
			}
		})
	}
}

func TestComputeHashCollisionCount(t *testing.T) {
	d := kubectlCreated("nginx:1.18").Build()
	none := testutil.ComputeHash(&d.Spec.Template, nil)
	zero := testutil.ComputeHash(&d.Spec.Template, ptr.To[int32](0))
	one := testutil.ComputeHash(&d.Spec.Template, ptr.To[int32](1))
	if none == zero || zero == one || none == one {
		t.Errorf("hashes with collisionCount nil/0/1 = %s/%s/%s, want three different values", none, zero, one)
	}
	for _, cc := range []*int32{nil, ptr.To[int32](0), ptr.To[int32](1), ptr.To[int32](7)} {
		if got, want := testutil.ComputeHash(&d.Spec.Template, cc), planner.ComputeHash(&d.Spec.Template, cc); got != want {
			t.Errorf("collisionCount %v: testutil %s != planner %s", ptr.Deref(cc, -1), got, want)
		}
	}
}

func TestDeploymentIsServerDefaulted(t *testing.T) {
	tests := map[string]*appsv1.Deployment{
		"plain":            testutil.Deployment("web").Build(),
		"sidecar, init":    testutil.Deployment("web").Container("side", "envoy:v1").InitContainer("init", "busybox").Build(),
		"recreate":         testutil.Deployment("web").Strategy(testutil.Recreate()).Build(),
		"latest image":     testutil.Deployment("web").Image("nginx").Build(),
		"labelled, paused": testutil.Deployment("web").Label("tier", "fe").Paused(true).Build(),
	}
	for name, d := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(d, change.ApplyDefaults(d)); diff != "" {
				t.Errorf("ApplyDefaults changed a builder Deployment (-built +defaulted):\n%s", diff)
			}
			if err := change.Validate(d); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestUndefaultedRoundTrip(t *testing.T) {
	want := testutil.Deployment("web").Replicas(1).InitContainer("init", "busybox:1.36").Build()
	u := testutil.Deployment("web").Replicas(1).InitContainer("init", "busybox:1.36").Undefaulted().Build()
	if u.Spec.Replicas != nil || u.Spec.Strategy.Type != "" || u.Spec.Template.Spec.DNSPolicy != "" ||
		u.Spec.Template.Spec.Containers[0].ImagePullPolicy != "" {
		t.Fatalf("Undefaulted left defaults: %+v", u.Spec)
	}
	got := change.ApplyDefaults(u)
	// Undefaulted also clears server-set metadata; defaults do not bring that back.
	got.UID, got.ResourceVersion, got.Generation, got.CreationTimestamp = want.UID, want.ResourceVersion, want.Generation, want.CreationTimestamp
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ApplyDefaults(Undefaulted) != Build (-want +got):\n%s", diff)
	}
}

func TestReplicaSetFor(t *testing.T) {
	d := testutil.Deployment("web").Replicas(10).Revision(3).Build()
	hash := testutil.ComputeHash(&d.Spec.Template, nil)
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
				testutil.RevisionAnnotation:        "3",
				testutil.DesiredReplicasAnnotation: "10",
				testutil.MaxReplicasAnnotation:     "13",
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
			if want := "web-" + testutil.ComputeHash(&d2.Spec.Template, nil); rs.Name != want {
				t.Errorf("name = %s, want %s", rs.Name, want)
			}
		}},
		{"collision count changes the hash", testutil.ReplicaSetFor(d).CollisionCount(1), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if want := testutil.ComputeHash(&d.Spec.Template, ptr.To[int32](1)); rs.Labels["pod-template-hash"] != want {
				t.Errorf("hash = %s, want %s", rs.Labels["pod-template-hash"], want)
			}
		}},
		{"explicit hash", testutil.ReplicaSetFor(d).Hash("abc123"), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if rs.Name != "web-abc123" || rs.Spec.Selector.MatchLabels["pod-template-hash"] != "abc123" {
				t.Errorf("name %s selector %v, want web-abc123 with the hash", rs.Name, rs.Spec.Selector.MatchLabels)
			}
		}},
		{"orphan", testutil.ReplicaSetFor(d).Orphan(), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if metav1.GetControllerOf(rs) != nil {
				t.Errorf("orphan has a controller: %v", rs.OwnerReferences)
			}
		}},
		{"no replica annotations", testutil.ReplicaSetFor(d).NoReplicaAnnotations(), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if _, ok := rs.Annotations[testutil.DesiredReplicasAnnotation]; ok {
				t.Errorf("desired-replicas still set: %v", rs.Annotations)
			}
			if rs.Annotations[testutil.RevisionAnnotation] != "1" {
				t.Errorf("revision = %q, want the default 1", rs.Annotations[testutil.RevisionAnnotation])
			}
		}},
		{"recreate has no surge", testutil.ReplicaSetFor(testutil.Deployment("web").Replicas(4).Strategy(testutil.Recreate()).Build()), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if got := rs.Annotations[testutil.MaxReplicasAnnotation]; got != "4" {
				t.Errorf("max-replicas = %s, want 4", got)
			}
		}},
		{"surge rounds up", testutil.ReplicaSetFor(testutil.Deployment("web").Replicas(3).MaxSurge("10%").Build()), func(t *testing.T, rs *appsv1.ReplicaSet) {
			if got := rs.Annotations[testutil.MaxReplicasAnnotation]; got != "4" {
				t.Errorf("max-replicas = %s, want 4 (3 + ceil(0.3))", got)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, tc.build.Build()) })
	}
}

func TestBuildReturnsFreshObjects(t *testing.T) {
	b := testutil.Deployment("web")
	first := b.Build()
	first.Spec.Template.Labels["x"] = "y"
	first.Spec.Template.Spec.Containers[0].Image = "changed"
	if second := b.Build(); second.Spec.Template.Labels["x"] != "" || second.Spec.Template.Spec.Containers[0].Image != "nginx:1.18" {
		t.Errorf("a second Build shares state with the first: %+v", second.Spec.Template)
	}
	rb := testutil.ReplicaSetFor(b.Build())
	r1 := rb.Build()
	r1.Labels["x"] = "y"
	if r2 := rb.Build(); r2.Labels["x"] != "" {
		t.Errorf("a second ReplicaSet Build shares labels with the first")
	}
}

func TestRollingUpdateAndIntOrPercent(t *testing.T) {
	s := testutil.RollingUpdate("1", "")
	if s.RollingUpdate.MaxSurge.IntVal != 1 || s.RollingUpdate.MaxUnavailable != nil {
		t.Errorf("RollingUpdate(\"1\", \"\") = %+v", s.RollingUpdate)
	}
	if got := testutil.IntOrPercent("30%"); got.StrVal != "30%" {
		t.Errorf("IntOrPercent(30%%) = %v", got)
	}
	if got := testutil.IntOrPercent("-1"); got.IntVal != -1 {
		t.Errorf("IntOrPercent(-1) = %v", got)
	}
}

func TestDefaultedContainerPullPolicy(t *testing.T) {
	tests := map[string]corev1.PullPolicy{
		"nginx":                      corev1.PullAlways,
		"nginx:latest":               corev1.PullAlways,
		"nginx:1.18":                 corev1.PullIfNotPresent,
		"registry:5000/team/app":     corev1.PullAlways,
		"registry:5000/team/app:v1":  corev1.PullIfNotPresent,
		"nginx@sha256:" + sha:        corev1.PullIfNotPresent,
		"nginx:latest@sha256:" + sha: corev1.PullAlways,
		"Invalid:Image":              corev1.PullIfNotPresent,
	}
	for image, want := range tests {
		if got := testutil.DefaultedContainer("c", image).ImagePullPolicy; got != want {
			t.Errorf("%s: pull policy %s, want %s", image, got, want)
		}
		if got := change.PullPolicyFor(image); got != want {
			t.Errorf("change.PullPolicyFor(%s) = %s, want %s", image, got, want)
		}
	}
}

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

package testutil_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
)

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
		if got := testutil.Deployment("web").Image(image).Build().Spec.Template.Spec.Containers[0].ImagePullPolicy; got != want {
			t.Errorf("Deployment.Image(%s): pull policy %s, want %s", image, got, want)
		}
	}
}

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

package pipeline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// Objects of a small cluster: namespace team-a has web (revisions 1 and 3, 3 current; the
// ReplicaSet of revision 2 belongs to another Deployment of the same labels), api and worker;
// team-b has batch.
func completionDeployment(ns, name string, uid types.UID, revision string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid, Annotations: map[string]string{"deployment.kubernetes.io/revision": revision}},
		Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}},
	}
}

func completionReplicaSet(ns, name, app string, owner types.UID, revision string, images ...string) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app},
		Annotations: map[string]string{"deployment.kubernetes.io/revision": revision}}}
	if owner != "" {
		rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: app, UID: owner, Controller: ptr.To(true)}}
	}
	for i, img := range images {
		rs.Spec.Template.Spec.Containers = append(rs.Spec.Template.Spec.Containers, corev1.Container{Name: string(rune('a' + i)), Image: img})
	}
	return rs
}

func completionObjects() []runtime.Object {
	return []runtime.Object{
		completionDeployment("team-a", "web", "uid-web", "3"),
		completionDeployment("team-a", "api", "uid-api", "1"),
		completionDeployment("team-a", "worker", "uid-worker", "1"),
		completionDeployment("team-b", "batch", "uid-batch", "1"),
		completionReplicaSet("team-a", "web-1", "web", "uid-web", "1", "nginx:1.18"),
		completionReplicaSet("team-a", "web-3", "web", "uid-web", "3", "nginx:1.20", "envoy:1.30"),
		completionReplicaSet("team-a", "web-other", "web", "uid-someone-else", "2", "nginx:1.19"),
		completionReplicaSet("team-a", "web-orphan", "web", "", "4", "nginx:1.21"),
		completionReplicaSet("team-a", "web-norev", "web", "uid-web", "", "nginx:0"),
		completionReplicaSet("team-a", "api-1", "api", "uid-api", "1", "api:1"),
	}
}

func TestCompleteDeploymentNames(t *testing.T) {
	client := fake.NewClientset(completionObjects()...)
	for _, tt := range []struct {
		ns, toComplete string
		want           []string
	}{
		{"team-a", "", []string{"api", "web", "worker"}},
		{"team-a", "w", []string{"web", "worker"}},
		{"team-a", "deploy/w", []string{"deploy/web", "deploy/worker"}},
		{"team-a", "deployments.apps/a", []string{"deployments.apps/api"}},
		{"team-a", "deploy.v1.apps/w", []string{"deploy.v1.apps/web", "deploy.v1.apps/worker"}},
		{"team-a", "Deployments.V1.Apps/", []string{"Deployments.V1.Apps/api", "Deployments.V1.Apps/web", "Deployments.V1.Apps/worker"}},
		{"team-a", "deployments.extensions/w", nil},
		{"team-a", "pod/w", nil},
		{"team-a", "x", nil},
		{"team-b", "", []string{"batch"}},
	} {
		got, err := CompleteDeploymentNames(t.Context(), client, tt.ns, tt.toComplete)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.ns, tt.toComplete, d)
		}
	}
}

func TestCompleteRevisions(t *testing.T) {
	client := fake.NewClientset(completionObjects()...)
	got, err := CompleteRevisions(t.Context(), client, "team-a", "web", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got, _ := CompleteRevisions(t.Context(), client, "team-a", "web", "1"); !cmp.Equal(got, []string{"1\tnginx:1.18"}) {
		t.Errorf("prefix 1: %q", got)
	}
	if _, err := CompleteRevisions(t.Context(), client, "team-a", "nope", ""); err == nil || !strings.Contains(err.Error(), "get deployment team-a/nope") {
		t.Errorf("missing deployment: %v", err)
	}
}

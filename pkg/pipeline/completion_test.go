package pipeline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline/pipelinetest"
)

func TestCompleteDeploymentNames(t *testing.T) {
	client := fake.NewClientset(pipelinetest.CompletionObjects()...)
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
	client := fake.NewClientset(pipelinetest.CompletionObjects()...)
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

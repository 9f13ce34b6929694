package pipeline

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline/pipelinetest"
)

// TestCompleter: which arguments complete, names already given are left out, --diff stops at
// the first argument, revisions are listed only for a Deployment argument, and a Connect
// error is returned (nothing completed).
func TestCompleter(t *testing.T) {
	client := fake.NewClientset(pipelinetest.CompletionObjects()...)
	c := Completer{Connect: func() (kubernetes.Interface, string, error) { return client, "team-a", nil }}
	for _, tt := range []struct {
		name       string
		args       []string
		toComplete string
		diff       bool
		want       []string
	}{
		{"first", nil, "", false, []string{"api", "web", "worker"}},
		{"given left out", []string{"deploy/web"}, "", false, []string{"api", "worker"}},
		{"bare type", []string{"deployment"}, "w", false, []string{"web", "worker"}},
		{"bare type then names", []string{"deployment", "api"}, "", false, []string{"web", "worker"}},
		{"bare type refuses TYPE/NAME", []string{"deployment", "api"}, "deploy/", false, nil},
		{"--diff", []string{"web"}, "", true, nil},
	} {
		got, err := c.DeploymentNames(t.Context(), tt.args, tt.toComplete, tt.diff)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
	if got, _ := c.DeploymentName(t.Context(), []string{"web"}, ""); got != nil {
		t.Errorf("second argument completed %q", got)
	}
	got, listed, err := c.Revisions(t.Context(), []string{"deployment", "web"}, "")
	if err != nil || !listed || cmp.Diff([]string{"3\tnginx:1.20,envoy:1.30 (current)", "1\tnginx:1.18"}, got) != "" {
		t.Errorf("Revisions(deployment web) = %q %v %v", got, listed, err)
	}
	if got, listed, err := c.Revisions(t.Context(), []string{"pod/web"}, ""); got != nil || listed || err != nil {
		t.Errorf("Revisions(pod/web) = %q %v %v, want nothing", got, listed, err)
	}
	broken := Completer{Connect: func() (kubernetes.Interface, string, error) { return nil, "", errors.New("build client: no") }}
	if got, err := broken.DeploymentNames(t.Context(), []string{"web"}, "", false); got != nil || err == nil {
		t.Errorf("broken Connect: %q %v, want an error", got, err)
	}
	cfg := clientcmdapi.Config{Contexts: map[string]*clientcmdapi.Context{"prod-us": {}, "prod-eu": {}, "dev": {}}}
	if got := KubeconfigNames(cfg, "context", "prod"); cmp.Diff([]string{"prod-eu", "prod-us"}, got) != "" {
		t.Errorf("KubeconfigNames(context, prod) = %q", got)
	}
}

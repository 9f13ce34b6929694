package pipeline

import (
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

// TestDeploymentChange reads web from the cluster and from a state file (LoadState), applies
// --image and --replicas (Desired) and checks the result; a Deployment missing is an error
// unless allowMissing; a negative --replicas is refused by Validate, naming the flag.
func TestDeploymentChange(t *testing.T) {
	client := fake.NewClientset(objects()...)
	cs := func() (kubernetes.Interface, error) { return client, nil }
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := DeploymentChange{Images: []string{"*=nginx:2"}, Replicas: 2, ReplicasSet: true}
	if !c.Any() || c.HasManifest() || c.Validate() != nil {
		t.Fatalf("Any %v HasManifest %v Validate %v", c.Any(), c.HasManifest(), c.Validate())
	}
	for _, file := range []string{"", stateFile(t)} {
		st, err := LoadState(t.Context(), cs, file, "shop", "web", false)
		if err != nil {
			t.Fatalf("file %q: %v", file, err)
		}
		d, warnings, err := c.Desired(st, "shop", strings.NewReader(""), now)
		if err != nil {
			t.Fatalf("file %q: %v", file, err)
		}
		if *d.Spec.Replicas != 2 || d.Spec.Template.Spec.Containers[0].Image != "nginx:2" || len(warnings) != 0 {
			t.Errorf("file %q: replicas %d image %s warnings %q", file, *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image, warnings)
		}
	}
	if _, err := LoadState(t.Context(), cs, "", "shop", "nope", false); err == nil {
		t.Error("missing Deployment: no error")
	}
	if st, err := LoadState(t.Context(), cs, "", "shop", "nope", true); err != nil || st.Deployment != nil {
		t.Errorf("missing Deployment allowed: %v %v", st, err)
	}
	bad := DeploymentChange{Replicas: -1, ReplicasSet: true}
	if err := bad.Validate(); err == nil || err.Error() != "--replicas=-1: must be 0 or more" {
		t.Errorf("Validate(--replicas=-1) = %v", err)
	}
}

package cluster

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

func TestSample(t *testing.T) {
	s, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	d := s.Deployment
	if d.Namespace != "default" || d.Name != SampleName || *d.Spec.Replicas != 10 || s.Source != SampleSource {
		t.Errorf("sample Deployment %s/%s replicas %d source %q", d.Namespace, d.Name, *d.Spec.Replicas, s.Source)
	}
	type rsInfo struct {
		Name     string
		Revision int
		Replicas int32
		Image    string
	}
	var got []rsInfo
	for _, rs := range s.ReplicaSets {
		rev, _ := strconv.Atoi(rs.Annotations[deployutil.RevisionAnnotation])
		got = append(got, rsInfo{rs.Name, rev, *rs.Spec.Replicas, rs.Spec.Template.Spec.Containers[0].Image})
	}
	want := []rsInfo{
		{"web-85987f9d96", 1, 0, "nginx:1.18"},
		{"web-7cff7755c7", 2, 0, "nginx:1.19"},
		{"web-854998db69", 3, 10, "nginx:1.20"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sample ReplicaSets, oldest first (-want +got):\n%s", diff)
	}
	if len(s.Orphans) != 0 || len(s.Foreign) != 0 {
		t.Errorf("orphans %v foreign %v, want none", names(s.Orphans), names(s.Foreign))
	}
}

// The sample's hash labels are the cluster's: recomputing them from the templates checks the
// recording and the hash function together.
func TestSampleHashes(t *testing.T) {
	s, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range s.ReplicaSets {
		tmpl := rs.Spec.Template.DeepCopy()
		delete(tmpl.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		if got, want := planner.ComputeHash(tmpl, s.Deployment.Status.CollisionCount), rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; got != want {
			t.Errorf("%s: computed hash %s, label %s", rs.Name, got, want)
		}
	}
	if got := planner.ComputeHash(&s.Deployment.Spec.Template, nil); "web-"+got != s.ReplicaSets[2].Name {
		t.Errorf("the Deployment's template hashes to %s, want the newest ReplicaSet %s", got, s.ReplicaSets[2].Name)
	}
	if a, b := SampleYAML(), SampleYAML(); &a[0] == &b[0] {
		t.Errorf("SampleYAML returns shared bytes")
	}
}

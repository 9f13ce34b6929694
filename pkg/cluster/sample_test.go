package cluster

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// The sample state testdata/web.yaml: `kubectl get deploy,rs -o yaml` of a Deployment web in
// namespace default, 10 replicas of nginx:1.20, RollingUpdate 25%/25%, with ReplicaSets of
// revisions 1 (nginx:1.18), 2 (nginx:1.19, the `rollout undo` target) and 3 (nginx:1.20,
// current), recorded on a v1.36.3 cluster.
const (
	samplePath   = "testdata/web.yaml"
	sampleName   = "web"
	sampleSource = "sample:web.yaml"
)

// sampleYAML returns the sample state file.
func sampleYAML(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sample returns the State of the sample state file, read as LoadReader reads it.
func sample(t testing.TB) *State {
	t.Helper()
	s, err := LoadReader(bytes.NewReader(sampleYAML(t)), sampleSource, "", sampleName)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSample(t *testing.T) {
	s := sample(t)
	d := s.Deployment
	if d.Namespace != "default" || d.Name != sampleName || *d.Spec.Replicas != 10 || s.Source != sampleSource {
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
	s := sample(t)
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
}

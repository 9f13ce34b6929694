package reloadoneshot

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestLoadSelectsThroughThePipeline: --all reads the namespace with two LISTs (Deployments,
// ReplicaSets: the one Select) whatever the number of Deployments and keeps the opted-in
// ones with their ReplicaSets; names read each named Deployment, opted in or not; a missing
// name is the API's error.
func TestLoadSelectsThroughThePipeline(t *testing.T) {
	var objs []runtime.Object
	for _, name := range []string{"web", "api", "batch"} {
		b := testutil.Deployment(name).Replicas(2)
		if name != "batch" {
			b = b.Annotation(reload.ReloadAnnotation, "true")
		}
		d := b.Build()
		objs = append(objs, d, testutil.ReplicaSetFor(d).OwnedBy(d).Created(1).Replicas(2).Revision(1).Build())
	}
	load := func(sel *target.Selection) ([]string, []string, error) {
		cs := fake.NewClientset(objs...)
		states, err := Load(context.Background(), cs, sel)
		var names, reads []string
		for _, st := range states {
			names = append(names, st.Deployment.Name+"/"+st.ReplicaSets[0].Name)
		}
		for _, a := range cs.Actions() {
			reads = append(reads, a.GetVerb()+" "+a.GetResource().Resource)
		}
		return names, reads, err
	}

	names, reads, err := load(&target.Selection{Namespace: testutil.DefaultNamespace, Many: true, All: true})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	want := []string{"api/" + testutil.ReplicaSetFor(testutil.Deployment("api").Replicas(2).Build()).Build().Name,
		"web/" + testutil.ReplicaSetFor(testutil.Deployment("web").Replicas(2).Build()).Build().Name}
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("--all: states (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"list deployments", "list replicasets"}, reads); diff != "" {
		t.Errorf("--all: requests (-want +got):\n%s", diff)
	}

	names, _, err = load(&target.Selection{Args: []string{"batch"}, Namespace: testutil.DefaultNamespace, Many: true})
	if err != nil || len(names) != 1 || names[0][:len("batch/")] != "batch/" {
		t.Errorf("named batch (not opted in): %v, %v; want its state", names, err)
	}

	if _, _, err = load(&target.Selection{Args: []string{"gone"}, Namespace: testutil.DefaultNamespace, Many: true}); err == nil || !strings.HasPrefix(err.Error(), `deployments.apps "gone" not found in namespace "default"`) {
		t.Errorf("missing name: %v, want cluster.LoadLive's not found", err)
	}
}

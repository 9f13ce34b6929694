package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

func TestLoadOwnedLeavesOutOrphansAndForeign(t *testing.T) {
	d := testutil.Deployment("web").Replicas(3).Revision(2).Build()
	rev1 := testutil.ReplicaSetFor(d).Image("nginx:1.16").Revision(1).Replicas(0).Created(1).Build()
	rev2 := testutil.ReplicaSetFor(d).Revision(2).Replicas(3).Created(2).Build()
	orphan := testutil.ReplicaSet("web-manual", "web").Created(3).Build()
	foreign := testutil.ReplicaSet("web-theirs", "web").ControlledBy("apps/v1", "Deployment", "web-old", "uid-x").Build()
	elsewhere := testutil.ReplicaSetFor(d).Namespace("prod").Build()
	client := fake.NewClientset(d, rev2, rev1, orphan, foreign, elsewhere)

	got, owned, err := LoadOwned(context.Background(), client, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "web" {
		t.Errorf("Deployment %s, want web", got.Name)
	}
	gotNames := names(owned)
	slices.Sort(gotNames)
	want := []string{rev1.Name, rev2.Name}
	slices.Sort(want)
	if diff := cmp.Diff(want, gotNames); diff != "" {
		t.Errorf("owned ReplicaSets (-want +got):\n%s", diff)
	}

	if _, _, err := LoadOwned(context.Background(), client, "default", "nope"); err == nil || !strings.Contains(err.Error(), `get deployment default/nope`) {
		t.Errorf("missing Deployment: error %v, want one naming deployment default/nope", err)
	}
}

func TestNamespaceAndDeploymentNames(t *testing.T) {
	client := fake.NewClientset(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "prod"}},
		testutil.Deployment("web").Build(),
		testutil.Deployment("api").Build(),
		testutil.Deployment("db").Namespace("prod").Build(),
	)
	ns, err := NamespaceNames(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ns)
	if diff := cmp.Diff([]string{"prod", "shop"}, ns); diff != "" {
		t.Errorf("namespaces (-want +got):\n%s", diff)
	}
	deps, err := DeploymentNames(context.Background(), client, "default")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(deps)
	if diff := cmp.Diff([]string{"api", "web"}, deps); diff != "" {
		t.Errorf("deployments of default (-want +got):\n%s", diff)
	}
}

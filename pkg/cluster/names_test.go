package cluster

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

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

package cluster

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

func TestListPods(t *testing.T) {
	d := testutil.Deployment("web").Build()
	mk := func(name, ns, app string, deleting bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}}}
		if deleting {
			p.DeletionTimestamp = &metav1.Time{}
			p.Finalizers = []string{"x"}
		}
		return p
	}
	client := fake.NewClientset(mk("web-1", "default", "web", false), mk("web-2", "default", "web", true),
		mk("api-1", "default", "api", false), mk("web-3", "prod", "web", false))
	pods, err := ListPods(context.Background(), client, d)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pods {
		got = append(got, p.Name)
	}
	if diff := cmp.Diff([]string{"web-1"}, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if n := len(client.Actions()); n != 1 || client.Actions()[0].GetVerb() != "list" {
		t.Errorf("actions %v, want one LIST", client.Actions())
	}

	forbidden := fake.NewClientset()
	forbidden.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", nil)
	})
	_, err = ListPods(context.Background(), forbidden, d)
	if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "--pod-ready-after") || strings.Contains(err.Error(), "\n") {
		t.Errorf("forbidden: err = %v, want a one-line Forbidden naming --pod-ready-after", err)
	}
}

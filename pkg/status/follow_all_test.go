package status

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// Names need a namespace: Follow refuses them over all namespaces, before any request.
func TestFollowRefusesNamesInAllNamespaces(t *testing.T) {
	cs := fake.NewClientset()
	_, _, err := Follow(context.Background(), cs, Config{Namespace: metav1.NamespaceAll, Names: []string{"web"}}, func([]*Status) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "give the namespace") {
		t.Errorf("err %v, want a refusal naming the namespace", err)
	}
	if n := len(cs.Actions()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

package kube

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestCreateOrUpdate: the first call creates, the second updates the stored object to the
// new content on its resourceVersion, both as FieldManager; DeleteIfExists deletes, and a
// second delete of nothing is not an error.
func TestCreateOrUpdate(t *testing.T) {
	cs := fake.NewClientset()
	cms := cs.CoreV1().ConfigMaps("default")
	cm := func(v string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "guard", Namespace: "default"}, Data: map[string]string{"v": v}}
	}
	if err := CreateOrUpdate(t.Context(), cms, cm("1"), "configmap"); err != nil {
		t.Fatal(err)
	}
	if err := CreateOrUpdate(t.Context(), cms, cm("2"), "configmap"); err != nil {
		t.Fatal(err)
	}
	got, err := cms.Get(t.Context(), "guard", metav1.GetOptions{})
	if err != nil || got.Data["v"] != "2" {
		t.Fatalf("stored %v, %v; want v=2", got, err)
	}
	var verbs []string
	for _, a := range cs.Actions() {
		verbs = append(verbs, a.GetVerb())
		switch a := a.(type) {
		case k8stesting.CreateActionImpl:
			if a.GetCreateOptions().FieldManager != FieldManager {
				t.Errorf("create without field manager %s", FieldManager)
			}
		case k8stesting.UpdateActionImpl:
			if a.GetUpdateOptions().FieldManager != FieldManager {
				t.Errorf("update without field manager %s", FieldManager)
			}
		}
	}
	if strings.Join(verbs, ",") != "get,create,get,update,get" {
		t.Errorf("requests %v, want get,create,get,update (and the test's get)", verbs)
	}
	for range 2 {
		if err := DeleteIfExists(t.Context(), cms, "guard", "configmap"); err != nil {
			t.Fatalf("delete: %v", err)
		}
	}
	if _, err := cms.Get(t.Context(), "guard", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after delete: %v", err)
	}
}

func TestCreateOrUpdateForbidden(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("create", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "guard", errors.New("no"))
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "guard", Namespace: "default"}}
	err := CreateOrUpdate(t.Context(), cs.CoreV1().ConfigMaps("default"), cm, "configmap")
	if !apierrors.IsForbidden(err) || !strings.HasPrefix(err.Error(), "create configmap guard: ") {
		t.Errorf("err %v, want a wrapped Forbidden", err)
	}
}

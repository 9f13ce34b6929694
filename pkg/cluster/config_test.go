package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

func TestConfigRead(t *testing.T) {
	written := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: testutil.DefaultNamespace, Name: "app", UID: "u1",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl-edit", Time: &written, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:A":{}}}`)}}}}, Data: map[string]string{"A": "1"}}
	client := fake.NewClientset(cm)
	dep := testutil.Deployment("web").Containers(
		corev1.Container{Name: "a", Image: "x", EnvFrom: []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}}}).Build()
	c := NewConfig(client)
	for i := range 2 {
		objects, writes, err := c.Read(context.Background(), dep)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := objects[reload.ObjectKey{Namespace: testutil.DefaultNamespace, Kind: reload.ConfigMap, Name: "app"}]; !ok || len(objects) != 1 {
			t.Errorf("read %d: objects %v, want configmap/app only (secret/db missing)", i, objects)
		}
		if w := writes["configmap/app"]; !w.Time.Equal(written.Time) || w.Manager != "kubectl-edit" {
			t.Errorf("read %d: write %+v", i, w)
		}
	}
	gets := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" {
			gets++
		}
	}
	if gets != 2 {
		t.Errorf("%d GETs for two reads of two objects, want 2 (one per object per run)", gets)
	}
}

func TestConfigReadForbidden(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "db", nil)
	})
	dep := testutil.Deployment("web").Containers(corev1.Container{Name: "a", Image: "x", EnvFrom: []corev1.EnvFromSource{
		{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}}}).Build()
	_, _, err := NewConfig(client).Read(context.Background(), dep)
	if err == nil || !strings.Contains(err.Error(), "permission to get secrets") || !apierrors.IsForbidden(err) {
		t.Errorf("error = %v, want a Forbidden naming `get secrets`", err)
	}
}

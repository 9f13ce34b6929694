package reloadcontroller

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

const secretValue = "hunter2-very-secret"

func secret(name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns, UID: types.UID("uid-" + name), ResourceVersion: "7",
			Annotations:   map[string]string{corev1.LastAppliedConfigAnnotation: `{"stringData":{"password":"` + secretValue + `"}}`},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:password":{}}}`)}}},
		},
		Data: map[string][]byte{"password": []byte(secretValue)},
	}
}

func TestDigestTransformKeepsDigestsAndDropsEveryValue(t *testing.T) {
	cm := configMap("app", map[string]string{"a": secretValue})
	cm.BinaryData = map[string][]byte{"b": []byte(secretValue)}
	cm.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: `{"data":{"a":"` + secretValue + `"}}`}
	s := secret("db")
	for _, tc := range []struct {
		name string
		obj  runtime.Object
		want reload.Object
	}{
		{"configmap", cm, reload.ConfigMapObject(cm)},
		{"secret", s, reload.SecretObject(s)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DigestTransform(tc.obj.DeepCopyObject())
			if err != nil {
				t.Fatal(err)
			}
			co, ok := got.(*ConfigObject)
			if !ok {
				t.Fatalf("transform gave %T, want *ConfigObject", got)
			}
			if diff := cmp.Diff(tc.want, co.Object); diff != "" {
				t.Errorf("digests (-want +got):\n%s", diff)
			}
			wantMeta := metav1.ObjectMeta{Name: co.Name, Namespace: ns, UID: co.UID, ResourceVersion: co.ResourceVersion}
			if diff := cmp.Diff(wantMeta, co.ObjectMeta); diff != "" || co.ResourceVersion == "" || co.UID == "" {
				t.Errorf("metadata kept (-want +got), want name, namespace, uid and resourceVersion only:\n%s", diff)
			}
			assertNoValue(t, co)
			again, err := DigestTransform(co)
			if err != nil || again != co {
				t.Errorf("transform of a transformed object: %v, %v; want it unchanged (idempotent)", again, err)
			}
			if copied := co.DeepCopyObject().(*ConfigObject); !cmp.Equal(copied, co) {
				t.Error("DeepCopyObject differs from the original")
			}
		})
	}
	if _, err := DigestTransform(&corev1.Pod{}); err == nil {
		t.Error("transform of a Pod: no error")
	}
}

// assertNoValue fails when v, printed with every field, holds the secret value, raw or
// base64.
func assertNoValue(t *testing.T, v any) {
	t.Helper()
	dump := fmt.Sprintf("%#v", v)
	for _, s := range []string{secretValue, base64.StdEncoding.EncodeToString([]byte(secretValue))} {
		if contains([]string{dump}, s) {
			t.Errorf("%T holds a value: %s", v, dump)
		}
	}
}

func TestInformerCacheHoldsNoSecretValue(t *testing.T) {
	cm := configMap("app", map[string]string{"a": "1"})
	h := start(t, Config{}, cm, secret("db"), recorded(deployment("web", "app", ""), cm))
	items := append(h.c.informers.secrets.GetStore().List(), h.c.informers.configMaps.GetStore().List()...)
	if len(items) != 2 {
		t.Fatalf("cached %d ConfigMaps and Secrets, want 2", len(items))
	}
	for _, item := range items {
		if _, ok := item.(*ConfigObject); !ok {
			t.Errorf("cached a %T, want *ConfigObject", item)
		}
		assertNoValue(t, item)
	}
	if o := h.c.informers.object(ns, reload.Secret, "db"); o == nil || !cmp.Equal(o.Object, reload.SecretObject(secret("db"))) {
		t.Errorf("object(secret/db) = %v; want the digests of the Secret", o)
	}

	keep := start(t, Config{KeepData: true}, cm, secret("db"))
	item, _, _ := keep.c.informers.secrets.GetStore().GetByKey(ns + "/db")
	if _, ok := item.(*corev1.Secret); !ok {
		t.Errorf("KeepData cached a %T, want the whole *corev1.Secret", item)
	}
	if o := keep.c.informers.object(ns, reload.Secret, "db"); o == nil || !cmp.Equal(o.Object, reload.SecretObject(secret("db"))) {
		t.Errorf("KeepData object(secret/db) = %v; want the same digests", o)
	}
}

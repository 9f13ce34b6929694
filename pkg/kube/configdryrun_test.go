package kube

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// recordWrites makes every create and update of c answer with its object (as a dry run does:
// nothing reaches the tracker) and records the options it was sent with.
func recordWrites(c *fake.Clientset, dryRuns *[][]string, managers *[]string) {
	c.PrependReactor("create", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		ca := a.(clienttesting.CreateActionImpl)
		*dryRuns = append(*dryRuns, ca.CreateOptions.DryRun)
		*managers = append(*managers, ca.CreateOptions.FieldManager)
		return true, ca.GetObject(), nil
	})
	c.PrependReactor("update", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		ua := a.(clienttesting.UpdateActionImpl)
		*dryRuns = append(*dryRuns, ua.UpdateOptions.DryRun)
		*managers = append(*managers, ua.UpdateOptions.FieldManager)
		return true, ua.GetObject(), nil
	})
}

func TestDryRunConfigMap(t *testing.T) {
	live := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app", ResourceVersion: "7", Labels: map[string]string{"keep": "me"}},
		Data: map[string]string{"a": "1", "gone": "x"}}
	manifest := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app"}, Data: map[string]string{"a": "2"}}

	t.Run("update of the live object, data replaced, dryRun=All", func(t *testing.T) {
		c := fake.NewClientset(live.DeepCopy())
		var dry [][]string
		var mgr []string
		recordWrites(c, &dry, &mgr)
		before, after, err := DryRunConfigMap(context.Background(), c, Retry{}, manifest)
		if err != nil {
			t.Fatal(err)
		}
		if before == nil || before.Data["gone"] != "x" {
			t.Errorf("live = %+v, want the stored object", before)
		}
		if after.Data["a"] != "2" || after.Data["gone"] != "" || after.Labels["keep"] != "me" || after.ResourceVersion != "7" {
			t.Errorf("stored = %+v, want the live object with the manifest's data", after)
		}
		if len(dry) != 1 || len(dry[0]) != 1 || dry[0][0] != metav1.DryRunAll || mgr[0] != FieldManager {
			t.Errorf("writes sent with dryRun %v, field managers %v; want one [All] under %s", dry, mgr, FieldManager)
		}
		got, _ := c.Tracker().Get(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ns", "app")
		if got.(*corev1.ConfigMap).Data["a"] != "1" {
			t.Error("the dry run changed the stored ConfigMap")
		}
	})

	t.Run("create when there is none", func(t *testing.T) {
		c := fake.NewClientset()
		var dry [][]string
		var mgr []string
		recordWrites(c, &dry, &mgr)
		before, after, err := DryRunConfigMap(context.Background(), c, Retry{}, manifest)
		if err != nil {
			t.Fatal(err)
		}
		if before != nil || after.Data["a"] != "2" || len(dry) != 1 || dry[0][0] != metav1.DryRunAll {
			t.Errorf("live %v, stored %+v, dryRun %v: want nil, the manifest, one create with [All]", before, after, dry)
		}
	})

	t.Run("a transient failure is retried; a forbidden one is not", func(t *testing.T) {
		c := fake.NewClientset(live.DeepCopy())
		var dry [][]string
		var mgr []string
		recordWrites(c, &dry, &mgr)
		gets := 0
		c.PrependReactor("get", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
			gets++
			if gets == 1 {
				return true, nil, apierrors.NewTooManyRequests("slow down", 0)
			}
			return false, nil, nil
		})
		_, after, err := DryRunConfigMap(context.Background(), c, Retry{Deadline: time.Now().Add(30 * time.Second)}, manifest)
		if err != nil || gets != 2 || after.Data["a"] != "2" {
			t.Errorf("err %v after %d GETs: want success on the second", err, gets)
		}

		f := fake.NewClientset()
		f.PrependReactor("get", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
			gets++
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "app", nil)
		})
		gets = 0
		if _, _, err := DryRunConfigMap(context.Background(), f, Retry{}, manifest); !apierrors.IsForbidden(err) || gets != 1 {
			t.Errorf("err %v after %d GETs: want Forbidden after one", err, gets)
		}
	})
}

func TestDryRunSecret(t *testing.T) {
	live := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", ResourceVersion: "3"}, Data: map[string][]byte{"pw": []byte("old")}}
	manifest := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db"}, StringData: map[string]string{"pw": "new"}}
	c := fake.NewClientset(live.DeepCopy())
	var dry [][]string
	var mgr []string
	recordWrites(c, &dry, &mgr)
	before, after, err := DryRunSecret(context.Background(), c, Retry{}, manifest)
	if err != nil {
		t.Fatal(err)
	}
	if string(before.Data["pw"]) != "old" || after.StringData["pw"] != "new" || after.Data != nil || len(dry) != 1 || dry[0][0] != metav1.DryRunAll {
		t.Errorf("live %v, sent %v/%v, dryRun %v: want the live Secret and an update with the manifest's data and stringData", before.Data, after.Data, after.StringData, dry)
	}
}

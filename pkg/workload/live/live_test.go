package live

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

func TestLoadAndPatch(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", ResourceVersion: "5", Labels: map[string]string{"tier": "x"}},
		Spec: appsv1.DaemonSetSpec{Selector: sel}}
	rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db-1", Labels: map[string]string{"app": "db"}}, Revision: 1}
	other := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", Labels: map[string]string{"app": "web"}}, Revision: 1}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db-x", Labels: map[string]string{"app": "db"}}}
	c := fake.NewClientset(ds, rev, other, pod)
	ref := target.KindRef{Kind: target.KindDaemonSet, Namespace: "ns", Name: "db"}
	st, err := Load(context.Background(), c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if st.Workload.DaemonSet.Kind != "DaemonSet" || len(st.Revisions) != 1 || st.Revisions[0].Name != "db-1" || len(st.Pods) != 1 {
		t.Errorf("Load: kind %q, %d revisions, %d pods", st.Workload.DaemonSet.Kind, len(st.Revisions), len(st.Pods))
	}
	refs, err := List(context.Background(), c, target.KindDaemonSet, "", "tier=x")
	if err != nil || len(refs) != 1 || refs[0] != ref {
		t.Errorf("List: %v %v", refs, err)
	}

	var sent string
	c.PrependReactor("patch", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sent = string(a.(k8stesting.PatchAction).GetPatch())
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, "db", nil)
	})
	err = Patch(context.Background(), c, st.Workload, []byte(`{"spec":{"template":{"$patch":"replace"}}}`), kube.Options{FieldManager: "m"})
	if sent != `{"metadata":{"resourceVersion":"5"},"spec":{"template":{"$patch":"replace"}}}` {
		t.Errorf("sent %s", sent)
	}
	if err == nil || !strings.Contains(err.Error(), "daemonset.apps/db in namespace \"ns\": it changed after it was read, nothing was written") {
		t.Errorf("conflict: %v", err)
	}
}

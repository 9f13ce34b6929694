package reloadoneshot

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

func kindTemplate(recorded string) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "app:1",
		EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}}},
	}}}}
	if recorded != "" {
		t.Annotations = map[string]string{reload.ChecksumsAnnotation: recorded}
	}
	return t
}

func TestRestartKinds(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app", UID: "cm-1"}, Data: map[string]string{"k": "v1"}}
	obj := reload.ConfigMapObject(cm)
	ref := reload.References(ptr.To(kindTemplate("")))[0]
	current := reload.EncodeChecksums(map[string]string{ref.AnnotationKey(): obj.Checksum(ref)})
	stale := `{"configmap/app":"old"}`
	meta := func(name string, optIn bool) metav1.ObjectMeta {
		m := metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("u-" + name), Generation: 2, ResourceVersion: "1"}
		if optIn {
			m.Annotations = map[string]string{reload.ReloadAnnotation: "true"}
		}
		return m
	}
	stsStatus := appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1, CurrentRevision: "r", UpdateRevision: "r"}
	dsStatus := appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 1, UpdatedNumberScheduled: 1, NumberAvailable: 1}
	client := fake.NewClientset(cm,
		&appsv1.StatefulSet{ObjectMeta: meta("db", true), Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Template: kindTemplate(stale),
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}}, Status: stsStatus},
		&appsv1.StatefulSet{ObjectMeta: meta("fresh", true), Spec: appsv1.StatefulSetSpec{Template: kindTemplate(current),
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}}, Status: stsStatus},
		&appsv1.StatefulSet{ObjectMeta: meta("new", true), Spec: appsv1.StatefulSetSpec{Template: kindTemplate("")}, Status: stsStatus},
		&appsv1.StatefulSet{ObjectMeta: meta("not-opted", false), Spec: appsv1.StatefulSetSpec{Template: kindTemplate(stale)}},
		&appsv1.DaemonSet{ObjectMeta: meta("agent", true), Spec: appsv1.DaemonSetSpec{Template: kindTemplate(stale),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}}, Status: dsStatus},
	)
	ctx := context.Background()
	res, err := RestartKinds(ctx, client, cluster.NewConfig(client), "ns", KindOptions{Timeout: 5 * time.Second, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Workload.Meta().GetName(), r.Err)
		}
		got[r.Workload.Meta().GetName()] = r.Restarted
	}
	want := map[string]bool{"db": true, "fresh": false, "agent": true, "new": false}
	if len(got) != len(want) {
		t.Fatalf("results %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s restarted = %v, want %v", k, got[k], v)
		}
	}
	sts, _ := client.AppsV1().StatefulSets("ns").Get(ctx, "db", metav1.GetOptions{})
	if a := sts.Spec.Template.Annotations[reload.ChecksumsAnnotation]; a != current {
		t.Errorf("db template checksums = %q, want %q", a, current)
	}
	ds, _ := client.AppsV1().DaemonSets("ns").Get(ctx, "agent", metav1.GetOptions{})
	if a := ds.Spec.Template.Annotations[reload.ChecksumsAnnotation]; a != current {
		t.Errorf("agent template checksums = %q, want %q", a, current)
	}
	nw, _ := client.AppsV1().StatefulSets("ns").Get(ctx, "new", metav1.GetOptions{})
	if nw.Annotations[reload.AdoptedAnnotation] != current || nw.Spec.Template.Annotations[reload.ChecksumsAnnotation] != "" {
		t.Errorf("first sight: adopted %q, template %q; want adopted %q and no restart",
			nw.Annotations[reload.AdoptedAnnotation], nw.Spec.Template.Annotations[reload.ChecksumsAnnotation], current)
	}
	no, _ := client.AppsV1().StatefulSets("ns").Get(ctx, "not-opted", metav1.GetOptions{})
	if a := no.Spec.Template.Annotations[reload.ChecksumsAnnotation]; a != stale {
		t.Errorf("not opted-in template checksums = %q, want unchanged %q", a, stale)
	}
}

func TestRestartKindsWaitsForRollout(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app", UID: "cm-1"}, Data: map[string]string{"k": "v1"}}
	// The controller never reports the new revision: the wait ends at the timeout.
	client := fake.NewClientset(cm, &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: "u", Generation: 2, Annotations: map[string]string{reload.ReloadAnnotation: "true"}},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Template: kindTemplate(`{"configmap/app":"old"}`),
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1, CurrentRevision: "a", UpdateRevision: "b"},
	})
	res, err := RestartKinds(context.Background(), client, cluster.NewConfig(client), "ns", KindOptions{Timeout: 100 * time.Millisecond, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !res[0].Restarted || res[0].Err == nil {
		t.Fatalf("results %+v, want one restart whose wait timed out", res)
	}
}

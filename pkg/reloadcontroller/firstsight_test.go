package reloadcontroller

import (
	"errors"
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
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

var firstSightT0 = time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)

// writtenAt gives cm a managedFields entry of manager kubectl-edit owning its data at t.
func writtenAt(cm *corev1.ConfigMap, t time.Time) *corev1.ConfigMap {
	mt := metav1.NewTime(t)
	cm.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, Time: &mt,
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:a":{}}}`)}}}
	return cm
}

// currentPod is a pod of web's current ReplicaSet (named from its template hash, as the
// controller names it) created at t.
func currentPod(name string, d interface{ GetName() string }, hash string, t time.Time) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, CreationTimestamp: metav1.NewTime(t),
		Labels:          map[string]string{"app": d.GetName(), "pod-template-hash": hash},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: d.GetName() + "-" + hash, Controller: ptr.To(true)}}}}
}

func podLists(cs *fake.Clientset) int {
	n := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "list" && a.GetResource().Resource == "pods" {
			n++
		}
	}
	return n
}

func TestFirstSight(t *testing.T) {
	tests := []struct {
		name string
		// written is when the ConfigMap's data was last written, relative to the oldest pod.
		written time.Duration
		// forbid makes the pod LIST forbidden.
		forbid      bool
		wantRestart bool
		wantEvent   string
	}{
		{name: "config written after the oldest pod: restart with the evidence", written: time.Hour, wantRestart: true,
			wantEvent: ReasonRestarted + " restarted at first sight: possibly stale since 2026-11-24T09:00:00Z: configmap/app data written 2026-11-24T09:00:00Z by kubectl-edit, after the oldest pod of replicaset web-"},
		{name: "config written before the pods: adopt", written: -time.Hour,
			wantEvent: ReasonAdopted + " recorded the config checksums without a restart (first sight): ConfigMap/app [a]"},
		{name: "written in the same second as the pod: seen, adopt", written: 0,
			wantEvent: ReasonAdopted + " recorded the config checksums"},
		{name: "pods may not be listed: adopt, and the Event says why", written: time.Hour, forbid: true,
			wantEvent: ReasonAdopted + " recorded the config checksums without a restart (first sight): ConfigMap/app [a] (pods not listed (forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := writtenAt(configMap("app", map[string]string{"a": "1"}), firstSightT0.Add(tt.written))
			web := deployment("web", "app", "a") // never annotated
			hash := planner.ComputeHash(&web.Spec.Template, nil)
			objs := []runtime.Object{cm, web,
				currentPod("web-new", web, hash, firstSightT0.Add(time.Minute)),
				currentPod("web-oldest", web, hash, firstSightT0),
				currentPod("of-an-old-rs", web, "oldhash", firstSightT0.Add(-24*time.Hour)),
			}
			cs := fake.NewClientset(objs...)
			if tt.forbid {
				cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))
				})
			}
			h := startOn(t, cs, Config{}, nil)
			h.eventually("a write of web", func() bool { return len(h.patches()) == 1 })
			settle(0)
			after := h.deployment("web")
			restarted := after.Spec.Template.Annotations[reload.ChecksumsAnnotation] != ""
			adopted := after.Annotations[reload.AdoptedAnnotation] != ""
			if restarted != tt.wantRestart || adopted == tt.wantRestart {
				t.Errorf("restarted %v, adopted %v; want restarted %v (and adopted the opposite)", restarted, adopted, tt.wantRestart)
			}
			if ev, ok := h.eventsWith("web", tt.wantEvent); !ok {
				t.Errorf("events on web: %q, want one starting %q", ev, tt.wantEvent)
			}
			if n := podLists(cs); n != 1 {
				t.Errorf("%d LISTs of pods, want 1 (first sight only)", n)
			}
			if p := h.patches(); len(p) != 1 {
				t.Errorf("patches %v, want one write of web", p)
			}
			if tt.wantRestart && strings.Contains(strings.Join(h.events("web"), "\n"), "of-an-old-rs") {
				t.Error("the evidence names a pod of an old ReplicaSet")
			}
		})
	}
}

// A recorded Deployment is not at first sight: no pod LIST, whatever the config's write time.
func TestRecordedDeploymentListsNoPods(t *testing.T) {
	cm := writtenAt(configMap("app", map[string]string{"a": "1"}), firstSightT0.Add(time.Hour))
	web := recorded(deployment("web", "app", "a"), cm)
	h := start(t, Config{}, cm, web)
	settle(0)
	h.updateConfigMap(writtenAt(configMap("app", map[string]string{"a": "2"}), firstSightT0.Add(2*time.Hour)))
	h.eventually("the restart", func() bool { return len(h.patches()) == 1 })
	settle(0)
	if n := podLists(h.cs); n != 0 {
		t.Errorf("%d LISTs of pods for a Deployment with recorded checksums, want 0", n)
	}
}

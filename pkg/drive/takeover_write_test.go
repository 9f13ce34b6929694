package drive

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// TestWriteTakeoverRetries: the takeover write refused by a conflict is retried on the fresh
// Deployment when only the status moved (kube's retry policy, at most kube.Backoff.Steps
// writes), and stops without writing when the spec was edited meanwhile.
func TestWriteTakeoverRetries(t *testing.T) {
	for _, tc := range []struct {
		name       string
		concurrent func(d *appsv1.Deployment) // what happened on the server before the write
		conflicts  int                        // updates refused before one is let through
		wantWrites int
		wantErr    string
	}{
		{"status moved: retried on the fresh Deployment", func(d *appsv1.Deployment) { d.Status.ReadyReplicas = 3 }, 1, 2, ""},
		{"spec edited: stopped, nothing written", func(d *appsv1.Deployment) { d.Generation++ }, 1, 1, "changed while drive was preparing"},
		{"status keeps moving: the policy gives up", func(d *appsv1.Deployment) { d.Status.ReadyReplicas = 3 }, 100, kube.Backoff.Steps, "take over deployment default/web"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, old := rolledOut()
			d.ResourceVersion, d.Generation = "10", 2
			tk, err := PlanTakeover(&cluster.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}}, withImage(d, "nginx:1.19"), false)
			if err != nil {
				t.Fatal(err)
			}
			fresh := d.DeepCopy()
			tc.concurrent(fresh)
			fresh.ResourceVersion = "11"
			cs := fake.NewClientset(fresh)
			writes := 0
			cs.PrependReactor("update", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
				writes++
				if writes <= tc.conflicts {
					return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("the object has been modified"))
				}
				upd := a.(k8stesting.UpdateAction).GetObject().(*appsv1.Deployment)
				if upd.ResourceVersion != "11" {
					t.Errorf("retried with resourceVersion %q, want the fresh one (11)", upd.ResourceVersion)
				}
				return true, upd, nil
			})
			drv := New(Options{Client: cs, Namespace: d.Namespace, Name: d.Name})
			st := &State{Version: StateVersion, PlanID: "p", Phase: PhaseForward, Replicas: tk.Bounds.Replicas}
			out, val, err := drv.writeTakeover(t.Context(), tk, st)
			if writes != tc.wantWrites {
				t.Errorf("%d updates, want %d", writes, tc.wantWrites)
			}
			if tc.wantErr == "" {
				if err != nil || out == nil || out.Annotations[Annotation] != val || !out.Spec.Paused {
					t.Fatalf("err %v, out %v", err, out != nil)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want %q", err, tc.wantErr)
			}
			var stopped *StoppedError
			if errors.As(err, &stopped) != (tc.wantWrites == 1) {
				t.Errorf("err %T, a StoppedError only for the spec edit", err)
			}
			got, _ := cs.AppsV1().Deployments(d.Namespace).Get(t.Context(), d.Name, metav1.GetOptions{})
			if IsHeld(got) {
				t.Error("the Deployment is held after a failed takeover")
			}
		})
	}
}

package rollout_test

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// TestSendRenewsGuardOnStatusOnly: a guard that fails because the controller updated
// the status is renewed and the patch goes through; one that fails because somebody changed
// the Deployment's annotations is reported and nothing is written.
func TestSendRenewsGuardOnStatusOnly(t *testing.T) {
	for _, tc := range []struct {
		name       string
		concurrent func(d *appsv1.Deployment)
		wantErr    string
	}{
		{"status only", func(d *appsv1.Deployment) { d.Status.ObservedGeneration++; d.Status.ReadyReplicas = 7 }, ""},
		{"annotation edited", func(d *appsv1.Deployment) { d.Annotations["team"] = "other" }, "changed after the preview"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testutil.Deployment("web").Replicas(3).Build()
			d.ResourceVersion, d.Generation = "10", 2
			if d.Annotations == nil {
				d.Annotations = map[string]string{}
			}
			live := d.DeepCopy()
			tc.concurrent(live)
			live.ResourceVersion = "11"
			cs := fake.NewClientset(live)
			patches := 0
			cs.PrependReactor("patch", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
				patches++
				body := string(a.(k8stesting.PatchAction).GetPatch())
				if !strings.Contains(body, `"resourceVersion":"11"`) {
					return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
				}
				return true, live, nil
			})
			patch, err := rollout.GuardMergePatch([]byte(`{"spec":{"paused":true}}`), "10")
			if err != nil {
				t.Fatal(err)
			}
			p := &rollout.Patch{Type: types.StrategicMergePatchType, Kubectl: []byte(`{"spec":{"paused":true}}`), Guarded: patch, ResourceVersion: "10"}
			_, err = rollout.Send(t.Context(), cs, d, p, kube.Options{FieldManager: "kubectl-rollplan"})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Send: %v", err)
			case tc.wantErr == "" && patches != 2:
				t.Errorf("%d patches, want 2 (the first refused, the renewed one accepted)", patches)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err %v, want %q", err, tc.wantErr)
			case tc.wantErr != "" && !errors.Is(err, kube.ErrGuard):
				t.Errorf("err %v does not match kube.ErrGuard", err)
			case tc.wantErr != "" && patches != 1:
				t.Errorf("%d patches, want 1: a real concurrent change must not be overwritten", patches)
			}
		})
	}
}

// TestSendRetriesTransientOnce: a pause whose patch fails transiently is sent again, and
// is applied once: when the first attempt reached the server before its answer was lost,
// the second is refused by its guard and Send sees the Deployment paused already (done);
// when a real edit came in between, the refusal stands (kube.ErrGuard) and nothing more is
// written.
func TestSendRetriesTransientOnce(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	reset := &url.Error{Op: "Patch", URL: "https://127.0.0.1/apis/apps/v1", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
	for _, tc := range []struct {
		name string
		// first answers the first patch: applied says whether it reached the server.
		first   error
		applied bool
		edit    bool // someone edits an annotation after the first attempt
		wantErr bool
		// wantApplied counts the patches the server applied.
		wantPatches, wantApplied int
	}{
		{"answer lost after the write: done, not applied twice", reset, true, false, false, 2, 1},
		{"503 before the write: sent again", apierrors.NewServiceUnavailable("etcd leader changed"), false, false, false, 2, 1},
		{"429 from API Priority and Fairness: sent again", apierrors.NewTooManyRequests("too many requests", 0), false, false, false, 2, 1},
		{"etcd timeout: sent again", apierrors.NewInternalError(errors.New("etcdserver: request timed out")), false, false, false, 2, 1},
		{"answer lost, then a real edit: refused", reset, false, true, true, 2, 0},
		{"forbidden is not retried", apierrors.NewForbidden(gr, "web", errors.New("no")), false, false, true, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testutil.Deployment("web").Replicas(3).Build()
			d.ResourceVersion, d.Generation = "10", 2
			live := d.DeepCopy()
			cs := fake.NewClientset(live)
			patches, applied := 0, 0
			apply := func() {
				applied++
				live = live.DeepCopy()
				live.Spec.Paused, live.Generation, live.ResourceVersion = true, live.Generation+1, fmt.Sprint(11+applied)
			}
			cs.PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, live.DeepCopy(), nil
			})
			cs.PrependReactor("patch", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
				patches++
				if patches == 1 {
					if tc.applied {
						apply()
					}
					if tc.edit {
						live = live.DeepCopy()
						live.Annotations = map[string]string{"team": "other"}
						live.Generation, live.ResourceVersion = live.Generation+1, "20"
					}
					return true, nil, tc.first
				}
				if !strings.Contains(string(a.(k8stesting.PatchAction).GetPatch()), `"resourceVersion":"`+live.ResourceVersion+`"`) {
					return true, nil, apierrors.NewConflict(gr, "web", errors.New("the object has been modified"))
				}
				apply()
				return true, live.DeepCopy(), nil
			})
			guarded, err := rollout.GuardMergePatch([]byte(`{"spec":{"paused":true}}`), "10")
			if err != nil {
				t.Fatal(err)
			}
			p := &rollout.Patch{Type: types.StrategicMergePatchType, Kubectl: []byte(`{"spec":{"paused":true}}`), Guarded: guarded, ResourceVersion: "10"}
			got, err := rollout.Send(t.Context(), cs, d, p, kube.Options{FieldManager: "kubectl-rollplan"})
			if (err != nil) != tc.wantErr {
				t.Fatalf("Send: err %v, want an error: %v", err, tc.wantErr)
			}
			if err == nil && !got.Spec.Paused {
				t.Errorf("Send returned a Deployment that is not paused")
			}
			if patches != tc.wantPatches || applied != tc.wantApplied {
				t.Errorf("%d patches sent, %d applied; want %d sent, %d applied", patches, applied, tc.wantPatches, tc.wantApplied)
			}
			if tc.edit && !errors.Is(err, kube.ErrGuard) {
				t.Errorf("err %v does not match kube.ErrGuard", err)
			}
		})
	}
}

// TestShows: kubectl's patch already in effect (pause of a paused Deployment, an undo whose
// revision annotation the controller rewrote since) shows; one not in effect does not.
func TestShows(t *testing.T) {
	d := testutil.Deployment("web").Replicas(3).Build()
	pause := &rollout.Patch{Type: types.StrategicMergePatchType, Kubectl: []byte(`{"spec":{"paused":true}}`)}
	if rollout.Shows(d, pause) {
		t.Error("an unpaused Deployment shows the pause")
	}
	paused := d.DeepCopy()
	paused.Spec.Paused = true
	if !rollout.Shows(paused, pause) {
		t.Error("a paused Deployment does not show the pause")
	}
	undo := &rollout.Patch{Type: types.JSONPatchType, Kubectl: []byte(`[{"op":"replace","path":"/metadata/annotations","value":{"team":"a"}}]`)}
	undone := d.DeepCopy()
	undone.Annotations = map[string]string{"team": "a", "deployment.kubernetes.io/revision": "4"}
	if !rollout.Shows(undone, undo) {
		t.Error("an undone Deployment whose revision the controller set does not show the undo")
	}
	undone.Annotations["team"] = "b"
	if rollout.Shows(undone, undo) {
		t.Error("a Deployment with another annotation shows the undo")
	}
}

package rollout_test

import (
	"errors"
	"strings"
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

package kube

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
)

// apiServer makes cs answer a JSON patch it cannot apply (a failed test) as the API server
// does, with a bare 422 (the fake clientset returns json-patch's plain error), and records
// the patches it was sent.
func apiServer(cs *fake.Clientset) *[]k8stesting.PatchAction {
	var sent []k8stesting.PatchAction
	react := k8stesting.ObjectReaction(cs.Tracker())
	cs.PrependReactor("patch", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.PatchAction)
		sent = append(sent, p)
		handled, obj, err := react(a)
		var status apierrors.APIStatus
		if err != nil && !errors.As(err, &status) {
			return true, nil, apierrors.NewGenericServerResponse(422, "PATCH", schema.GroupResource{Group: "apps", Resource: p.GetResource().Resource}, p.GetName(), err.Error(), 0, false)
		}
		return handled, obj, err
	})
	return &sent
}

func TestPatchDeploymentGuard(t *testing.T) {
	for _, tc := range []struct {
		name    string
		test    string // the value the guard tests annotation "team" for
		wantErr bool
	}{
		{"guard holds: written", "a", false},
		{"someone else edited: ErrGuard, nothing written", "b", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testutil.Deployment("web").Replicas(3).Build()
			d.Annotations = map[string]string{"team": "a"}
			cs := fake.NewClientset(d)
			sent := apiServer(cs)
			ops := []jsonpatch.Op{jsonpatch.Test(jsonpatch.AnnotationPath("team"), tc.test), jsonpatch.Replace(jsonpatch.AnnotationPath("team"), "c")}
			out, err := PatchDeployment(t.Context(), cs, d, ops, Default())
			if tc.wantErr != errors.Is(err, ErrGuard) || tc.wantErr != (Classify(err) == ClassGuard) {
				t.Fatalf("err %v (class %q), want ErrGuard %v", err, Classify(err), tc.wantErr)
			}
			stored, gerr := cs.AppsV1().Deployments(d.Namespace).Get(t.Context(), d.Name, metav1.GetOptions{})
			if gerr != nil {
				t.Fatal(gerr)
			}
			want := "c"
			if tc.wantErr {
				want = "a"
			} else if out.Annotations["team"] != "c" {
				t.Errorf("returned annotation %q, want c", out.Annotations["team"])
			}
			if stored.Annotations["team"] != want {
				t.Errorf("stored annotation %q, want %q", stored.Annotations["team"], want)
			}
			if len(*sent) != 1 || (*sent)[0].GetPatchType() != "application/json-patch+json" {
				t.Fatalf("%d patches, want one JSON patch", len(*sent))
			}
			if fm := (*sent)[0].(k8stesting.PatchActionImpl).GetPatchOptions().FieldManager; fm != FieldManager {
				t.Errorf("field manager %q, want %q", fm, FieldManager)
			}
		})
	}
}

func TestScaleReplicaSet(t *testing.T) {
	for _, tc := range []struct {
		name    string
		from    int32
		wantErr bool
		want    int32
	}{
		{"from the replicas read", 3, false, 5},
		{"someone else scaled it: ErrGuard, nothing written", 4, true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := testutil.ReplicaSet("web-1", "web").Replicas(3).Build()
			rs.UID = "u1"
			cs := fake.NewClientset(rs)
			sent := apiServer(cs)
			_, err := ScaleReplicaSet(t.Context(), cs, rs, tc.from, 5, Default())
			if tc.wantErr != errors.Is(err, ErrGuard) {
				t.Fatalf("err %v, want ErrGuard %v", err, tc.wantErr)
			}
			got, _ := cs.AppsV1().ReplicaSets(rs.Namespace).Get(t.Context(), rs.Name, metav1.GetOptions{})
			if *got.Spec.Replicas != tc.want {
				t.Errorf("spec.replicas %d, want %d", *got.Spec.Replicas, tc.want)
			}
			wantBody := `[{"op":"test","path":"/metadata/uid","value":"u1"},{"op":"test","path":"/spec/replicas","value":` +
				string(rune('0'+tc.from)) + `},{"op":"replace","path":"/spec/replicas","value":5}]`
			if diff := cmp.Diff(wantBody, string((*sent)[0].GetPatch())); diff != "" {
				t.Errorf("patch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPatchDeploymentGuardedRenews: a resourceVersion guard refused while only the status
// moved is renewed and sent again; refused after a spec edit it is not, and the error
// matches ErrGuard.
func TestPatchDeploymentGuardedRenews(t *testing.T) {
	for _, tc := range []struct {
		name        string
		concurrent  func(d *appsv1.Deployment)
		wantPatches int
		wantGuard   bool
	}{
		{"status only", func(d *appsv1.Deployment) { d.Status.ReadyReplicas = 2 }, 2, false},
		{"spec edited", func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 9 }, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testutil.Deployment("web").Replicas(3).ResourceVersion("10").Build()
			live := d.DeepCopy()
			tc.concurrent(live)
			live.ResourceVersion = "11"
			cs := fake.NewClientset(live)
			var bodies []string
			cs.PrependReactor("patch", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
				p := a.(k8stesting.PatchAction)
				bodies = append(bodies, string(p.GetPatch()))
				if dr := p.(k8stesting.PatchActionImpl).GetPatchOptions().DryRun; len(dr) != 1 || dr[0] != metav1.DryRunAll {
					t.Errorf("dryRun %v, want All", dr)
				}
				if string(p.GetPatch()) != "rv 11" {
					return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
				}
				return true, live, nil
			})
			gp := GuardedPatch{Type: "application/merge-patch+json", Body: []byte("rv 10"), ResourceVersion: "10",
				Renew: func(rv string) ([]byte, error) { return []byte("rv " + rv), nil }}
			got, err := PatchDeploymentGuarded(t.Context(), cs, d, gp, Options{FieldManager: FieldManager, DryRun: true})
			if len(bodies) != tc.wantPatches {
				t.Errorf("patches %q, want %d", bodies, tc.wantPatches)
			}
			if errors.Is(err, ErrGuard) != tc.wantGuard || (err == nil) == tc.wantGuard {
				t.Fatalf("err %v, want ErrGuard %v", err, tc.wantGuard)
			}
			if err == nil && (got.Kind != "Deployment" || got.APIVersion != "apps/v1") {
				t.Errorf("TypeMeta %+v", got.TypeMeta)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	for _, tc := range []struct {
		err  error
		want Class
	}{
		{nil, ClassNone},
		{apierrors.NewGenericServerResponse(422, "PATCH", gr, "web", "testing value /spec/replicas failed", 0, false), ClassGuard},
		{guardError("patch", apierrors.NewConflict(gr, "web", nil)), ClassGuard},
		{apierrors.NewConflict(gr, "web", nil), ClassConflict},
		{apierrors.NewNotFound(gr, "web"), ClassNotFound},
		{apierrors.NewForbidden(gr, "web", errors.New("no")), ClassForbidden},
		{apierrors.NewServiceUnavailable("down"), ClassTransient},
		{apierrors.NewTooManyRequests("slow down", 1), ClassTransient},
		{apierrors.NewServerTimeout(gr, "patch", 1), ClassTransient},
		{apierrors.NewInternalError(errors.New("etcd")), ClassTransient},
		{apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), -1, "must be >= 0")}), ClassOther},
		{apierrors.NewBadRequest("no"), ClassOther},
	} {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

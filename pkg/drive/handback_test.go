package drive

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// held returns a Deployment held by drive at step 1 (new 3, old 5), with the lease of
// holder valid until leaseUntil, and its two ReplicaSets.
func held(t *testing.T, phase Phase, holder string, leaseUntil time.Time) (*appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.ReplicaSet) {
	t.Helper()
	d, old := rolledOut()
	old.Spec.Replicas = ptr.To(int32(5))
	target := withImage(d, "nginx:1.19")
	newRS := testutil.ReplicaSetFor(target).Created(2).Replicas(3).Revision(2).Build()
	newRS.Annotations[Annotation] = "stale copy"
	s := &State{Version: StateVersion, PlanID: "p1", Phase: phase, OriginalStrategy: d.Spec.Strategy, OriginalPaused: false,
		TargetHash: newRS.Labels[appsv1.DefaultDeploymentUniqueLabelKey], NewReplicaSet: newRS.Name, PreviousReplicaSet: old.Name,
		Replicas: 10, MaxSurge: 3, MaxUnavailable: 2, Step: 1, Steps: 3, Generation: 2, Holder: holder, StartedAt: now, UpdatedAt: now}
	if holder != "" {
		s.LeaseExpires = &leaseUntil
	}
	val, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	target.Generation = 2
	target.Spec.Paused = true
	target.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	target.Annotations = map[string]string{deployutil.RevisionAnnotation: "2", Annotation: val}
	return target, old, newRS
}

func patches(cs *fake.Clientset, resource string) []k8stesting.PatchAction {
	var out []k8stesting.PatchAction
	for _, a := range cs.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && a.GetResource().Resource == resource {
			out = append(out, p)
		}
	}
	return out
}

func TestHandBack(t *testing.T) {
	ctx := context.Background()
	t.Run("refuses a running driver's lease", func(t *testing.T) {
		d, old, newRS := held(t, PhaseForward, "alice@host pid 1/ab", now.Add(time.Minute))
		cs := fake.NewClientset(d, old, newRS)
		_, err := HandBack(ctx, cs, d.Namespace, d.Name, HandBackOptions{Now: func() time.Time { return now }})
		if err == nil || !strings.Contains(err.Error(), "being driven by alice@host pid 1/ab") {
			t.Fatalf("error %v, want the running driver named", err)
		}
		if n := len(patches(cs, "deployments")); n != 0 {
			t.Errorf("%d deployment patches, want none", n)
		}
	})
	for _, tc := range []struct {
		name     string
		phase    Phase
		holder   string
		force    bool
		wantTmpl string // image of the template after the hand-back
	}{
		{"forward, lease expired", PhaseForward, "alice", false, "nginx:1.19"},
		{"forward, no driver", PhaseForward, "", false, "nginx:1.19"},
		{"forward, --force over a valid lease", PhaseForward, "alice", true, "nginx:1.19"},
		{"abort restores the previous template", PhaseAbort, "", false, "nginx:1.18"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lease := now.Add(-time.Second)
			if tc.force {
				lease = now.Add(time.Minute)
			}
			d, old, newRS := held(t, tc.phase, tc.holder, lease)
			cs := fake.NewClientset(d, old, newRS)
			res, err := HandBack(ctx, cs, d.Namespace, d.Name, HandBackOptions{Force: tc.force, Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			got, err := cs.AppsV1().Deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(testutil.RollingUpdate("25%", "25%"), got.Spec.Strategy); diff != "" {
				t.Errorf("strategy (-want +got):\n%s", diff)
			}
			if got.Spec.Paused || IsHeld(got) {
				t.Errorf("paused %v, held %v after the hand-back", got.Spec.Paused, IsHeld(got))
			}
			if img := got.Spec.Template.Spec.Containers[0].Image; img != tc.wantTmpl {
				t.Errorf("template image %s, want %s", img, tc.wantTmpl)
			}
			if _, ok := got.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; ok {
				t.Error("the restored template carries pod-template-hash")
			}
			if res.RestoredTemplate != (tc.phase == PhaseAbort) {
				t.Errorf("RestoredTemplate %v", res.RestoredTemplate)
			}
			if p := patches(cs, "deployments"); len(p) != 1 || !strings.Contains(string(p[0].GetPatch()), `"op":"test","path":"/metadata/generation"`) {
				t.Errorf("want one deployment patch guarded by the generation, got %d", len(p))
			}
			evs, _ := cs.CoreV1().Events(d.Namespace).List(ctx, metav1.ListOptions{})
			if len(evs.Items) != 1 || evs.Items[0].Reason != ReasonHandBack || evs.Items[0].Source.Component != kube.FieldManager {
				t.Errorf("events %+v, want one %s from %s", evs.Items, ReasonHandBack, kube.FieldManager)
			}
			// HandBackPreview gives the same Deployment spec as the write.
			prev, err := HandBackPreview(d, []*appsv1.ReplicaSet{old, newRS})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(prev.Spec, got.Spec); diff != "" {
				t.Errorf("HandBackPreview differs from the hand-back (-preview +written):\n%s", diff)
			}
		})
	}
}

func TestTidyReplicaSets(t *testing.T) {
	ctx := context.Background()
	d, old, newRS := held(t, PhaseForward, "", now)
	newRS.Spec.Replicas = ptr.To(int32(10))
	delete(newRS.Annotations, deployutil.DesiredReplicasAnnotation)
	delete(newRS.Annotations, deployutil.MaxReplicasAnnotation)
	cs := fake.NewClientset(d, old, newRS)
	if err := tidyReplicaSets(ctx, cs, []*appsv1.ReplicaSet{old, newRS}, newRS.Name, &Bounds{10, 3, 2}, kube.Default()); err != nil {
		t.Fatal(err)
	}
	got, err := cs.AppsV1().ReplicaSets(d.Namespace).Get(ctx, newRS.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{deployutil.RevisionAnnotation: "2", deployutil.DesiredReplicasAnnotation: "10", deployutil.MaxReplicasAnnotation: "13"}
	if diff := cmp.Diff(want, got.Annotations); diff != "" {
		t.Errorf("annotations of the new ReplicaSet (-want +got):\n%s", diff)
	}
	if n := len(patches(cs, "replicasets")); n != 1 {
		t.Errorf("%d replicaset patches, want 1 (the old ReplicaSet needs none)", n)
	}
}

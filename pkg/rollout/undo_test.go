package rollout

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/polymorphichelpers"
)

// kubectlRollback runs kubectl's own DeploymentRollbacker (v0.36.3) against a fake
// clientset holding d and rss, and returns its result, its error and the patch it sent
// (nil if none).
func kubectlRollback(t *testing.T, d *appsv1.Deployment, rss []*appsv1.ReplicaSet, toRevision int64) (string, error, []byte, types.PatchType) {
	t.Helper()
	objs := []runtime.Object{d.DeepCopy()}
	for _, rs := range rss {
		objs = append(objs, rs.DeepCopy())
	}
	client := fake.NewClientset(objs...)
	var patch []byte
	var patchType types.PatchType
	client.PrependReactor("patch", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pa := a.(k8stesting.PatchAction)
		patch, patchType = pa.GetPatch(), pa.GetPatchType()
		return true, d.DeepCopy(), nil
	})
	rb, err := polymorphichelpers.RollbackerFor(schema.GroupKind{Group: "apps", Kind: "Deployment"}, client)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rb.Rollback(d.DeepCopy(), nil, toRevision, cmdutil.DryRunNone)
	return res, err, patch, patchType
}

func TestPreviewUndoMatchesKubectl(t *testing.T) {
	type mutate func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet
	cases := []struct {
		name       string
		toRevision int64
		mutate     mutate
		outcome    UndoOutcome
	}{
		{name: "to revision 2 drops the team annotation and takes its change-cause", toRevision: 2, outcome: UndoRollBack},
		{name: "previous revision (0) is revision 4, the renumbered one", toRevision: 0, outcome: UndoRollBack},
		{name: "to the restart revision keeps restartedAt in the template", toRevision: 3, outcome: UndoRollBack},
		{name: "last-applied-configuration and revision-history are kept from the Deployment", toRevision: 2, outcome: UndoRollBack,
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				d.Annotations[corev1.LastAppliedConfigAnnotation] = `{"kind":"Deployment"}`
				d.Annotations["deployment.kubernetes.io/revision-history"] = "1"
				return rss
			}},
		{name: "a revision with two containers, an init container and template annotations", toRevision: 2, outcome: UndoRollBack,
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				rs := byRevision(rss, "2")
				rs.Spec.Template.Spec.Containers = append(rs.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar", Image: "envoy:1.30", Args: []string{"--x=<&>"}})
				rs.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
				rs.Spec.Template.Annotations = map[string]string{"prometheus.io/scrape": "true"}
				return rss
			}},
		{name: "a Deployment without annotations gets the ReplicaSet's", toRevision: 2, outcome: UndoRollBack,
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				d.Annotations = map[string]string{"deployment.kubernetes.io/revision": "5"}
				return rss
			}},
		{name: "skipped when the template already matches revision 5", toRevision: 5, outcome: UndoSkipped},
		{name: "refused when paused", toRevision: 2, outcome: UndoRefused,
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				d.Spec.Paused = true
				return rss
			}},
		{name: "unknown revision 9", toRevision: 9, outcome: UndoNotFound},
		{name: "revision 1 was renumbered: not found", toRevision: 1, outcome: UndoNotFound},
		{name: "negative revision", toRevision: -1, outcome: UndoNotFound},
		{name: "no previous revision", toRevision: 0, outcome: UndoNotFound,
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				return []*appsv1.ReplicaSet{byRevision(rss, "5")}
			}},
		{name: "not-found is checked before paused, as kubectl does", toRevision: 9, outcome: UndoNotFound,
			mutate: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				d.Spec.Paused = true
				return rss
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, rss := webHistory(10)
			if tc.mutate != nil {
				rss = tc.mutate(d, rss)
			}
			kRes, kErr, kPatch, kType := kubectlRollback(t, d, rss, tc.toRevision)
			u, err := PreviewUndo(d, rss, tc.toRevision)
			if err != nil {
				t.Fatal(err)
			}
			if u.Outcome != tc.outcome {
				t.Fatalf("outcome %s (%s), want %s; kubectl said %q, %v", u.Outcome, u.Message, tc.outcome, kRes, kErr)
			}
			switch u.Outcome {
			case UndoRollBack:
				if kErr != nil || kRes != "rolled back" {
					t.Fatalf("kubectl: %q, %v; want rolled back", kRes, kErr)
				}
				if kType != types.JSONPatchType || u.Patch.Type != kType {
					t.Errorf("patch type: kubectl %q, rollplan %q", kType, u.Patch.Type)
				}
				if string(u.Patch.Kubectl) != string(kPatch) {
					t.Errorf("patch bytes differ from kubectl's:\nkubectl:  %s\nrollplan: %s", kPatch, u.Patch.Kubectl)
				}
			case UndoSkipped:
				if kErr != nil || kRes != u.Message {
					t.Errorf("kubectl: %q, %v; rollplan: %q", kRes, kErr, u.Message)
				}
			case UndoRefused:
				if kErr == nil || kErr.Error() != u.Message {
					t.Errorf("kubectl: %v; rollplan: %q", kErr, u.Message)
				}
			case UndoNotFound:
				if kErr == nil || !strings.HasPrefix(u.Message, kErr.Error()) {
					t.Errorf("kubectl: %v; rollplan: %q (should start with kubectl's)", kErr, u.Message)
				}
			}
			if u.Outcome != UndoRollBack && (kPatch != nil || u.Patch != nil) {
				t.Errorf("a patch for outcome %s: kubectl %s, rollplan %v", u.Outcome, kPatch, u.Patch)
			}
		})
	}
}

func TestPreviewUndoDetails(t *testing.T) {
	d, rss := webHistory(10)
	d.Annotations[corev1.LastAppliedConfigAnnotation] = "{}"
	u, err := PreviewUndo(d, rss, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []AnnotationChange{
		{Key: "example.com/team", Op: "drop", From: "payments"},
		{Key: ChangeCauseAnnotation, Op: "change", From: "image 1.20", To: "image 1.19"},
	}
	if diff := cmp.Diff(want, u.Annotations); diff != "" {
		t.Errorf("annotation changes (-want +got):\n%s", diff)
	}
	if !u.LastApplied {
		t.Error("LastApplied = false for a Deployment with last-applied-configuration")
	}
	if diff := cmp.Diff(templateOf(byRevision(rss, "2")), u.Result.Spec.Template); diff != "" {
		t.Errorf("result template is not revision 2's without the hash (-want +got):\n%s", diff)
	}
	for _, line := range []string{"-  - image: nginx:1.20", "+  - image: nginx:1.19"} {
		if !strings.Contains(u.TemplateDiff, line+"\n") {
			t.Errorf("template diff lacks %q:\n%s", line, u.TemplateDiff)
		}
	}
	if u.Revision != 2 || u.Target.Name != byRevision(rss, "2").Name {
		t.Errorf("revision %d target %s", u.Revision, u.Target.Name)
	}
	if !strings.HasPrefix(string(u.Patch.Guarded), `[{"op":"test","path":"/metadata/resourceVersion","value":"1234"},`) ||
		!strings.HasSuffix(string(u.Patch.Guarded), string(u.Patch.Kubectl[1:])) {
		t.Errorf("guarded patch is not the test op followed by kubectl's operations:\n%s", u.Patch.Guarded)
	}
}

func TestPreviewUndoRefusedStillDiffs(t *testing.T) {
	d, rss := webHistory(10)
	d.Spec.Paused = true
	u, err := PreviewUndo(d, rss, 0)
	if err != nil {
		t.Fatal(err)
	}
	if u.Outcome != UndoRefused || u.Revision != 4 || u.TemplateDiff == "" || u.Patch != nil || u.Result != nil {
		t.Errorf("outcome %s revision %d diff %d bytes patch %v result %v; want Refused 4, a diff, no patch, no result",
			u.Outcome, u.Revision, len(u.TemplateDiff), u.Patch, u.Result)
	}
}

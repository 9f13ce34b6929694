package workload

import (
	"bytes"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/polymorphichelpers"
)

// kubectlUndo runs kubectl's own rollbacker on a fake clientset holding w and revs, and
// returns its message, error and the patch it sent (nil when none).
func kubectlUndo(t *testing.T, w Workload, revs []*appsv1.ControllerRevision, to int64) (string, error, []byte) {
	t.Helper()
	objs := []runtime.Object{w.Object().DeepCopyObject()}
	for _, r := range revs {
		objs = append(objs, r.DeepCopy())
	}
	client := fake.NewSimpleClientset(objs...)
	var sent []byte
	client.PrependReactor("patch", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		sent = a.(k8stesting.PatchAction).GetPatch()
		return true, w.Object(), nil
	})
	rb, err := polymorphichelpers.RollbackerFor(w.Object().GetObjectKind().GroupVersionKind().GroupKind(), client)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := rb.Rollback(w.Object(), nil, to, cmdutil.DryRunNone)
	return msg, err, sent
}

func TestPreviewUndoIsKubectls(t *testing.T) {
	for kind, w := range kinds("db:3") {
		revs := []*appsv1.ControllerRevision{
			revision(t, w, "db:1", 1), revision(t, w, "db:2", 2), revision(t, w, "db:3", 3),
		}
		// A revision of another object is not history.
		other := revision(t, w, "db:9", 9)
		other.OwnerReferences[0].UID = "someone-else"
		all := append(revs, other)
		for _, to := range []int64{0, 1, 2, 3, 4, 9, -1} {
			u, err := PreviewUndo(w, all, to)
			msg, kerr, sent := kubectlUndo(t, w, all, to)
			if (err == nil) != (kerr == nil) || err != nil && err.Error() != kerr.Error() {
				t.Fatalf("%s --to-revision %d: error %v, kubectl's %v", kind, to, err, kerr)
			}
			if err != nil {
				continue
			}
			if u.Message != msg || !bytes.Equal(u.Patch, sent) {
				t.Errorf("%s --to-revision %d: %q %s; kubectl %q %s", kind, to, u.Message, u.Patch, msg, sent)
			}
		}
		// The previous revision is 2, with db:2.
		u, err := PreviewUndo(w, all, 0)
		if err != nil || u.Revision != 2 || u.To.Spec.Containers[0].Image != "db:2" || u.Skipped {
			t.Errorf("%s undo: %+v %v", kind, u, err)
		}
		if u, err := PreviewUndo(w, all, 3); err != nil || !u.Skipped || u.Patch != nil {
			t.Errorf("%s undo to the live revision: %+v %v", kind, u, err)
		}
		// One revision: nothing to go back to.
		if _, err := PreviewUndo(w, revs[2:], 0); err != ErrNoLastRevision {
			t.Errorf("%s one revision: %v", kind, err)
		}
	}
}

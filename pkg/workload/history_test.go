package workload

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestBuildHistory(t *testing.T) {
	for kind, w := range kinds("db:4") {
		var revs []*appsv1.ControllerRevision
		for i, img := range []string{"db:1", "db:2", "db:3", "db:4"} {
			revs = append(revs, revision(t, w, img, int64(i+1)))
		}
		if w.StatefulSet != nil {
			w.StatefulSet.Spec.RevisionHistoryLimit = ptr.To[int32](2)
			w.StatefulSet.Status.CurrentRevision, w.StatefulSet.Status.UpdateRevision = revs[2].Name, revs[3].Name
		} else {
			w.DaemonSet.Spec.RevisionHistoryLimit = ptr.To[int32](2)
		}
		// A StatefulSet pod carries its revision's name, a DaemonSet pod the hash.
		label := func(r *appsv1.ControllerRevision) string {
			if w.StatefulSet != nil {
				return r.Name
			}
			return r.Labels[HashLabel]
		}
		gone := pod(w, "gone", label(revs[3]), true)
		gone.DeletionTimestamp = &metav1.Time{}
		pods := []*corev1.Pod{
			pod(w, "a", label(revs[3]), true), pod(w, "b", label(revs[3]), false),
			pod(w, "c", label(revs[2]), true), gone,
		}
		h, err := BuildHistory(w, revs, pods)
		if err != nil {
			t.Fatal(err)
		}
		if h.TemplateRevision != 4 {
			t.Errorf("%s: template revision %d, want 4", kind, h.TemplateRevision)
		}
		r4, r3 := h.Find(4), h.Find(3)
		if r4.Pods != 2 || r4.ReadyPods != 1 || r3.Pods != 1 || r3.ReadyPods != 1 || h.Find(1).Pods != 0 {
			t.Errorf("%s: pods %d/%d at 4, %d/%d at 3", kind, r4.ReadyPods, r4.Pods, r3.ReadyPods, r3.Pods)
		}
		if !slices.Equal(r3.Images, []string{"db:3"}) || !r4.InTemplate || r3.InTemplate {
			t.Errorf("%s: revision 3 %+v", kind, r3)
		}
		if w.StatefulSet != nil && (!r3.StatusCurrent || !r4.StatusUpdate || r4.StatusCurrent) {
			t.Errorf("%s: status revisions: 3 %v/%v, 4 %v/%v", kind, r3.StatusCurrent, r3.StatusUpdate, r4.StatusCurrent, r4.StatusUpdate)
		}
		// Limit 2: after the next rollout revisions 1, 2, 3, 4 are history; 1 and 2 go.
		if !slices.Equal(h.CleanupAtNextRollout, []int64{1, 2}) || !h.Find(2).DeletedAtNextRollout || h.Find(3).DeletedAtNextRollout {
			t.Errorf("%s: cleanup %v", kind, h.CleanupAtNextRollout)
		}
	}
}

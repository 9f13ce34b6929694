package workload

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/util/podutils"
)

// HashLabel is the label the controllers put on ControllerRevisions and pods
// (apps.ControllerRevisionHashLabelKey): a StatefulSet pod carries its revision's name, a
// DaemonSet pod and every ControllerRevision the hash.
const HashLabel = appsv1.ControllerRevisionHashLabelKey

// ChangeCauseAnnotation is kubectl's change-cause annotation, shown per revision.
const ChangeCauseAnnotation = "kubernetes.io/change-cause"

// defaultHistoryLimit is the API server's default spec.revisionHistoryLimit of both kinds.
const defaultHistoryLimit = 10

// History is the revision history of a StatefulSet or DaemonSet.
type History struct {
	Workload Workload
	// Revisions by ascending revision number.
	Revisions []Revision
	// TemplateRevision is the revision whose data matches the live template (0: none yet, the
	// controller has not made it).
	TemplateRevision int64
	// CleanupAtNextRollout are the revisions the controller deletes, oldest first, once the
	// next rollout to a new template completes: all revisions but the newest
	// revisionHistoryLimit, as StatefulSet truncateHistory and DaemonSet cleanupHistory keep
	// them when no pod runs an old revision.
	CleanupAtNextRollout []int64
}

// Revision is one ControllerRevision.
type Revision struct {
	Revision int64
	Name     string
	// Hash is the controller-revision-hash label.
	Hash string
	// Template is the pod template the revision restores.
	Template *corev1.PodTemplateSpec
	// Images are the template's container images (init containers first).
	Images            []string
	CreationTimestamp metav1.Time
	ChangeCause       string
	// Pods and ReadyPods count the workload's pods running this revision (by their
	// controller-revision-hash label) and those of them Ready.
	Pods, ReadyPods int32
	// InTemplate: the live template is this revision's (the update revision).
	InTemplate bool
	// StatusCurrent, StatusUpdate: a StatefulSet's status.currentRevision and
	// status.updateRevision name it.
	StatusCurrent, StatusUpdate bool
	// DeletedAtNextRollout: in History.CleanupAtNextRollout.
	DeletedAtNextRollout bool
}

// Find returns the revision numbered n, or nil.
func (h *History) Find(n int64) *Revision {
	for i := range h.Revisions {
		if h.Revisions[i].Revision == n {
			return &h.Revisions[i]
		}
	}
	return nil
}

// BuildHistory returns w's history from its ControllerRevisions and pods (objects w does not
// control are ignored). Errors: a revision whose data does not apply to w.
func BuildHistory(w Workload, revisions []*appsv1.ControllerRevision, pods []*corev1.Pod) (*History, error) {
	revs := Owned(w, revisions)
	sort.SliceStable(revs, func(i, j int) bool { return revs[i].Revision < revs[j].Revision })
	h := &History{Workload: w}
	var curName, updName string
	if s := w.StatefulSet; s != nil {
		curName, updName = s.Status.CurrentRevision, s.Status.UpdateRevision
	}
	owned := Owned(w, pods)
	for _, cr := range revs {
		tmpl, err := RevisionTemplate(w, cr)
		if err != nil {
			return nil, err
		}
		match, err := Matches(w, cr)
		if err != nil {
			return nil, err
		}
		r := Revision{
			Revision: cr.Revision, Name: cr.Name, Hash: cr.Labels[HashLabel], Template: tmpl,
			Images: images(tmpl), CreationTimestamp: cr.CreationTimestamp,
			ChangeCause: cr.Annotations[ChangeCauseAnnotation], InTemplate: match,
			StatusCurrent: cr.Name == curName, StatusUpdate: cr.Name == updName,
		}
		r.Pods, r.ReadyPods = countPods(owned, cr)
		if match {
			h.TemplateRevision = cr.Revision
		}
		h.Revisions = append(h.Revisions, r)
	}
	h.forecastCleanup()
	return h, nil
}

// forecastCleanup lists the revisions beyond revisionHistoryLimit, oldest first: after the
// next rollout to a new template every existing revision is history (no pod runs it) and the
// controllers delete the oldest len-limit of them.
func (h *History) forecastCleanup() {
	limit := defaultHistoryLimit
	if l := h.Workload.RevisionHistoryLimit(); l != nil {
		limit = int(*l)
	}
	for i := 0; i < len(h.Revisions)-limit; i++ {
		h.Revisions[i].DeletedAtNextRollout = true
		h.CleanupAtNextRollout = append(h.CleanupAtNextRollout, h.Revisions[i].Revision)
	}
}

// countPods counts the pods (not terminating) whose controller-revision-hash label names cr
// (a StatefulSet pod carries the revision's name, a DaemonSet pod its hash), and of them the
// Ready ones.
func countPods(pods []*corev1.Pod, cr *appsv1.ControllerRevision) (n, ready int32) {
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		v := p.Labels[HashLabel]
		if v == "" || (v != cr.Name && v != cr.Labels[HashLabel]) {
			continue
		}
		n++
		if podutils.IsPodReady(p) {
			ready++
		}
	}
	return n, ready
}

func images(t *corev1.PodTemplateSpec) []string {
	var out []string
	for _, c := range t.Spec.InitContainers {
		out = append(out, c.Image)
	}
	for _, c := range t.Spec.Containers {
		out = append(out, c.Image)
	}
	return out
}

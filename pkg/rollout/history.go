package rollout

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// ChangeCauseAnnotation is the annotation `kubectl rollout history` shows as CHANGE-CAUSE
// (polymorphichelpers.ChangeCauseAnnotation, k8s.io/kubectl v0.36.3).
const ChangeCauseAnnotation = "kubernetes.io/change-cause"

// forecastAnnotation marks the hypothetical template of the rollout BuildHistory simulates
// to forecast the cleanup; it never leaves this package.
const forecastAnnotation = "rollplan.dev/forecast"

// History is the revision history of a Deployment: what `kubectl rollout history` lists, and
// more.
type History struct {
	// Namespace and Name of the Deployment.
	Namespace, Name string
	// Paused is spec.paused.
	Paused bool
	// RevisionHistoryLimit is spec.revisionHistoryLimit (nil: the controller keeps every old
	// ReplicaSet).
	RevisionHistoryLimit *int32
	// Revisions has one entry per ReplicaSet the Deployment controls that carries a valid
	// deployment.kubernetes.io/revision annotation, by ascending revision (ties: creation
	// time, then name).
	Revisions []Revision
	// PendingTemplate: the Deployment's pod template matches no ReplicaSet, so no revision is
	// current (a paused Deployment with a template change, or one the controller has not
	// synced yet). The next sync of an unpaused Deployment creates the next revision.
	PendingTemplate bool
	// Unrevisioned names controlled ReplicaSets whose revision annotation does not parse
	// (kubectl skips them with a warning).
	Unrevisioned []string
	// ConfigRecorded: some revision's template carries reload's checksums annotation, so
	// history shows what config changed per revision (the CONFIG column).
	ConfigRecorded bool
	// Orphans names ReplicaSets the controller will adopt (no controller ownerReference,
	// labels match): they are not history yet, for kubectl or for rollback.
	Orphans []string
	// Cleanup lists, in deletion order, the revisions the controller's cleanupDeployment
	// deletes at the end of the next rollout to a new template (revisionHistoryLimit).
	Cleanup []int64
	// CleanupError says why the cleanup could not be forecast ("" when it was).
	CleanupError string
}

// Revision is one revision: a ReplicaSet of the Deployment.
type Revision struct {
	// Revision is the deployment.kubernetes.io/revision annotation of the ReplicaSet.
	Revision int64
	// EarlierRevisions are the numbers this ReplicaSet had before rollbacks renumbered it
	// (deployment.kubernetes.io/revision-history, oldest first).
	EarlierRevisions []int64
	// ReplicaSet is the ReplicaSet; PodTemplateHash its pod-template-hash label.
	ReplicaSet      *appsv1.ReplicaSet
	PodTemplateHash string
	// Images are the images of the template's containers, in order (init containers are
	// prefixed "init:").
	Images []string
	// Replicas is spec.replicas; ReadyReplicas and AvailableReplicas come from the status.
	Replicas, ReadyReplicas, AvailableReplicas int32
	// ChangeCause is the kubernetes.io/change-cause annotation of the ReplicaSet.
	ChangeCause string
	// Current marks the ReplicaSet whose template the Deployment has (the oldest such, as
	// the controller's FindNewReplicaSet picks it).
	Current bool
	// Restart: the template differs from the previous revision's only by the
	// kubectl.kubernetes.io/restartedAt annotation (a `kubectl rollout restart`).
	Restart bool
	// RestartedAt is the template's kubectl.kubernetes.io/restartedAt annotation, if any.
	RestartedAt string
	// DeletedAtNextRollout: the next rollout to a new template deletes this ReplicaSet when
	// it completes (revisionHistoryLimit).
	DeletedAtNextRollout bool
	// Config names the ConfigMaps and Secrets whose content changed from the previous
	// revision, from the checksums annotation (reload.ChecksumsAnnotation) of both templates
	// (reload.ConfigChanges): "configmap/app", "+secret/db" (recorded first here),
	// "-configmap/old" (no longer referenced). Nil when this template records none.
	Config []string
	// ConfigMalformed: the template's checksums annotation (or the previous one's) is not
	// readable, so Config says nothing.
	ConfigMalformed bool
}

// Template returns the revision's pod template without the pod-template-hash label: what
// `kubectl rollout undo --to-revision` would put into the Deployment.
func (r *Revision) Template() *corev1.PodTemplateSpec {
	t := r.ReplicaSet.Spec.Template.DeepCopy()
	delete(t.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	if len(t.Labels) == 0 {
		t.Labels = nil
	}
	return t
}

// Find returns the revision numbered n, or nil. With duplicates it returns the last, as
// kubectl's history map keeps the last ReplicaSet of a revision.
func (h *History) Find(n int64) *Revision {
	for i := len(h.Revisions) - 1; i >= 0; i-- {
		if h.Revisions[i].Revision == n {
			return &h.Revisions[i]
		}
	}
	return nil
}

// Current returns the current revision, or nil when the template matches none.
func (h *History) Current() *Revision {
	for i := range h.Revisions {
		if h.Revisions[i].Current {
			return &h.Revisions[i]
		}
	}
	return nil
}

// Numbers returns the revision numbers, ascending.
func (h *History) Numbers() []int64 {
	out := make([]int64, 0, len(h.Revisions))
	for _, r := range h.Revisions {
		out = append(out, r.Revision)
	}
	return out
}

// BuildHistory returns the history of d. rss are the ReplicaSets the controller claims, as
// pkg/cluster reads them (controlled ones and orphans it will adopt, in any order); only
// those d controls (metav1.IsControlledBy) are revisions, as for kubectl
// (deploymentutil.GetAllReplicaSets, k8s.io/kubectl/pkg/util/deployment).
//
// The cleanup forecast simulates (pkg/planner, pods ready at once) a rollout of d, unpaused,
// to a template no ReplicaSet has, and reports the ReplicaSets cleanupDeployment deletes when
// it completes. It never fails BuildHistory: a planner error lands in CleanupError.
//
// Mirrors DeploymentHistoryViewer.ViewHistory, k8s.io/kubectl/pkg/polymorphichelpers/
// history.go, v0.36.3, for the revisions and change causes.
func BuildHistory(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *History {
	h := &History{
		Namespace:            d.Namespace,
		Name:                 d.Name,
		Paused:               d.Spec.Paused,
		RevisionHistoryLimit: d.Spec.RevisionHistoryLimit,
	}
	var current *appsv1.ReplicaSet
	for _, rs := range sortedReplicaSets(rss) {
		if !metav1.IsControlledBy(rs, d) {
			h.Orphans = append(h.Orphans, rs.Name)
			continue
		}
		if deployutil.EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) && current == nil {
			current = rs
		}
		rev, ok := parseRevision(rs)
		if !ok {
			h.Unrevisioned = append(h.Unrevisioned, rs.Name)
			continue
		}
		h.Revisions = append(h.Revisions, newRevision(rs, rev))
	}
	h.PendingTemplate = current == nil
	slices.SortStableFunc(h.Revisions, func(a, b Revision) int {
		switch {
		case a.Revision < b.Revision:
			return -1
		case a.Revision > b.Revision:
			return 1
		}
		return 0
	})
	for i := range h.Revisions {
		r := &h.Revisions[i]
		r.Current = r.ReplicaSet == current
		var prev *corev1.PodTemplateSpec
		if i > 0 {
			prev = &h.Revisions[i-1].ReplicaSet.Spec.Template
			r.Restart = isRestart(prev, &r.ReplicaSet.Spec.Template)
		}
		r.Config, r.ConfigMalformed = configChanges(prev, &r.ReplicaSet.Spec.Template)
		h.ConfigRecorded = h.ConfigRecorded || r.ReplicaSet.Spec.Template.Annotations[reload.ChecksumsAnnotation] != ""
	}
	h.forecastCleanup(d, rss)
	return h
}

// configChanges is reload.ConfigChanges of two revisions' templates as strings, and whether
// an annotation was malformed.
func configChanges(prev, cur *corev1.PodTemplateSpec) ([]string, bool) {
	changes, ok := reload.ConfigChanges(prev, cur)
	var out []string
	for _, c := range changes {
		out = append(out, c.String())
	}
	return out, !ok
}

func newRevision(rs *appsv1.ReplicaSet, rev int64) Revision {
	r := Revision{
		Revision:          rev,
		EarlierRevisions:  parseRevisionHistory(rs.Annotations[deployutil.RevisionHistoryAnnotation]),
		ReplicaSet:        rs,
		PodTemplateHash:   rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey],
		Replicas:          ptr.Deref(rs.Spec.Replicas, 1),
		ReadyReplicas:     rs.Status.ReadyReplicas,
		AvailableReplicas: rs.Status.AvailableReplicas,
		ChangeCause:       rs.Annotations[ChangeCauseAnnotation],
		RestartedAt:       rs.Spec.Template.Annotations[change.RestartedAtAnnotation],
	}
	if r.PodTemplateHash == "" {
		r.PodTemplateHash = rs.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	}
	for _, c := range rs.Spec.Template.Spec.InitContainers {
		r.Images = append(r.Images, "init:"+c.Image)
	}
	for _, c := range rs.Spec.Template.Spec.Containers {
		r.Images = append(r.Images, c.Image)
	}
	return r
}

// parseRevision reads the revision annotation as kubectl's deploymentutil.Revision does: a
// missing annotation is revision 0, one that does not parse is skipped.
func parseRevision(rs *appsv1.ReplicaSet) (int64, bool) {
	n, err := deployutil.Revision(rs)
	return n, err == nil
}

// parseRevisionHistory parses "1,3" (the controller's format); entries that do not parse are
// left out.
func parseRevisionHistory(s string) []int64 {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// isRestart reports whether cur differs from prev only by the restartedAt annotation (and the
// pod-template-hash label): the template change `kubectl rollout restart` makes.
func isRestart(prev, cur *corev1.PodTemplateSpec) bool {
	if cur.Annotations[change.RestartedAtAnnotation] == "" ||
		cur.Annotations[change.RestartedAtAnnotation] == prev.Annotations[change.RestartedAtAnnotation] {
		return false
	}
	return apiequality.Semantic.DeepEqual(withoutRestart(prev), withoutRestart(cur))
}

func withoutRestart(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	c := t.DeepCopy()
	delete(c.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(c.Annotations, change.RestartedAtAnnotation)
	return c
}

// forecastCleanup fills Cleanup and the rows' DeletedAtNextRollout.
func (h *History) forecastCleanup(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	if d.Spec.RevisionHistoryLimit == nil {
		return
	}
	next := d.DeepCopy()
	next.Spec.Paused = false
	if next.Spec.Template.Annotations == nil {
		next.Spec.Template.Annotations = map[string]string{}
	}
	next.Spec.Template.Annotations[forecastAnnotation] = "next-rollout"
	plan, err := planner.Simulate(planner.Input{Deployment: next, ReplicaSets: rss, Readiness: planner.ReadinessInstant})
	if err != nil {
		h.CleanupError = err.Error()
		return
	}
	if plan.Outcome != planner.OutcomeComplete {
		h.CleanupError = fmt.Sprintf("a rollout of this Deployment would end %s, and the controller cleans up only after a completed rollout", plan.Outcome)
		return
	}
	for _, c := range plan.Cleanup {
		h.Cleanup = append(h.Cleanup, c.Revision)
		for i := range h.Revisions {
			if h.Revisions[i].ReplicaSet.Name == c.Name {
				h.Revisions[i].DeletedAtNextRollout = true
			}
		}
	}
}

// sortedReplicaSets returns rss ordered by creation time, then name
// (controller.ReplicaSetsByCreationTimestamp).
func sortedReplicaSets(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := slices.Clone(rss)
	slices.SortStableFunc(out, deployutil.ByCreationTimestamp)
	return out
}

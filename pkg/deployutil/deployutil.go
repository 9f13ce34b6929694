package deployutil

import (
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotations the Deployment controller reads and writes.
//
// Mirrors the constants of pkg/controller/deployment/util/deployment_util.go, v1.36.3.
const (
	// RevisionAnnotation is the revision of a ReplicaSet (and of its Deployment): a decimal
	// int64, "1" for the first ReplicaSet of a Deployment.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists a ReplicaSet's earlier revisions, comma separated
	// ("1,3"), after rollbacks reused it.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation is spec.replicas of the Deployment when it last scaled the
	// ReplicaSet.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation is spec.replicas + maxSurge of the Deployment when it last scaled
	// the ReplicaSet.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
)

// SkipCopyAnnotation reports whether the annotation key is one the controller never copies
// from a Deployment to its ReplicaSets (and a rollback never copies from a ReplicaSet back to
// the Deployment): kubectl's last-applied-configuration, the four annotations above, and
// the deprecated rollbackTo.
//
// Mirrors skipCopyAnnotation and annotationsToSkip, pkg/controller/deployment/util, v1.36.3
// (also annotationsToSkip in k8s.io/kubectl/pkg/polymorphichelpers/rollback.go, v0.36.3).
func SkipCopyAnnotation(key string) bool {
	switch key {
	case corev1.LastAppliedConfigAnnotation,
		RevisionAnnotation,
		RevisionHistoryAnnotation,
		DesiredReplicasAnnotation,
		MaxReplicasAnnotation,
		appsv1.DeprecatedRollbackTo:
		return true
	}
	return false
}

// SkippedAnnotations returns a new map holding the entries of annotations whose keys
// SkipCopyAnnotation skips: the ones a rollback keeps from the Deployment. It never returns
// nil.
//
// Mirrors getSkippedAnnotations, pkg/controller/deployment/util, v1.36.3.
func SkippedAnnotations(annotations map[string]string) map[string]string {
	skipped := make(map[string]string)
	for k, v := range annotations {
		if SkipCopyAnnotation(k) {
			skipped[k] = v
		}
	}
	return skipped
}

// Revision returns the revision annotation of obj (a ReplicaSet or a Deployment): 0 and no
// error when the annotation is missing, strconv.ParseInt's value and error when it is not a
// decimal int64 (callers skip such objects, as the controller does).
//
// Mirrors Revision, pkg/controller/deployment/util, v1.36.3.
func Revision(obj metav1.Object) (int64, error) {
	v, ok := obj.GetAnnotations()[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// MaxRevision returns the highest revision among rss, 0 if there is none; ReplicaSets whose
// revision does not parse are skipped.
//
// Mirrors MaxRevision, pkg/controller/deployment/util, v1.36.3.
func MaxRevision(rss []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		if v, err := Revision(rs); err == nil && v > m {
			m = v
		}
	}
	return m
}

// EqualIgnoreHash reports whether two pod templates are semantically equal once the
// pod-template-hash label is removed from both; this is how the controller finds a
// Deployment's new ReplicaSet (and how a rollback reuses an old one). Neither template is
// modified.
//
// Mirrors EqualIgnoreHash, pkg/controller/deployment/util, v1.36.3 (also equalIgnoreHash in
// k8s.io/kubectl/pkg/polymorphichelpers/rollback.go, v0.36.3).
func EqualIgnoreHash(template1, template2 *corev1.PodTemplateSpec) bool {
	t1Copy := template1.DeepCopy()
	t2Copy := template2.DeepCopy()
	delete(t1Copy.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(t2Copy.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return apiequality.Semantic.DeepEqual(t1Copy, t2Copy)
}

// ByCreationTimestamp compares two ReplicaSets for slices.SortFunc: the older first, and for
// equal creation timestamps the lower name first. It returns -1, 0 or +1.
//
// Mirrors ReplicaSetsByCreationTimestamp.Less, pkg/controller/controller_utils.go, v1.36.3.
func ByCreationTimestamp(a, b *appsv1.ReplicaSet) int {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return strings.Compare(a.Name, b.Name)
	}
	if a.CreationTimestamp.Before(&b.CreationTimestamp) {
		return -1
	}
	return 1
}

// FindNewReplicaSet returns the ReplicaSet of rss whose pod template equals d's ignoring the
// pod-template-hash label (EqualIgnoreHash), the oldest one (ByCreationTimestamp) when
// several do, or nil. rss is not reordered.
//
// Mirrors FindNewReplicaSet, pkg/controller/deployment/util, v1.36.3 (which sorts rss in
// place).
func FindNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sorted := slices.Clone(rss)
	slices.SortFunc(sorted, ByCreationTimestamp)
	for _, rs := range sorted {
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

package target

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Scope is where the LISTs of a Bulk selection go, for readers that list by themselves
// (pkg/cluster's fleet read, an offline state file): the namespace ("" with -A: every
// namespace), the label selector of -l ("" selects everything) and the page size
// (--chunk-size; 0: one page).
type Scope struct {
	Namespace     string
	LabelSelector string
	ChunkSize     int64
}

// Scope returns the Scope of s: namespace "" with -A, else s.Namespace. Pure; meaningful for
// a Bulk selection.
func (s *Selection) Scope() Scope {
	ns := s.Namespace
	if s.AllNamespaces {
		ns = metav1.NamespaceAll
	}
	return Scope{Namespace: ns, LabelSelector: s.Selector, ChunkSize: s.ChunkSize}
}

// ListOptions returns the metav1.ListOptions of the Scope's first page (label selector and
// limit); a pager follows the continue tokens.
func (sc Scope) ListOptions() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: sc.LabelSelector, Limit: sc.ChunkSize}
}

// Matches reports whether d is in the Scope: its namespace (any with Namespace "") and labels
// matching the selector, as the API server filters a LIST. An invalid selector matches
// nothing (Selection.Validate refuses it first).
func (sc Scope) Matches(d *appsv1.Deployment) bool {
	if sc.Namespace != "" && d.Namespace != sc.Namespace {
		return false
	}
	sel, err := labels.Parse(sc.LabelSelector)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(d.Labels))
}

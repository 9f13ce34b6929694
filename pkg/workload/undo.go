package workload

import (
	"errors"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Undo is the decision of `kubectl rollout undo` for a StatefulSet or DaemonSet.
type Undo struct {
	// Revision is the revision rolled back to (the one found for --to-revision 0).
	Revision int64
	// ControllerRevision is its name.
	ControllerRevision string
	// Skipped: the template already matches the revision; nothing is sent.
	Skipped bool
	// Message is kubectl's result word: "rolled back", or "skipped rollback (current template
	// already matches revision N)".
	Message string
	// Patch is kubectl's strategic merge patch, byte for byte: the revision's data (nil when
	// Skipped).
	Patch []byte
	// From and To are the live pod template and the revision's (To is what --dry-run=client
	// prints after "will roll back to").
	From, To *corev1.PodTemplateSpec
}

// ErrNoLastRevision is kubectl's error for undo without --to-revision when there is at most
// one revision.
var ErrNoLastRevision = errors.New("no last revision to roll back to")

// RevisionNotFound is kubectl's error for a --to-revision that no ControllerRevision has:
// "unable to find specified revision N in history".
func RevisionNotFound(n int64) error {
	return fmt.Errorf("unable to find specified revision %v in history", n)
}

// PreviewUndo decides `kubectl rollout undo --to-revision toRevision` (0: the previous
// revision, the second highest) for w, given its ControllerRevisions (those w does not
// control are ignored, as kubectl's controlledHistory does).
//
// Mirrors StatefulSetRollbacker.Rollback and DaemonSetRollbacker.Rollback, k8s.io/kubectl/
// pkg/polymorphichelpers/rollback.go, v0.36.3: a negative or absent revision gives
// RevisionNotFound, 0 with at most one revision ErrNoLastRevision, a revision whose data
// equals the live template's patch is skipped, otherwise the patch is the revision's data.
func PreviewUndo(w Workload, revisions []*appsv1.ControllerRevision, toRevision int64) (*Undo, error) {
	if toRevision < 0 {
		return nil, RevisionNotFound(toRevision)
	}
	history := Owned(w, revisions)
	if toRevision == 0 && len(history) <= 1 {
		return nil, ErrNoLastRevision
	}
	to := findHistory(toRevision, history)
	if to == nil {
		return nil, RevisionNotFound(toRevision)
	}
	tmpl, err := RevisionTemplate(w, to)
	if err != nil {
		return nil, err
	}
	u := &Undo{Revision: to.Revision, ControllerRevision: to.Name, From: w.Template(), To: tmpl}
	done, err := Matches(w, to)
	if err != nil {
		return nil, err
	}
	if done {
		// kubectl names the revision asked for (0 for the previous one), as it does.
		u.Skipped = true
		u.Message = fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision)
		return u, nil
	}
	u.Message = "rolled back"
	u.Patch = to.Data.Raw
	return u, nil
}

// findHistory is kubectl's: the revision numbered toRevision, or for 0 the second highest
// (the slice is sorted by revision, as kubectl sorts it).
func findHistory(toRevision int64, all []*appsv1.ControllerRevision) *appsv1.ControllerRevision {
	if toRevision == 0 {
		sorted := append([]*appsv1.ControllerRevision(nil), all...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Revision < sorted[j].Revision })
		return sorted[len(sorted)-2]
	}
	for _, h := range all {
		if h.Revision == toRevision {
			return h
		}
	}
	return nil
}

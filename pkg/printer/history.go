package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// RolloutHistory is the machine-readable revision history (`history -o json|yaml`). It is
// an API: fields are added, never renamed or removed, within v1alpha1. See README
// "The RolloutHistory object".
type RolloutHistory struct {
	metav1.TypeMeta `json:",inline"`
	// Deployment identifies the Deployment.
	Deployment HistoryDeployment `json:"deployment"`
	// Revisions by ascending revision.
	Revisions []HistoryRevision `json:"revisions"`
	// CleanupAtNextRollout lists the revisions the controller deletes, in this order, when
	// the next rollout to a new template completes (revisionHistoryLimit).
	CleanupAtNextRollout []int64 `json:"cleanupAtNextRollout"`
	// CleanupError says why the cleanup could not be forecast.
	CleanupError string `json:"cleanupError,omitempty"`
	// Orphans are ReplicaSets the controller will adopt at its next sync (not history yet).
	Orphans []string `json:"orphans,omitempty"`
	// Unrevisioned are ReplicaSets of the Deployment whose revision annotation is invalid.
	Unrevisioned []string `json:"unrevisioned,omitempty"`
}

// HistoryDeployment identifies the Deployment of a history.
type HistoryDeployment struct {
	Namespace            string `json:"namespace"`
	Name                 string `json:"name"`
	Paused               bool   `json:"paused"`
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// CurrentRevision is the revision whose template the Deployment has (absent when
	// PendingTemplate).
	CurrentRevision *int64 `json:"currentRevision,omitempty"`
	// PendingTemplate: the Deployment's template matches no ReplicaSet yet.
	PendingTemplate bool `json:"pendingTemplate"`
}

// HistoryRevision is one revision (one ReplicaSet).
type HistoryRevision struct {
	Revision int64 `json:"revision"`
	// EarlierRevisions are the numbers rollbacks took from this ReplicaSet, oldest first.
	EarlierRevisions  []int64     `json:"earlierRevisions,omitempty"`
	ReplicaSet        string      `json:"replicaSet"`
	PodTemplateHash   string      `json:"podTemplateHash"`
	Images            []string    `json:"images"`
	Replicas          int32       `json:"replicas"`
	ReadyReplicas     int32       `json:"readyReplicas"`
	AvailableReplicas int32       `json:"availableReplicas"`
	CreationTimestamp metav1.Time `json:"creationTimestamp"`
	ChangeCause       string      `json:"changeCause,omitempty"`
	Current           bool        `json:"current"`
	// Restart: the template differs from the previous revision's only by
	// kubectl.kubernetes.io/restartedAt.
	Restart     bool   `json:"restart"`
	RestartedAt string `json:"restartedAt,omitempty"`
	// DeletedAtNextRollout: in CleanupAtNextRollout.
	DeletedAtNextRollout bool `json:"deletedAtNextRollout"`
	// Template is the pod template (only with --revision).
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
}

// DeepCopyObject makes RolloutHistory a runtime.Object for cli-runtime's printers.
func (h *RolloutHistory) DeepCopyObject() runtime.Object {
	b, err := json.Marshal(h)
	if err != nil {
		panic(err)
	}
	out := &RolloutHistory{}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

// NewRolloutHistory converts a history to its API object. With only != 0, it holds that
// revision alone, with its pod template.
func NewRolloutHistory(h *rollout.History, only int64) *RolloutHistory {
	out := &RolloutHistory{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "RolloutHistory"},
		Deployment: HistoryDeployment{
			Namespace: h.Namespace, Name: h.Name, Paused: h.Paused,
			RevisionHistoryLimit: h.RevisionHistoryLimit, PendingTemplate: h.PendingTemplate,
		},
		Revisions:            []HistoryRevision{},
		CleanupAtNextRollout: append([]int64{}, h.Cleanup...),
		CleanupError:         h.CleanupError,
		Orphans:              h.Orphans,
		Unrevisioned:         h.Unrevisioned,
	}
	if cur := h.Current(); cur != nil {
		n := cur.Revision
		out.Deployment.CurrentRevision = &n
	}
	for i := range h.Revisions {
		r := &h.Revisions[i]
		if only != 0 && r != h.Find(only) {
			continue
		}
		hr := HistoryRevision{
			Revision: r.Revision, EarlierRevisions: r.EarlierRevisions, ReplicaSet: r.ReplicaSet.Name,
			PodTemplateHash: r.PodTemplateHash, Images: append([]string{}, r.Images...),
			Replicas: r.Replicas, ReadyReplicas: r.ReadyReplicas, AvailableReplicas: r.AvailableReplicas,
			CreationTimestamp: r.ReplicaSet.CreationTimestamp, ChangeCause: r.ChangeCause,
			Current: r.Current, Restart: r.Restart, RestartedAt: r.RestartedAt,
			DeletedAtNextRollout: r.DeletedAtNextRollout,
		}
		if only != 0 {
			hr.Template = r.Template()
		}
		out.Revisions = append(out.Revisions, hr)
	}
	return out
}

// PrintHistory writes the human form of h: a header, one row per revision (the current one
// marked "*"), and notes on the pending template, the cleanup forecast, orphans and
// ReplicaSets without a valid revision. now is the clock AGE is computed from.
func PrintHistory(w io.Writer, h *rollout.History, now time.Time) error {
	fmt.Fprintf(w, "deployment.apps/%s (namespace %s)%s, revisionHistoryLimit %s\n",
		h.Name, h.Namespace, pausedWord(h.Paused), limitWord(h.RevisionHistoryLimit))
	if len(h.Revisions) == 0 {
		fmt.Fprintln(w, "No rollout history found.")
	} else {
		fmt.Fprintln(w)
		tw := printers.GetNewTabWriter(w)
		fmt.Fprintln(tw, "  REVISION\tREPLICASET\tHASH\tIMAGES\tREADY\tAGE\tCHANGE-CAUSE\tNOTES")
		for i := range h.Revisions {
			r := &h.Revisions[i]
			mark := "  "
			if r.Current {
				mark = "* "
			}
			cause := r.ChangeCause
			if cause == "" {
				cause = "<none>"
			}
			fmt.Fprintf(tw, "%s%d\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", mark, r.Revision, r.ReplicaSet.Name,
				orNone(r.PodTemplateHash), orNone(strings.Join(r.Images, ",")), r.ReadyReplicas, r.Replicas,
				age(r.ReplicaSet.CreationTimestamp, now), cause, revisionNotes(r))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if cur := h.Current(); cur != nil {
		fmt.Fprintf(w, "Current:  revision %d (* above): the Deployment's pod template is this ReplicaSet's.\n", cur.Revision)
	} else if h.PendingTemplate {
		fmt.Fprintf(w, "Current:  none: the Deployment's pod template matches no ReplicaSet yet (%s).\n", pendingReason(h))
	}
	printHistoryCleanup(w, h)
	for _, name := range h.Orphans {
		fmt.Fprintf(w, "Orphan:   ReplicaSet %s has no owner: the controller adopts it at its next sync; it is not history until then.\n", name)
	}
	for _, name := range h.Unrevisioned {
		fmt.Fprintf(w, "Skipped:  ReplicaSet %s has an invalid %s annotation (kubectl skips it too).\n", name, "deployment.kubernetes.io/revision")
	}
	return nil
}

func pendingReason(h *rollout.History) string {
	if h.Paused {
		return "paused: 'kubectl rollplan resume' rolls the template out as a new revision"
	}
	return "the controller has not synced the template change yet"
}

func printHistoryCleanup(w io.Writer, h *rollout.History) {
	switch {
	case h.RevisionHistoryLimit == nil:
		fmt.Fprintln(w, "Cleanup:  revisionHistoryLimit unset: every old ReplicaSet is kept.")
	case h.CleanupError != "":
		fmt.Fprintf(w, "Cleanup:  not forecast: %s.\n", h.CleanupError)
	case len(h.Cleanup) == 0:
		fmt.Fprintf(w, "Cleanup:  the next completed rollout deletes no revision (revisionHistoryLimit %d).\n", *h.RevisionHistoryLimit)
	default:
		revs := make([]string, len(h.Cleanup))
		for i, r := range h.Cleanup {
			revs[i] = fmt.Sprint(r)
		}
		what, them := "revision "+revs[0], "it"
		if len(revs) > 1 {
			what, them = "revisions "+strings.Join(revs, ", "), "them"
		}
		fmt.Fprintf(w, "Cleanup:  the next completed rollout to a new template deletes %s (revisionHistoryLimit %d): 'kubectl rollout undo --to-revision' cannot return to %s after that.\n",
			what, *h.RevisionHistoryLimit, them)
	}
}

func revisionNotes(r *rollout.Revision) string {
	var notes []string
	if len(r.EarlierRevisions) > 0 {
		was := make([]string, len(r.EarlierRevisions))
		for i, n := range r.EarlierRevisions {
			was[i] = fmt.Sprint(n)
		}
		notes = append(notes, "was "+strings.Join(was, ","))
	}
	if r.Restart {
		notes = append(notes, "restart")
	}
	if r.DeletedAtNextRollout {
		notes = append(notes, "deleted at next rollout")
	}
	if len(notes) == 0 {
		return "-"
	}
	return strings.Join(notes, "; ")
}

func pausedWord(paused bool) string {
	if paused {
		return ", paused"
	}
	return ""
}

func limitWord(limit *int32) string {
	if limit == nil {
		return "unset"
	}
	return fmt.Sprint(*limit)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// age is kubectl's AGE column: duration.HumanDuration since t, "<unknown>" for a zero t.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

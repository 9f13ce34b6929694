package printer

import (
	"fmt"
	"io"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/describe"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// NewRolloutHistory converts a history to its API object. With only != 0, it holds that
// revision alone, with its pod template.
func NewRolloutHistory(h *rollout.History, only int64) *v1alpha1.RolloutHistory {
	out := &v1alpha1.RolloutHistory{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "RolloutHistory"},
		Deployment: v1alpha1.HistoryDeployment{
			Namespace: h.Namespace, Name: h.Name, Paused: h.Paused,
			RevisionHistoryLimit: h.RevisionHistoryLimit, PendingTemplate: h.PendingTemplate,
		},
		Revisions:            []v1alpha1.HistoryRevision{},
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
		hr := v1alpha1.HistoryRevision{
			Revision: r.Revision, EarlierRevisions: r.EarlierRevisions, ReplicaSet: r.ReplicaSet.Name,
			PodTemplateHash: r.PodTemplateHash, Images: append([]string{}, r.Images...),
			Replicas: r.Replicas, ReadyReplicas: r.ReadyReplicas, AvailableReplicas: r.AvailableReplicas,
			CreationTimestamp: r.ReplicaSet.CreationTimestamp, ChangeCause: r.ChangeCause,
			Current: r.Current, Restart: r.Restart, RestartedAt: r.RestartedAt,
			DeletedAtNextRollout: r.DeletedAtNextRollout, Config: r.Config,
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
		header := "  REVISION\tREPLICASET\tHASH\tIMAGES\tREADY\tAGE\tCHANGE-CAUSE\tNOTES"
		if h.ConfigRecorded {
			header += "\tCONFIG"
		}
		fmt.Fprintln(tw, header)
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
			fmt.Fprintf(tw, "%s%d\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s%s\n", mark, r.Revision, r.ReplicaSet.Name,
				orNone(r.PodTemplateHash), orNone(strings.Join(r.Images, ",")), r.ReadyReplicas, r.Replicas,
				age(r.ReplicaSet.CreationTimestamp, now), cause, revisionNotes(r), configCellOf(h, r))
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

// PrintRevision writes a revision's pod template as `kubectl rollout history --revision N`
// does: "deployment.apps/NAME with revision #N", then describe.DescribePodTemplate of the
// ReplicaSet's template with its change-cause as an annotation (historyviewer.go, v0.36.3).
// n must be a revision of h (h.Find(n) != nil).
func PrintRevision(w io.Writer, h *rollout.History, n int64) error {
	r := h.Find(n)
	t := r.ReplicaSet.Spec.Template.DeepCopy()
	if r.ChangeCause != "" {
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		t.Annotations[rollout.ChangeCauseAnnotation] = r.ChangeCause
	}
	var b strings.Builder
	describe.DescribePodTemplate(t, describe.NewPrefixWriter(&b))
	_, err := fmt.Fprintf(w, "deployment.apps/%s with revision #%d\n%s\n", h.Name, n, b.String())
	return err
}

// PrintTemplateDiff writes `history --diff`: the unified diff d of the templates labelled
// from and to (rollout.UnifiedDiff), or, when d is empty, a line saying they are the same.
func PrintTemplateDiff(w io.Writer, from, to, d string) error {
	if d == "" {
		_, err := fmt.Fprintf(w, "%s and %s have the same pod template (pod-template-hash aside).\n", from, to)
		return err
	}
	_, err := fmt.Fprint(w, d)
	return err
}

// configCellOf is the CONFIG cell of r ("\t" + the references whose content changed, "-"
// for none, "malformed" for an unreadable annotation), or "" when no revision of h records
// config checksums (the column is then left out).
func configCellOf(h *rollout.History, r *rollout.Revision) string {
	switch {
	case !h.ConfigRecorded:
		return ""
	case r.ConfigMalformed:
		return "\tmalformed " + reload.ChecksumsAnnotation
	case len(r.Config) == 0:
		return "\t-"
	}
	return "\t" + strings.Join(r.Config, ",")
}

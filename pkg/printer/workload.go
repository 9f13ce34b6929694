package printer

import (
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/printers"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/describe"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// NewWorkloadHistory returns the WorkloadHistory of a StatefulSet's or DaemonSet's history;
// only > 0 keeps that revision alone, with its template.
func NewWorkloadHistory(h *workload.History, only int64) *v1alpha1.WorkloadHistory {
	w := h.Workload
	ref := w.Ref()
	out := &v1alpha1.WorkloadHistory{
		Workload: v1alpha1.HistoryWorkload{
			Kind: string(ref.Kind), Namespace: ref.Namespace, Name: ref.Name,
			UpdateStrategy: w.UpdateStrategy(), RevisionHistoryLimit: w.RevisionHistoryLimit(),
		},
		Revisions:            []v1alpha1.WorkloadRevision{},
		CleanupAtNextRollout: append([]int64{}, h.CleanupAtNextRollout...),
	}
	out.SetGroupVersionKind(v1alpha1.SchemeGroupVersion.WithKind("WorkloadHistory"))
	if h.TemplateRevision > 0 {
		n := h.TemplateRevision
		out.Workload.TemplateRevision = &n
	}
	if s := w.StatefulSet; s != nil {
		out.Workload.CurrentRevision, out.Workload.UpdateRevision = s.Status.CurrentRevision, s.Status.UpdateRevision
	}
	for _, r := range h.Revisions {
		if only > 0 && r.Revision != only {
			continue
		}
		wr := v1alpha1.WorkloadRevision{
			Revision: r.Revision, ControllerRevision: r.Name, Hash: r.Hash, Images: append([]string{}, r.Images...),
			CreationTimestamp: r.CreationTimestamp, ChangeCause: r.ChangeCause, Pods: r.Pods, ReadyPods: r.ReadyPods,
			InTemplate: r.InTemplate, DeletedAtNextRollout: r.DeletedAtNextRollout,
		}
		if only > 0 {
			wr.Template = r.Template.DeepCopy()
		}
		out.Revisions = append(out.Revisions, wr)
	}
	return out
}

// PrintWorkloadHistory writes the human form of a StatefulSet's or DaemonSet's history: a
// header, one row per ControllerRevision (the one the pod template names marked "*"), with
// the pods running it (ready/all), and the cleanup forecast. now is the clock of AGE.
func PrintWorkloadHistory(w io.Writer, h *workload.History, now time.Time) error {
	wl := h.Workload
	ref := wl.Ref()
	fmt.Fprintf(w, "%s (namespace %s), %s, revisionHistoryLimit %s\n", ref, ref.Namespace, wl.UpdateStrategy(), limitWord(wl.RevisionHistoryLimit()))
	if len(h.Revisions) == 0 {
		fmt.Fprintln(w, "No rollout history found.")
		return nil
	}
	fmt.Fprintln(w)
	tw := printers.GetNewTabWriter(w)
	fmt.Fprintln(tw, "  REVISION\tCONTROLLERREVISION\tIMAGES\tPODS\tAGE\tCHANGE-CAUSE\tNOTES")
	for i := range h.Revisions {
		r := &h.Revisions[i]
		mark := "  "
		if r.InTemplate {
			mark = "* "
		}
		fmt.Fprintf(tw, "%s%d\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", mark, r.Revision, r.Name, orNone(strings.Join(r.Images, ",")),
			r.ReadyPods, r.Pods, age(r.CreationTimestamp, now), orNone(r.ChangeCause), workloadNotes(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if h.TemplateRevision > 0 {
		fmt.Fprintf(w, "Template: revision %d (* above): the pod template is this revision's; PODS counts ready/all pods running each revision.\n", h.TemplateRevision)
	} else {
		fmt.Fprintln(w, "Template: matches no revision yet: the controller has not seen the last change.")
	}
	if len(h.CleanupAtNextRollout) == 0 {
		fmt.Fprintln(w, "Cleanup:  the next rollout to a new template deletes no revision.")
		return nil
	}
	nums := make([]string, len(h.CleanupAtNextRollout))
	for i, n := range h.CleanupAtNextRollout {
		nums[i] = fmt.Sprint(n)
	}
	fmt.Fprintf(w, "Cleanup:  once the next rollout to a new template completes, revisionHistoryLimit deletes revision %s: 'kubectl rollout undo --to-revision' cannot return to them after that.\n", strings.Join(nums, ", "))
	return nil
}

func workloadNotes(r *workload.Revision) string {
	var n []string
	if r.StatusUpdate {
		n = append(n, "updateRevision")
	}
	if r.StatusCurrent {
		n = append(n, "currentRevision")
	}
	if r.DeletedAtNextRollout {
		n = append(n, "deleted at next rollout")
	}
	return orNone(strings.Join(n, ", "))
}

// PrintWorkloadRevision writes `history sts/NAME --revision N` as kubectl rollout history
// does: "statefulset.apps/NAME with revision #N" and the pod template described.
func PrintWorkloadRevision(w io.Writer, h *workload.History, n int64) error {
	r := h.Find(n)
	var b strings.Builder
	describe.DescribePodTemplate(r.Template, describe.NewPrefixWriter(&b))
	_, err := fmt.Fprintf(w, "%s with revision #%d\n%s\n", h.Workload.Ref(), n, b.String())
	return err
}

// PrintWorkloadResult writes kubectl's result line for a StatefulSet or DaemonSet,
// "statefulset.apps/db restarted", with kubectl's dry-run suffix (DryRunSuffix).
func PrintWorkloadResult(w io.Writer, name, operation string, dryRun cmdutil.DryRunStrategy) error {
	_, err := fmt.Fprintf(w, "%s %s%s\n", name, operation, DryRunSuffix(dryRun))
	return err
}

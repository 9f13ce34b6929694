package printer

import (
	"fmt"
	"io"
	"time"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// PrintKindWritePreview prints the preview of kw, ref's undo or restart, on w: restart's
// annotation and patch, a skipped rollback's line, or a rollback's revision and the unified
// diff of the live template against the revision's; a blank line after.
func PrintKindWritePreview(w io.Writer, ref target.KindRef, kw *pipeline.KindWrite) {
	if kw.Undo == nil {
		fmt.Fprintf(w, "%s (namespace %s): restart: the pod template gets %s=%s, a new revision; the controller replaces every pod (%s).\n",
			ref, ref.Namespace, workload.RestartedAtAnnotation, kw.At.Format(time.RFC3339), kindStrategyWords(kw.Workload))
		fmt.Fprintf(w, "Patch (kubectl's, strategic merge): %s\n\n", kw.Patch)
		return
	}
	u := kw.Undo
	if u.Skipped {
		fmt.Fprintf(w, "%s (namespace %s): the pod template already is revision %d (%s): kubectl skips the rollback.\n\n", ref, ref.Namespace, u.Revision, u.ControllerRevision)
		return
	}
	from, _ := yaml.Marshal(u.From)
	to, _ := yaml.Marshal(u.To)
	fmt.Fprintf(w, "%s (namespace %s): roll back to revision %d (controllerrevision %s): the controller reuses that revision, renumbered, and replaces the pods (%s).\n",
		ref, ref.Namespace, u.Revision, u.ControllerRevision, kindStrategyWords(kw.Workload))
	fmt.Fprint(w, rollout.UnifiedDiff("live template", fmt.Sprintf("revision %d", u.Revision), string(from), string(to)))
	fmt.Fprintln(w)
}

// kindStrategyWords says how the controller replaces the pods under the object's strategy.
func kindStrategyWords(w workload.Workload) string {
	switch {
	case w.UpdateStrategy() == "OnDelete":
		return "OnDelete: only as you delete them"
	case w.StatefulSet != nil:
		return "RollingUpdate: highest ordinal first, down to the partition"
	default:
		return "RollingUpdate: node by node, within maxUnavailable and maxSurge"
	}
}

// KindWriteReport prints what pipeline.KindWrites.Send tells: a failed object's line on
// ErrOut ("error: statefulset.apps/db (namespace shop): ..."), each result line on Result
// (PrintWorkloadResult under DryRun).
type KindWriteReport struct {
	Result, ErrOut io.Writer
	DryRun         cmdutil.DryRunStrategy
}

var _ pipeline.KindWriteReport = KindWriteReport{}

// Failed prints ref's failure line.
func (r KindWriteReport) Failed(ref target.KindRef, err error) {
	fmt.Fprintf(r.ErrOut, "error: %s (namespace %s): %v\n", ref, ref.Namespace, err)
}

// Done prints ref's result line.
func (r KindWriteReport) Done(ref target.KindRef, operation string) error {
	return PrintWorkloadResult(r.Result, ref.String(), operation, r.DryRun)
}

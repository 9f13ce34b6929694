package printer

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// PrintUndo writes the human preview of a rollback: the predicted outcome, the template
// diff, the annotation changes, the patch in one line, and the rollout plan that follows
// (plan may be nil: nothing rolls out).
func PrintUndo(w io.Writer, u *rollout.Undo, plan *planner.Plan, opts PlanOptions) error {
	target := "the previous revision"
	if u.ToRevision != 0 {
		target = fmt.Sprintf("revision %d", u.ToRevision)
	}
	if u.Target != nil {
		target = fmt.Sprintf("revision %d (replicaset %s)", u.Revision, u.Target.Name)
	}
	fmt.Fprintf(w, "Undo:        deployment.apps/%s to %s\n", u.Name, target)
	fmt.Fprintf(w, "Outcome:     %s\n", undoOutcome(u, plan))
	if u.Outcome == rollout.UndoNotFound {
		return nil
	}
	fmt.Fprintln(w)
	if u.TemplateDiff == "" {
		fmt.Fprintln(w, "Template:    the live pod template already equals the target's.")
	} else {
		fmt.Fprintf(w, "Template:    live -> revision %d\n", u.Revision)
		fmt.Fprint(w, indent(u.TemplateDiff, "  "))
	}
	if u.Outcome != rollout.UndoRollBack {
		return nil
	}
	fmt.Fprintln(w)
	printAnnotationChanges(w, u)
	fmt.Fprintf(w, "Patch:       %s\n", patchSummary(u.Patch))
	if plan != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Rollout that follows:")
		return PrintPlan(w, plan, opts)
	}
	return nil
}

func undoOutcome(u *rollout.Undo, plan *planner.Plan) string {
	switch u.Outcome {
	case rollout.UndoRollBack:
		s := fmt.Sprintf("will roll back: the Deployment gets revision %d's pod template", u.Revision)
		if plan != nil {
			s += fmt.Sprintf("; the controller reuses %s as revision %d", plan.NewReplicaSet.Name, plan.NewReplicaSet.Revision)
		}
		return s
	case rollout.UndoSkipped:
		return "skipped: kubectl writes nothing and prints \"" + u.Message + "\""
	case rollout.UndoRefused:
		return "refused: the Deployment is paused; kubectl fails with \"" + u.Message + "\""
	default:
		return "revision not found; kubectl fails with \"" + u.Message + "\""
	}
}

func printAnnotationChanges(w io.Writer, u *rollout.Undo) {
	if len(u.Annotations) == 0 {
		fmt.Fprintln(w, "Annotations: unchanged (kubectl replaces metadata.annotations with the same set).")
	} else {
		fmt.Fprintf(w, "Annotations: kubectl replaces metadata.annotations with revision %d's (keeping the deployment.kubernetes.io ones and last-applied-configuration):\n", u.Revision)
		for _, c := range u.Annotations {
			switch c.Op {
			case "drop":
				fmt.Fprintf(w, "  - drop    %s: %s\n", c.Key, strconv.Quote(c.From))
			case "change":
				fmt.Fprintf(w, "  ~ change  %s: %s -> %s\n", c.Key, strconv.Quote(c.From), strconv.Quote(c.To))
			default:
				fmt.Fprintf(w, "  + add     %s: %s\n", c.Key, strconv.Quote(c.To))
			}
		}
	}
	if u.LastApplied {
		fmt.Fprintln(w, "  = keep    kubectl.kubernetes.io/last-applied-configuration: the next 'kubectl apply' compares against the configuration from before the rollback (kubectl warns)")
	}
}

// patchSummary describes a patch in one line: type, operations or fields, size and guard.
func patchSummary(p *rollout.Patch) string {
	if p == nil {
		return "none"
	}
	var what string
	var ops []map[string]interface{}
	if json.Unmarshal(p.Kubectl, &ops) == nil && len(ops) > 0 {
		parts := make([]string, len(ops))
		for i, op := range ops {
			parts[i] = fmt.Sprintf("%v %v", op["op"], op["path"])
		}
		what = fmt.Sprintf("JSON patch (%s), %d bytes, as kubectl sends it", strings.Join(parts, ", "), len(p.Kubectl))
	} else {
		what = fmt.Sprintf("strategic merge patch %s, as kubectl sends it", p.Kubectl)
	}
	if p.Guarded != nil {
		what += fmt.Sprintf("; rollplan adds a precondition on resourceVersion %s", p.ResourceVersion)
	}
	return what
}

// PrintAction writes the human preview of a pause, resume or restart: the patch and the
// plan of what the controller does once it is applied.
func PrintAction(w io.Writer, a *rollout.Action, opts PlanOptions) error {
	fmt.Fprintf(w, "%-12s deployment.apps/%s\n", strings.ToUpper(string(a.Verb[:1]))+string(a.Verb[1:])+":", a.Name)
	fmt.Fprintf(w, "Patch:       %s\n", patchSummary(a.Patch))
	fmt.Fprintln(w)
	switch a.Verb {
	case rollout.VerbPause:
		if len(a.Plan.Steps) == 0 {
			fmt.Fprintln(w, "What the paused controller does right now: no ReplicaSet write (new pods assumed never to become available).")
		} else {
			fmt.Fprintf(w, "What the paused controller does right now: %d ReplicaSet write(s) (proportional scaling; new pods assumed never to become available):\n", len(a.Plan.Steps))
		}
	case rollout.VerbResume:
		fmt.Fprintln(w, "Rollout that resuming starts:")
	default:
		fmt.Fprintln(w, "Rollout that the restart starts:")
	}
	return PrintPlan(w, a.Plan, opts)
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

package printer

import (
	"fmt"
	"io"
	"strconv"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
)

// NewPlanFeasibility returns the `feasibility` field of a RolloutPlan for r; nil when r is
// nil or no check ran and none was left unchecked (--checks=none).
func NewPlanFeasibility(r *feasibility.Result) *v1alpha1.PlanFeasibility {
	if r == nil || (len(r.Checked) == 0 && len(r.Unchecked) == 0) {
		return nil
	}
	out := &v1alpha1.PlanFeasibility{Checked: append([]string{}, r.Checked...)}
	for _, u := range r.Unchecked {
		out.Unchecked = append(out.Unchecked, v1alpha1.PlanUnchecked{Check: u.Check, Reason: u.Reason})
	}
	if s := r.Stall; s != nil {
		out.Stall = &v1alpha1.PlanStall{Step: s.Step, Reason: s.Reason, Message: s.Message, Objects: append([]string(nil), s.Objects...)}
	}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, v1alpha1.PlanFinding{Check: f.Check, Step: f.Step, Severity: f.Severity, Message: f.Message, Object: f.Object})
	}
	return out
}

// PrintFeasibility writes, under a plan, the FINDINGS block (one row per finding: step, check,
// severity, object, message; step "-" for the plan as a whole), the checks left unchecked,
// and the outcome line "Stalled at step k: <reason>: <message>". It writes nothing when r is
// nil or has nothing to say, so a plan without findings prints as before.
func PrintFeasibility(w io.Writer, r *feasibility.Result) error {
	return printFeasibility(w, NewPlanFeasibility(r), stalledAt)
}

// stalledAt is a plan's outcome line of a feasibility stall (preview's): "Stalled at step k".
func stalledAt(step int) string { return fmt.Sprintf("Stalled at step %d", step) }

// willStall is status's line of a stall the checks predict on the remaining plan of a
// rollout in progress (whose steps number from the controller's next write): "Will stall
// before the next write: ..." (step 0), else "Will stall after step k of the remaining plan".
func willStall(step int) string {
	if step == 0 {
		return "Will stall before the next write"
	}
	return fmt.Sprintf("Will stall after step %d of the remaining plan", step)
}

// printFeasibility is PrintFeasibility of r, converted, with the stall's line format
// the stall's line led by stallLine(step) (then ": reason: message").
func printFeasibility(w io.Writer, r *v1alpha1.PlanFeasibility, stallLine func(int) string) error {
	if r == nil || (len(r.Findings) == 0 && len(r.Unchecked) == 0 && r.Stall == nil) {
		return nil
	}
	fmt.Fprintln(w)
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "FINDINGS")
		tw := printers.GetNewTabWriter(w)
		fmt.Fprintln(tw, "STEP\tCHECK\tSEVERITY\tOBJECT\tMESSAGE")
		for _, f := range r.Findings {
			step := "-"
			if f.Step > 0 {
				step = strconv.Itoa(f.Step)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", step, f.Check, f.Severity, dash(f.Object), f.Message)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, u := range r.Unchecked {
		fmt.Fprintf(w, "Unchecked: %s: %s\n", u.Check, u.Reason)
	}
	if s := r.Stall; s != nil {
		fmt.Fprintf(w, "%s: %s: %s\n", stallLine(s.Step), s.Reason, s.Message)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// FeasibilityColumn is the many-Deployment summary's column of the feasibility checks, added
// (Summary.ExtraColumns) when a plan has something to say.
const FeasibilityColumn = "FEASIBILITY"

// FeasibilityCell is a plan's FEASIBILITY cell: "Stalled@k:Reason" when the checks stall it,
// else "N findings" ("1 finding"), else "ok" when checks ran, "" (printed "-") without f.
func FeasibilityCell(f *v1alpha1.PlanFeasibility) string {
	switch {
	case f == nil:
		return ""
	case f.Stall != nil:
		return fmt.Sprintf("Stalled@%d:%s", f.Stall.Step, f.Stall.Reason)
	case len(f.Findings) == 1:
		return "1 finding"
	case len(f.Findings) > 1:
		return fmt.Sprintf("%d findings", len(f.Findings))
	}
	return "ok"
}

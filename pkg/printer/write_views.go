package printer

import (
	"io"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// UndoView prints what pipeline.UndoCommand shows: each preview on Out (PrintUndoPreview of
// MaxSteps rows), kubectl's warning and result lines on ErrOut, the patch alone as Output
// (json or yaml), and the batch's lines (BatchReport).
type UndoView struct {
	BatchReport
	Out      io.Writer
	Output   string
	MaxSteps int
}

var _ pipeline.UndoView = UndoView{}

// NoneSelected prints kubectl's "No resources found in NAMESPACE namespace." on ErrOut.
func (v BatchReport) NoneSelected(namespace string) { PrintNoneSelected(v.ErrOut, namespace) }

// LastApplied prints kubectl's last-applied-configuration warning on ErrOut.
func (v UndoView) LastApplied(name string) { PrintLastAppliedWarning(v.ErrOut, name) }

// Preview prints one rollback's preview on Out.
func (v UndoView) Preview(it *pipeline.UndoItem) error {
	return PrintUndoPreview(v.Out, it, v.MaxSteps)
}

// Patch prints kubectl's patch alone on Out, as Output.
func (v UndoView) Patch(u *rollout.Undo) error { return PrintPatch(v.Out, u.Patch.Kubectl, v.Output) }

// Result prints kubectl's result line on ErrOut, with DryRun's suffix when dryRun.
func (v UndoView) Result(name, message string, dryRun bool) error {
	if !dryRun {
		return PrintResult(v.ErrOut, name, message, cmdutil.DryRunNone)
	}
	return PrintResult(v.ErrOut, name, message, v.DryRun)
}

// ActionView prints what pipeline.ActionCommand shows: each preview on Out, human
// (PrintActionPreview of MaxSteps rows) or, with Output, one Deployment's RolloutPlan (Several
// unset) or several's RolloutPlanList (Plans); a held Deployment's hand-back (HandBack); and
// the batch's lines (BatchReport; its Result is ErrOut with Output).
type ActionView struct {
	BatchReport
	Out      io.Writer
	Output   *OutputFlags
	Several  bool
	MaxSteps int
}

var _ pipeline.ActionView = ActionView{}

// Preview prints one action's preview.
func (v ActionView) Preview(it *pipeline.ActionItem) error {
	if v.Output.Human() {
		return PrintActionPreview(v.Out, it, v.MaxSteps)
	}
	if v.Several {
		return nil
	}
	p, err := v.Output.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(NewActionPlan(it), v.Out)
}

// Plans prints the plans of several Deployments as one RolloutPlanList.
func (v ActionView) Plans(items []*pipeline.ActionItem) error {
	p, err := v.Output.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(NewActionPlanList(items), v.Out)
}

// HandBack prints the preview of a held Deployment's hand-back (driverun.ResumeHeld.Show).
func (v ActionView) HandBack(ref rollout.Object, hb *driverun.HandBack) error {
	return PrintHandBackPreview(v.Out, ref.Namespace, ref.Name, hb.Held, hb.After, hb.Plan, PlanOptions{MaxSteps: v.MaxSteps, ChartWidth: 30})
}

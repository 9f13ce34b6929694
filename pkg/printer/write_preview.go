package printer

import (
	"io"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// PrintUndoPreview prints one Deployment's previewed rollback on w: PrintUndo (outcome,
// template diff, annotations, the plan that follows in at most maxSteps rows, 0: all), the
// checks' feasibility section, and the notes (the server's dry run, the closing notes).
func PrintUndoPreview(w io.Writer, it *pipeline.UndoItem, maxSteps int) error {
	if err := PrintUndo(w, it.Undo, it.Plan, PlanOptions{MaxSteps: maxSteps, ChartWidth: 30}); err != nil {
		return err
	}
	if err := PrintFeasibility(w, it.Feasibility); err != nil {
		return err
	}
	PrintNotes(w, it.Notes...)
	return nil
}

// PrintActionPreview prints one Deployment's previewed pause, resume or restart on w:
// PrintAction (the patch and the plan in at most maxSteps rows, 0: all), the checks'
// feasibility section and the closing notes.
func PrintActionPreview(w io.Writer, it *pipeline.ActionItem, maxSteps int) error {
	if err := PrintAction(w, it.Action, PlanOptions{MaxSteps: maxSteps, ChartWidth: 30}); err != nil {
		return err
	}
	if err := PrintFeasibility(w, it.Feasibility); err != nil {
		return err
	}
	PrintNotes(w)
	return nil
}

// NewActionPlan is the RolloutPlan of a previewed action (-o), with the checks' feasibility
// section.
func NewActionPlan(it *pipeline.ActionItem) *v1alpha1.RolloutPlan {
	obj := NewRolloutPlan(it.Action.Plan, nil)
	obj.Feasibility = NewPlanFeasibility(it.Feasibility)
	return obj
}

// NewActionPlanList is the RolloutPlanList of several previewed actions (-o); items held by
// drive (no Action) are left out.
func NewActionPlanList(items []*pipeline.ActionItem) *v1alpha1.RolloutPlanList {
	var plans []*v1alpha1.RolloutPlan
	for _, it := range items {
		if it.Action != nil {
			plans = append(plans, NewActionPlan(it))
		}
	}
	return NewRolloutPlanList(plans)
}

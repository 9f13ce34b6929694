package printer

import (
	"io"

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

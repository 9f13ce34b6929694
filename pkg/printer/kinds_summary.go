package printer

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// PrintKindSummary writes the table printed first when preview plans several StatefulSets
// or DaemonSets: NAMESPACE, WORKLOAD (kind/name, kubectl's lower-case resource form), UPDATE
// REVISION (number and name), POD OPERATIONS, SYNCS and OUTCOME ("Error: MESSAGE" for a
// row without plan); a CONTEXT column first when withContext; FEASIBILITY last when a plan's
// checks have something to say (FeasibilityCell).
func PrintKindSummary(w io.Writer, rows []pipeline.KindRow, withContext bool) error {
	tw := printers.GetNewTabWriter(w)
	head := []string{"NAMESPACE", "WORKLOAD", "UPDATE REVISION", "POD OPERATIONS", "SYNCS", "OUTCOME"}
	feas := slices.ContainsFunc(rows, func(r pipeline.KindRow) bool { return r.Plan != nil && r.Plan.Feasibility != nil })
	if feas {
		head = append(head, FeasibilityColumn)
	}
	if withContext {
		head = append([]string{"CONTEXT"}, head...)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cells := []string{r.Workload.Namespace, strings.ToLower(r.Workload.Kind) + "/" + r.Workload.Name}
		if r.Plan != nil {
			cells = append(cells, fmt.Sprintf("%d (%s)", r.Plan.UpdateRevisionNumber, r.Plan.UpdateRevision),
				fmt.Sprint(len(r.Plan.PodOperations)), fmt.Sprint(r.Plan.Syncs), r.Plan.Outcome)
		} else {
			msg := "-"
			if r.Err != nil {
				msg = "Error: " + oneLine(r.Err.Error())
			}
			cells = append(cells, "-", "-", "-", msg)
		}
		if feas {
			cell := "-"
			if r.Plan != nil {
				if c := FeasibilityCell(NewPlanFeasibility(r.Plan.Feasibility)); c != "" {
					cell = c
				}
			}
			cells = append(cells, cell)
		}
		if withContext {
			ctx := r.Context
			if ctx == "" {
				ctx = "-"
			}
			cells = append([]string{ctx}, cells...)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	fmt.Fprintln(tw)
	return tw.Flush()
}

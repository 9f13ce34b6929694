package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// PrintSetKinds writes a manifest set's StatefulSets' and DaemonSets' rows after its
// Deployments: a blank line, the summary table (PrintKindSummary, CONTEXT column
// withContext), then each plan unless summaryOnly (--summary). Nothing without rows.
// Errors: the writer's.
func PrintSetKinds(w io.Writer, rows []pipeline.KindRow, withContext, summaryOnly bool) error {
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	if err := PrintKindSummary(w, rows, withContext); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Plan != nil && !summaryOnly {
			if withContext {
				fmt.Fprintf(w, "context %s: ", r.Context)
			}
			PrintKindPlan(w, r.Plan)
		}
	}
	return nil
}

// NewSetKindPlans returns the RolloutPlans of a manifest set's StatefulSets and DaemonSets
// that have a plan: each with its manifest's source (sources[i] is rows[i]'s file) and
// context. readiness is --readiness.
func NewSetKindPlans(rows []pipeline.KindRow, sources []string, readiness string) []*v1alpha1.RolloutPlan {
	var out []*v1alpha1.RolloutPlan
	for i, r := range rows {
		if r.Plan != nil {
			p := NewKindRolloutPlan(r.Plan, readiness)
			p.Manifest = &v1alpha1.PlanManifest{Source: sources[i]}
			p.Context = r.Context
			out = append(out, p)
		}
	}
	return out
}

// PrintSetKindErrors writes to w an "error: KIND/NAME (namespace NS, [context C, ]SOURCE):
// ERR" line for each row that could not be planned (sources[i] is rows[i]'s file) and
// returns their count.
func PrintSetKindErrors(w io.Writer, rows []pipeline.KindRow, sources []string) int {
	failed := 0
	for i, r := range rows {
		if r.Err != nil {
			where := sources[i]
			if r.Context != "" {
				where = "context " + r.Context + ", " + where
			}
			fmt.Fprintf(w, "error: %s/%s (namespace %s, %s): %v\n", strings.ToLower(r.Workload.Kind), r.Workload.Name, r.Workload.Namespace, where, r.Err)
			failed++
		}
	}
	return failed
}

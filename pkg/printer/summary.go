package printer

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

// SummaryColumns are the standard columns of the summary table, in order.
var SummaryColumns = []string{"NAMESPACE", "DEPLOYMENT", "CHANGE", "NEW REPLICASET", "WRITES", "PEAK PODS", "MIN AVAILABLE", "OUTCOME"}

// Summary is the table printed first when a command plans many Deployments (preview -l,
// --all, -A, several names, a manifest set; reload's config restarts): one row per
// Deployment, in the order of Rows.
type Summary struct {
	// ExtraColumns are headers printed after SummaryColumns; each row gives its values in
	// SummaryRow.Extra, in the same order ("" prints "-").
	ExtraColumns []string
	Rows         []SummaryRow
	// WithContext adds a CONTEXT column first (a preview across several kubeconfig
	// contexts); each row gives its SummaryRow.Context.
	WithContext bool
}

// SummaryRow is one Deployment of a Summary: its plan, or the error that kept it from one.
type SummaryRow struct {
	// Context is the row's kubeconfig context (shown when Summary.WithContext).
	Context         string
	Namespace, Name string
	// Change says what the plan previews, in a few words ("image web=nginx:1.27", "rollout in
	// flight", "none"); "" prints "-".
	Change string
	// Plan is the Deployment's plan (nil when Err is set, or when nothing is planned for it,
	// as for a Deployment reload leaves alone: the plan's columns then show "-").
	Plan *v1alpha1.RolloutPlan
	// Err is why the Deployment has no plan: the row shows "-" in the plan's columns and
	// "Error: MESSAGE" (its first line) as OUTCOME.
	Err error
	// Extra are the values of Summary.ExtraColumns.
	Extra []string
}

// PlanFigures are the numbers a summary row shows of one plan.
type PlanFigures struct {
	// Writes is the number of ReplicaSet writes (steps).
	Writes int
	// PeakPods is the largest number of pods (the sum of every ReplicaSet's replicas) before
	// or after any step; MinAvailable the smallest number of available pods.
	PeakPods, MinAvailable int32
}

// Figures returns p's PlanFigures: the start (the ReplicaSets' initialReplicas and
// initialAvailable) and every step's total and available count.
func Figures(p *v1alpha1.RolloutPlan) PlanFigures {
	var f PlanFigures
	for _, rs := range p.ReplicaSets {
		f.PeakPods += rs.InitialReplicas
		f.MinAvailable += rs.InitialAvailable
	}
	f.Writes = len(p.Steps)
	for _, st := range p.Steps {
		f.PeakPods = max(f.PeakPods, st.Total)
		f.MinAvailable = min(f.MinAvailable, st.Available)
	}
	return f
}

// PrintSummary writes s as a table (kubectl's tab writer, the columns of SummaryColumns then
// s.ExtraColumns). Errors: the writer's.
func PrintSummary(w io.Writer, s Summary) error {
	tw := printers.GetNewTabWriter(w)
	var header []string
	if s.WithContext {
		header = append(header, "CONTEXT")
	}
	header = append(append(header, SummaryColumns...), s.ExtraColumns...)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range s.Rows {
		var cells []string
		if s.WithContext {
			cells = append(cells, r.Context)
		}
		cells = append(append(cells, summaryCells(r)...), r.Extra...)
		for len(cells) < len(header) {
			cells = append(cells, "")
		}
		for i, c := range cells {
			if c == "" {
				cells[i] = "-"
			}
		}
		fmt.Fprintln(tw, strings.Join(cells[:len(header)], "\t"))
	}
	return tw.Flush()
}

// summaryCells returns the SummaryColumns cells of r.
func summaryCells(r SummaryRow) []string {
	cells := []string{r.Namespace, r.Name, oneLine(r.Change)}
	if r.Err == nil && r.Plan == nil {
		return append(cells, "", "", "", "", "")
	}
	if r.Err != nil || r.Plan == nil {
		msg := "no plan"
		if r.Err != nil {
			msg = r.Err.Error()
		}
		return append(cells, "", "", "", "", "Error: "+oneLine(msg))
	}
	p, f := r.Plan, Figures(r.Plan)
	newRS := fmt.Sprintf("%s (%d)", p.NewReplicaSet.Name, p.NewReplicaSet.Revision)
	return append(cells, newRS, fmt.Sprint(f.Writes), fmt.Sprint(f.PeakPods), fmt.Sprint(f.MinAvailable), p.Outcome)
}

// oneLine keeps the first line of s, so that a cell never breaks the table.
func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return strings.ReplaceAll(first, "\t", " ")
}

// NewRolloutPlanList returns the list object of many plans (kind RolloutPlanList), holding
// the plans in the given order. A command that planned one Deployment prints its
// RolloutPlan instead.
func NewRolloutPlanList(plans []*v1alpha1.RolloutPlan) *v1alpha1.RolloutPlanList {
	l := &v1alpha1.RolloutPlanList{Items: make([]v1alpha1.RolloutPlan, 0, len(plans))}
	l.APIVersion, l.Kind = v1alpha1.SchemeGroupVersion.String(), "RolloutPlanList"
	for _, p := range plans {
		l.Items = append(l.Items, *p)
	}
	return l
}

package printer

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// PlanOptions tunes the human rendering of a plan.
type PlanOptions struct {
	// MaxSteps bounds the rows of the step table: the first and last steps are shown and the
	// middle is elided. 0 shows every step.
	MaxSteps int
	// ChartWidth is the width, in characters, of the per-step pod bar; 0 hides it.
	ChartWidth int
	// Warnings are printed under the header.
	Warnings []string
	// Estimate is where a timed plan's ready times come from (said in the header); nil for
	// the other models.
	Estimate *estimate.Estimate
	// Context is the kubeconfig context of the plan, printed first in the header when a
	// preview spans several contexts ("" prints nothing).
	Context string
}

// PrintPlan writes the human form of p: a header, the step table with a pod bar per step
// (█ new pods, ░ old pods), the outcome and the cleanup forecast.
func PrintPlan(w io.Writer, p *planner.Plan, opts PlanOptions) error {
	printHeader(w, p, opts)
	if len(p.Steps) > 0 {
		fmt.Fprintln(w)
		if err := printSteps(w, p, opts); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	printOutcome(w, p)
	return nil
}

func printHeader(w io.Writer, p *planner.Plan, opts PlanOptions) {
	if opts.Context != "" {
		fmt.Fprintf(w, "Context:        %s\n", opts.Context)
	}
	fmt.Fprintf(w, "Deployment:     %s/%s, %d replicas%s\n", p.Namespace, p.Name, p.Replicas, pausedNote(p))
	fmt.Fprintf(w, "Strategy:       %s\n", strategyLine(p))
	fmt.Fprintf(w, "New ReplicaSet: %s (revision %d), %s\n", p.NewReplicaSet.Name, p.NewReplicaSet.Revision, newRSNote(p))
	fmt.Fprintf(w, "Readiness:      %s (%s)\n", p.Readiness, readinessNote(p, opts.Estimate))
	if p.Readiness == planner.ReadinessTimed && opts.Estimate != nil {
		fmt.Fprintf(w, "Latency:        %s\n", LatencyNote(opts.Estimate.Latency))
	}
	for _, warning := range opts.Warnings {
		fmt.Fprintf(w, "Warning:        %s\n", warning)
	}
}

func pausedNote(p *planner.Plan) string {
	if p.Paused {
		return ", paused"
	}
	return ""
}

func strategyLine(p *planner.Plan) string {
	if p.Strategy.Type != "RollingUpdate" {
		return fmt.Sprintf("%s (every old pod goes before any new pod starts)", p.Strategy.Type)
	}
	return fmt.Sprintf("RollingUpdate, maxSurge %s (%s), maxUnavailable %s (%s): at most %d pods, at least %d available",
		p.Strategy.MaxSurgeSpec, plural(int(p.Strategy.MaxSurge), "pod"), p.Strategy.MaxUnavailableSpec, plural(int(p.Strategy.MaxUnavailable), "pod"),
		p.Replicas+p.Strategy.MaxSurge, p.Replicas-p.Strategy.MaxUnavailable)
}

func newRSNote(p *planner.Plan) string {
	n := p.NewReplicaSet
	switch {
	case n.Reused:
		return fmt.Sprintf("reused: revision %d's template comes back (a rollback); its revision becomes %d", n.PreviousRevision, n.Revision)
	case n.Exists:
		return "exists already (it matches the template)"
	case n.Created:
		return "created by this rollout"
	}
	return "not created while the Deployment is paused"
}

func readinessNote(p *planner.Plan, e *estimate.Estimate) string {
	switch p.Readiness {
	case planner.ReadinessTimed:
		return timedNote(p, e)
	case planner.ReadinessInstant:
		return "assumed: every pod is available before the controller's next sync"
	case planner.ReadinessNever:
		return "assumed: new pods never become available"
	}
	return "assumed: pods become available once the controller stops writing"
}

// printSteps writes the step table with one column of replicas per ReplicaSet.
func printSteps(w io.Writer, p *planner.Plan, opts PlanOptions) error {
	tw := printers.GetNewTabWriter(w)
	timed := p.Readiness == planner.ReadinessTimed
	header := []string{"STEP"}
	if timed {
		header = append(header, "TIME")
	}
	header = append(header, "REPLICASET", "CHANGE")
	for _, rs := range p.ReplicaSets {
		header = append(header, columnName(rs))
	}
	header = append(header, "TOTAL", "AVAILABLE", "WAIT")
	if opts.ChartWidth > 0 {
		header = append(header, "PODS")
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	scale := chartScale(p, opts.ChartWidth)
	row := func(i int) {
		st := p.Steps[i]
		change := fmt.Sprintf("%d -> %d", st.From, st.To)
		if st.Create {
			change += " (create)"
		}
		cells := []string{fmt.Sprint(i + 1)}
		if timed {
			cells = append(cells, formatOffset(st.At))
		}
		cells = append(cells, p.ReplicaSets[st.ReplicaSet].Name, change)
		for _, r := range st.Replicas {
			cells = append(cells, fmt.Sprint(r))
		}
		cells = append(cells, fmt.Sprint(st.Total), fmt.Sprint(st.Available), waitNote(st.Wait))
		if opts.ChartWidth > 0 {
			cells = append(cells, bar(p, st.Replicas, scale))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	n := len(p.Steps)
	elided := 0
	if opts.MaxSteps <= 0 || n <= opts.MaxSteps+1 {
		for i := range n {
			row(i)
		}
	} else {
		head := opts.MaxSteps * 2 / 3
		tail := opts.MaxSteps - head
		for i := range head {
			row(i)
		}
		// Every cell of the elision row holds "...", so the columns stay aligned.
		fmt.Fprintln(tw, strings.TrimSuffix(strings.Repeat("...\t", len(header)), "\t"))
		for i := n - tail; i < n; i++ {
			row(i)
		}
		elided = n - head - tail
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if elided > 0 {
		fmt.Fprintf(w, "(%d of %d steps not shown; --max-steps=0 shows all)\n", elided, n)
	}
	return nil
}

// columnName labels a ReplicaSet's column by revision: "REV3" or "REV4(NEW)".
func columnName(rs planner.ReplicaSetInfo) string {
	name := fmt.Sprintf("REV%d", rs.Revision)
	if rs.New {
		name += "(NEW)"
	}
	return name
}

func waitNote(w planner.Wait) string {
	switch w {
	case planner.WaitPodsAvailable:
		return "pods available"
	case planner.WaitOldPodsTerminated:
		return "old pods gone"
	}
	return "-"
}

// chartScale returns pods per character so that the largest total fits width.
func chartScale(p *planner.Plan, width int) float64 {
	if width <= 0 {
		return 0
	}
	var most int32 = 1
	for _, st := range p.Steps {
		most = max(most, st.Total)
	}
	return max(1, float64(most)/float64(width))
}

func bar(p *planner.Plan, replicas []int32, scale float64) string {
	var newPods, oldPods int32
	for i, r := range replicas {
		if p.ReplicaSets[i].New {
			newPods += r
		} else {
			oldPods += r
		}
	}
	cells := func(n int32) int {
		if n == 0 {
			return 0
		}
		return max(1, int(float64(n)/scale+0.5))
	}
	return strings.Repeat("█", cells(newPods)) + strings.Repeat("░", cells(oldPods))
}

func printOutcome(w io.Writer, p *planner.Plan) {
	waits := 0
	for _, st := range p.Steps {
		if st.Wait != planner.WaitNone {
			waits++
		}
	}
	switch p.Outcome {
	case planner.OutcomeNoChange:
		fmt.Fprintln(w, "Outcome: NoChange: the controller makes no ReplicaSet write; the Deployment is complete as it is.")
	case planner.OutcomeComplete:
		fmt.Fprintf(w, "Outcome: Complete after %s in %d controller syncs, %d of them after a wait.\n", plural(len(p.Steps), "write"), p.Syncs, waits)
	case planner.OutcomePaused:
		fmt.Fprintf(w, "Outcome: Paused: the paused controller makes %s; a template change rolls out only after 'kubectl rollplan resume'.\n", plural(len(p.Steps), "write"))
	case planner.OutcomeStalled:
		fmt.Fprintf(w, "Outcome: Stalled after %s: %s.\n", plural(len(p.Steps), "write"), p.StalledReason)
	}
	fmt.Fprintf(w, "Final:  ")
	for i, rs := range p.ReplicaSets {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s %d/%d available", rs.Name, p.FinalAvailable[i], p.Final[i])
	}
	fmt.Fprintln(w)
	if p.Readiness == planner.ReadinessTimed {
		printETA(w, p)
	}
	printCleanup(w, p)
}

func printCleanup(w io.Writer, p *planner.Plan) {
	limit := "unset (all kept)"
	if p.RevisionHistoryLimit != nil {
		limit = fmt.Sprint(*p.RevisionHistoryLimit)
	}
	if len(p.Cleanup) == 0 {
		fmt.Fprintf(w, "Cleanup: none (revisionHistoryLimit %s)\n", limit)
		return
	}
	when := "when the rollout completes"
	if p.Paused {
		when = "at the paused controller's next sync"
	}
	fmt.Fprintf(w, "Cleanup: revisionHistoryLimit %s deletes %s %s:\n", limit, plural(len(p.Cleanup), "old ReplicaSet"), when)
	for _, c := range p.Cleanup {
		note := ""
		if c.RollbackTarget {
			note = "  <- the rollback target of 'kubectl rollout undo': raise revisionHistoryLimit to keep it"
		}
		fmt.Fprintf(w, "  - %s (revision %d)%s\n", c.Name, c.Revision, note)
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

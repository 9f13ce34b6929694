package printer

import (
	"fmt"
	"io"
	"time"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// PrintHistoryResult prints one Deployment's history as `kubectl rollplan history` does: with
// p (-o; nil for the human form) its RolloutHistory (only revision when revision > 0); with
// diff the unified diff of r.From and r.To (PrintTemplateDiff); with revision > 0 that
// revision's pod template (PrintRevision); else the table of revisions (PrintHistory, AGE
// from now). Errors: the writer's or p's.
func PrintHistoryResult(w io.Writer, p printers.ResourcePrinter, r pipeline.HistoryResult, revision int64, diff bool, now time.Time) error {
	switch {
	case diff:
		return PrintTemplateDiff(w, r.From.Label, r.To.Label, rollout.UnifiedDiff(r.From.Label, r.To.Label, r.From.YAML, r.To.YAML))
	case p != nil:
		return p.PrintObj(NewRolloutHistory(r.History, revision), w)
	case revision > 0:
		return PrintRevision(w, r.History, revision)
	default:
		return PrintHistory(w, r.History, now)
	}
}

// PrintFleetHistory prints the history of many Deployments (pipeline.HistoryFleet or
// HistoryContexts): human (p nil), one section per Deployment (PrintHistories, headed
// "Context: NAME" across contexts); then none (NoneFound's line) on errOut when nothing was
// selected and no context failed; with p, one v1 List of RolloutHistory (NewHistoryList, items
// carrying their context). Then on errOut one line per context that could not be read
// (PrintContextFailure) and per Deployment that could not be (PrintFailure, naming its
// namespace when withNamespace, and its context). It returns the names of the failed
// Deployments (DeploymentName, " (context NAME)" across contexts) and the number of failed
// contexts. Errors: the writers' or p's.
func PrintFleetHistory(out, errOut io.Writer, p printers.ResourcePrinter, r pipeline.FleetHistory, now time.Time, withNamespace bool, none string) (failed []string, failedContexts int, err error) {
	contexts := r.Contexts != nil
	if p == nil {
		if err := PrintHistories(out, r.Histories, now, contexts); err != nil {
			return nil, 0, err
		}
	}
	for _, err := range r.ContextErrs {
		if err != nil {
			failedContexts++
		}
	}
	if len(r.Histories)+len(r.Failed) == 0 && failedContexts == 0 {
		fmt.Fprintln(errOut, none)
	}
	if p != nil {
		l, err := NewHistoryList(r.Histories, contexts)
		if err != nil {
			return nil, 0, err
		}
		if err := p.PrintObj(l, out); err != nil {
			return nil, 0, err
		}
	}
	for i, err := range r.ContextErrs {
		if err != nil {
			PrintContextFailure(errOut, r.Contexts[i], err)
		}
	}
	for _, m := range r.Failed {
		f, name := Failure{Namespace: m.Namespace, Name: m.Name, WithNamespace: withNamespace, Err: m.Err}, DeploymentName(m.Namespace, m.Name, withNamespace)
		if contexts {
			f.Source, name = "context "+m.Source, name+" (context "+m.Source+")"
		}
		PrintFailure(errOut, f)
		failed = append(failed, name)
	}
	return failed, failedContexts, nil
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// validateFleet checks the flags of a preview over many Deployments (pure).
func (o *PreviewOptions) validateFleet() error {
	if o.Summary && !o.Output.Human() {
		return errors.New("--summary prints the human table: drop -o")
	}
	if o.manifests() && (o.Fleet.many() || o.Fleet.Select.Selector != "" || o.Fleet.Select.All || o.Fleet.Select.AllNamespaces) {
		return errors.New("-f/-k give the Deployments of a manifest set: they do not go with several names, -l, --all or -A; name one Deployment of the set, or none to plan them all")
	}
	if !o.Fleet.many() {
		return nil
	}
	if o.Fleet.Selection.AllNamespaces && o.Change.Any() {
		return errors.New("-A/--all-namespaces previews the rollouts in flight: drop the change flag, or give the namespace with -n")
	}
	return nil
}

// runFleet previews every selected Deployment (pipeline.Preview.PlanMany): the change flags
// applied to each (as `kubectl set image -l` does), else the rest of its rollout. Human: the
// summary table, then each plan in full (--summary: the table only); -o: a RolloutPlanList
// (printer.PreviewView.PrintFleet). Failed Deployments are named on stderr, the others still
// printed; the exit is fleetExit's.
func (o *PreviewOptions) runFleet(ctx context.Context) error {
	client := o.Client
	if client == nil {
		client = o.Fleet.Client // the reads, dry runs and pod LISTs of every Deployment: one clientset
	}
	sel, err := o.selection()
	if err != nil {
		return err
	}
	rs, err := o.preview().PlanMany(ctx, client, sel)
	if err != nil {
		return err
	}
	results := printer.PreviewPlans(rs)
	if len(results) == 0 {
		fmt.Fprintln(o.ErrOut, noneFound(o.Fleet.Selection.Scope().Namespace))
	}
	failed, stalled := printer.Tally(results)
	if err := o.view().PrintFleet(o.Out, results, false); err != nil {
		return err
	}
	return fleetExit(o.Fleet.failures(o.ErrOut, failed), stalled, o.FailOnStall)
}

// selection is the pipeline's Selection of the flags: the LIST of -l/--all/-A, or the names.
// Errors: Selection.Resolve's (names ask nothing).
func (o *PreviewOptions) selection() (pipeline.Selection, error) {
	sel := o.Fleet.Selection
	ps := pipeline.Selection{Bulk: sel.Bulk(), Scope: sel.Scope(), ExplicitNamespace: sel.EnforceNamespace}
	if ps.Bulk {
		return ps, nil
	}
	var err error
	ps.Refs, err = sel.Resolve(context.Background()) // names: no request
	return ps, err
}

// noneFound is kubectl's line for an empty selection (printer.NoneFound).
func noneFound(namespace string) string { return printer.NoneFound(namespace) }

// changeWords is the change flags in a few words, "" without one (printer.ChangeCell).
func (o *PreviewOptions) changeWords() string {
	c := &o.Change
	var w []string
	if c.Filename != "" {
		w = append(w, "manifest "+c.Filename)
	}
	if len(c.Images) > 0 {
		w = append(w, "image "+strings.Join(c.Images, " "))
	}
	if c.replicasSet {
		w = append(w, fmt.Sprintf("replicas %d", c.Replicas))
	}
	if c.toRevisionSet {
		w = append(w, fmt.Sprintf("undo to revision %d", c.ToRevision))
	}
	if c.Restart {
		w = append(w, "restart")
	}
	return strings.Join(w, ", ")
}

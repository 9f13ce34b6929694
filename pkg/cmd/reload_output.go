package cmd

import (
	"errors"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// newReloadOutputFlags is reload's -o: json, yaml, jsonpath, go-template of a RolloutPlanList.
func newReloadOutputFlags() *printer.OutputFlags {
	f := printer.NewOutputFlags()
	f.HumanForm = "the table of Deployments, then each restart's plan"
	return f
}

// errOutputNeedsYes refuses -o without --yes or --dry-run: the plans are on stdout, a
// question would be mixed into them, so reload does not ask.
var errOutputNeedsYes = errors.New("-o prints the plans on standard output, so reload does not ask for confirmation: pass --yes to write, or --dry-run=client to only look")

// validateOutput checks -o: a known format, and --yes or --dry-run with it (one context).
func (o *ReloadOptions) validateOutput() error {
	if o.Output.Human() {
		return nil
	}
	if _, err := o.Output.ToPrinter(); err != nil {
		return err
	}
	if !o.Yes && o.DryRun == cmdutil.DryRunNone && !o.Contexts.many() { // several contexts never ask
		return errOutputNeedsYes
	}
	return nil
}

// printAssessment prints the assessment a of c: the human table and plans, or with -o one
// RolloutPlanList (every target an item, in order: the restart's plan, or the Deployment as
// it stands, with its config section; then each StatefulSet and DaemonSet, naming its
// workload).
//
// StatefulSets and DaemonSets (kinds) follow in the human form as their own table; when
// some are selected and no Deployment is, the Deployments' "No Deployments selected" line
// is left out.
func (o *ReloadOptions) printAssessment(c *reloadoneshot.Config, a *reloadoneshot.Assessment) error {
	if o.Output.Human() {
		if len(a.Targets) > 0 || len(a.Kinds) == 0 {
			if err := printer.PrintReload(o.Out, a.Targets, printer.PlanOptions{MaxSteps: o.MaxSteps, ChartWidth: 30}); err != nil {
				return err
			}
		}
		return printer.PrintReloadKinds(o.Out, a.Kinds, len(a.Targets) > 0)
	}
	plans, err := c.OutputPlans(a.Targets)
	if err != nil {
		return err
	}
	p, err := o.Output.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(printer.NewReloadPlanListWithKinds(a.Targets, plans, a.Kinds), o.Out)
}

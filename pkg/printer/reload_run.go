package printer

import (
	"context"
	"errors"
	"fmt"
	"io"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// ReloadRun renders one run of `kubectl rollplan reload` as reloadoneshot.Config.Run and
// RunContexts drive it (it is their reloadoneshot.Report): the table and each restart's plan
// on Out, or with -o one RolloutPlanList there and the result lines on ErrOut; progress,
// questions and refusals on ErrOut.
type ReloadRun struct {
	Out, ErrOut io.Writer
	// Output is -o (Human: the table and plans); MaxSteps is --max-steps; DryRun gives the
	// result lines' suffix.
	Output   *OutputFlags
	MaxSteps int
	DryRun   cmdutil.DryRunStrategy
	// Yes is --yes (never ask); Adopt is --adopt (the question's verb).
	Yes, Adopt bool
	// Terminal says whether stdin and stderr are a terminal; Ask asks a y/N question there
	// (the command's prompt) and reports a yes.
	Terminal func() bool
	Ask      func(question string) bool
}

var _ reloadoneshot.Report = (*ReloadRun)(nil)

// NewReloadOutputFlags is reload's -o: json, yaml, jsonpath, go-template of a
// RolloutPlanList; without it, the table of Deployments, then each restart's plan.
func NewReloadOutputFlags() *OutputFlags {
	f := NewOutputFlags()
	f.HumanForm = "the table of Deployments, then each restart's plan"
	return f
}

// planOptions are the options of each restart's plan: --max-steps rows, a 30-column chart.
func (r *ReloadRun) planOptions() PlanOptions {
	return PlanOptions{MaxSteps: r.MaxSteps, ChartWidth: 30}
}

// result is where the result lines go: with -o, stdout holds the RolloutPlanList alone, so
// they go to stderr.
func (r *ReloadRun) result() io.Writer {
	if r.Output.Human() {
		return r.Out
	}
	return r.ErrOut
}

// Assessed prints the assessment a of c: the human table and plans, or with -o one
// RolloutPlanList (every target an item, in order: the restart's plan, or the Deployment as
// it stands, with its config section; then each StatefulSet and DaemonSet, naming its
// workload).
//
// StatefulSets and DaemonSets (kinds) follow in the human form as their own table; when
// some are selected and no Deployment is, the Deployments' "No Deployments selected" line
// is left out. Errors: the planner's (c.OutputPlans), -o's printer's, Out's.
func (r *ReloadRun) Assessed(c *reloadoneshot.Config, a *reloadoneshot.Assessment) error {
	if r.Output.Human() {
		if len(a.Targets) > 0 || len(a.Kinds) == 0 {
			if err := PrintReload(r.Out, a.Targets, r.planOptions()); err != nil {
				return err
			}
		}
		return PrintReloadKinds(r.Out, a.Kinds, len(a.Targets) > 0)
	}
	plans, err := c.OutputPlans(a.Targets)
	if err != nil {
		return err
	}
	p, err := r.Output.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(NewReloadPlanListWithKinds(a.Targets, plans, a.Kinds), r.Out)
}

// Nothing writes "Nothing to restart." after an empty line.
func (r *ReloadRun) Nothing() { fmt.Fprintln(r.result(), "\nNothing to restart.") }

// Confirm asks once for all n writes on a terminal ("restart 2 deployment(s)? [y/N]: ";
// --adopt: "record the checksums of"; kinds: "workload(s)"); with Yes it does not ask.
// Errors: no terminal to ask on (pass --yes).
func (r *ReloadRun) Confirm(n int, kinds bool) (bool, error) {
	if r.Yes {
		return true, nil
	}
	if !r.Terminal() {
		return false, errors.New("standard input is not a terminal, so reload cannot ask for confirmation: pass --yes to write without asking (or --dry-run=client to only look)")
	}
	verb := "restart"
	if r.Adopt {
		verb = "record the checksums of"
	}
	noun := "deployment(s)"
	if kinds {
		noun = "workload(s)"
	}
	return r.Ask(fmt.Sprintf("\n%s %d %s? [y/N]: ", verb, n, noun)), nil
}

// Declined writes "Not confirmed: nothing was written." on ErrOut.
func (r *ReloadRun) Declined() { fmt.Fprintln(r.ErrOut, "Not confirmed: nothing was written.") }

// Restarted writes an empty line, then the Deployments' result lines (PrintReloadResults).
func (r *ReloadRun) Restarted(results []reloadoneshot.Result) {
	fmt.Fprintln(r.result())
	PrintReloadResults(r.result(), results, DryRunSuffix(r.DryRun))
}

// KindsWritten writes the StatefulSets' and DaemonSets' result lines (PrintReloadKindResults).
func (r *ReloadRun) KindsWritten(results []reloadoneshot.KindResult) {
	PrintReloadKindResults(r.result(), results, DryRunSuffix(r.DryRun))
}

// Contexts prints the targets of every context of res: the human table (CONTEXT first) and
// plans naming their context, then, if any would be written, that nothing was; or with -o
// one RolloutPlanList whose items carry their context (plans of c). Then one line per
// context that could not be read, on ErrOut ("error: context NAME: REASON"). Errors: the
// planner's, -o's printer's, Out's.
func (r *ReloadRun) Contexts(c *reloadoneshot.Config, res *reloadoneshot.Contexts) error {
	if err := r.contextsTargets(c, res); err != nil {
		return err
	}
	for i, name := range res.Failed {
		PrintContextFailure(r.ErrOut, name, res.Errs[i])
	}
	return nil
}

func (r *ReloadRun) contextsTargets(c *reloadoneshot.Config, res *reloadoneshot.Contexts) error {
	if r.Output.Human() {
		if err := PrintReloadContexts(r.Out, res.Targets, res.Contexts, r.planOptions()); err != nil {
			return err
		}
		if reloadoneshot.CountWrites(res.Targets) > 0 {
			fmt.Fprintf(r.Out, "\nNothing was written: across %d contexts reload only shows its restarts; run it with --yes once per context (--context).\n", len(res.Names))
		}
		return nil
	}
	plans, err := c.OutputPlans(res.Targets)
	if err != nil {
		return err
	}
	list := NewReloadPlanList(res.Targets, plans)
	for i := range list.Items {
		list.Items[i].Context = res.Contexts[i]
	}
	p, err := r.Output.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(list, r.Out)
}

// DriveWalk is driverun.Restart's walk of reload --drive: per restart, drive's progress
// lines on ErrOut (one live line on a terminal) and step, asking before each step, unless
// Yes (then nothing is asked). Errors: no terminal to ask on without Yes.
func (r *ReloadRun) DriveWalk(step func(context.Context, drive.StepInfo) (drive.Answer, error)) func() (func(drive.Event), func(context.Context, drive.StepInfo) (drive.Answer, error), error) {
	return func() (func(drive.Event), func(context.Context, drive.StepInfo) (drive.Answer, error), error) {
		progress := NewDriveProgress(r.ErrOut, r.Terminal()).Event
		if r.Yes {
			return progress, nil, nil
		}
		if !r.Terminal() {
			return nil, nil, errors.New("standard input is not a terminal, so drive cannot ask before each step: pass --yes")
		}
		return progress, step, nil
	}
}

// DrivePrepared prints a --drive restart's plan before its first step, on ErrOut
// (PrintDrivePrepared).
func (r *ReloadRun) DrivePrepared(namespace, name string, p *drive.Prepared) error {
	return PrintDrivePrepared(r.ErrOut, namespace, name, p)
}

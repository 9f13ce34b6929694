package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// ChangeConfigRestart marks, in PlanManifest.Change, the plan of a live Deployment that a
// manifest set's ConfigMaps or Secrets would restart (not one of the set's Deployments).
const ChangeConfigRestart = "ConfigRestart"

// SetRestartPlans is each kept restart's RolloutPlan of sp (none for nil), its Manifest
// marked Change ConfigRestart with Source the files of the objects of which its pods would
// see a changed key, and its Config section as `reload -o` gives it (NewReloadPlan). A
// refused restart (no plan: nothing would be written) has none.
func SetRestartPlans(sp *reloadoneshot.SetPreview) []*v1alpha1.RolloutPlan {
	if sp == nil {
		return nil
	}
	var out []*v1alpha1.RolloutPlan
	for _, t := range sp.Preview.Targets {
		if t.Plan == nil {
			continue // refused: nothing would be written
		}
		var files []string
		for i, c := range sp.Preview.Changes {
			if _, changed := reload.ChangesFor(t.State.Deployment, c.Before, c.After); changed && c.Key.Namespace == t.State.Deployment.Namespace {
				files = appendUnique(files, sp.Sources[i])
			}
		}
		p := NewReloadPlan(t, t.Plan)
		p.Manifest = &v1alpha1.PlanManifest{Source: strings.Join(files, ","), Change: ChangeConfigRestart}
		out = append(out, p)
	}
	return out
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// SetKinds is what a manifest set's StatefulSets and DaemonSets add to its output: their
// RolloutPlans (-o), whether they have rows, and the printing of their table and plans.
type SetKinds struct {
	Plans      []*v1alpha1.RolloutPlan
	Rows       int
	PrintKinds func() error
}

// print writes the kinds' section (none without PrintKinds).
func (k SetKinds) print() error {
	if k.PrintKinds == nil {
		return nil
	}
	return k.PrintKinds()
}

// PrintSetPlans prints a manifest set's plans: -o, one RolloutPlanList of plans, sp's
// restarts (SetRestartPlans; its notes on errW) and the kinds' plans; human, the summary
// (SetSummary), the count of the other kinds, without --summary each plan in full (headed by
// its context across contexts), sp's section (PrintSetConfigPreview) and the kinds'. With no
// Deployment row: the kinds' section alone, or, across contexts (withContext), nothing (every
// context failed: their lines say why).
func (v PreviewView) PrintSetPlans(w, errW io.Writer, set *manifest.Set, runs []SetRun, summary Summary, plans []*v1alpha1.RolloutPlan, sp *reloadoneshot.SetPreview, withContext bool, kinds SetKinds) error {
	if !v.Output.Human() {
		p, err := v.Output.ToPrinter()
		if err != nil {
			return err
		}
		if sp != nil {
			for _, n := range sp.Notes {
				fmt.Fprintln(errW, n)
			}
		}
		return p.PrintObj(NewRolloutPlanList(append(append(plans, SetRestartPlans(sp)...), kinds.Plans...)), w)
	}
	if len(summary.Rows) == 0 && kinds.Rows > 0 {
		PrintOtherKinds(w, set.OtherKinds())
		return kinds.print()
	}
	if len(summary.Rows) == 0 && withContext {
		return nil // every context failed: their lines say why
	}
	if err := PrintSummary(w, summary); err != nil {
		return err
	}
	PrintOtherKinds(w, set.OtherKinds())
	for _, run := range runs {
		for _, r := range run.Results {
			if r.Err != nil || v.Summary {
				continue
			}
			fmt.Fprintln(w)
			opts := v.PlanOptions(r.Warnings)
			opts.Context = run.Context
			if err := PrintPlan(w, r.Plan, opts); err != nil {
				return err
			}
			if err := PrintFeasibility(w, r.Feasibility); err != nil {
				return err
			}
		}
	}
	if sp != nil {
		if err := PrintSetConfigPreview(w, sp.Preview, sp.Notes, v.PlanOptions(nil)); err != nil {
			return err
		}
	}
	return kinds.print()
}

// PrintSetFailures writes each unreadable file, each context that failed
// (PrintContextFailure) and each failed Deployment as an "error: ..." line (PrintFailure:
// the Deployment's names it and its file, its context across contexts, and its namespace
// when the set spans several). It returns the failed Deployments' names (with "(context
// NAME)" across contexts) and the count of failed contexts.
func PrintSetFailures(w io.Writer, fileErrs []error, runs []SetRun) (failed []string, failedContexts int) {
	for _, err := range fileErrs {
		fmt.Fprintln(w, "error: "+err.Error())
	}
	for _, run := range runs {
		if run.Err != nil {
			PrintContextFailure(w, run.Context, run.Err)
			failedContexts++
		}
		withNS := SpansNamespaces(run.Results)
		for _, r := range run.Results {
			if r.Err == nil {
				continue
			}
			f := Failure{Namespace: r.Ref.Namespace, Name: r.Ref.Name, WithNamespace: withNS, Source: r.Source, Err: r.Err}
			name := DeploymentName(r.Ref.Namespace, r.Ref.Name, withNS)
			if run.Context != "" {
				f.Source = "context " + run.Context + ", " + r.Source
				name += " (context " + run.Context + ")"
			}
			PrintFailure(w, f)
			failed = append(failed, name)
		}
	}
	return failed, failedContexts
}

// SetFailureMessage is the last line of a set some of whose files (files, at least one)
// could not be read: the failed Deployments named, then the count of unreadable files.
func SetFailureMessage(files int, failed []string) string {
	msg := fmt.Sprintf("%d file(s) could not be read", files)
	if len(failed) > 0 {
		msg = fmt.Sprintf("%d Deployment(s) failed: %s; %s", len(failed), strings.Join(failed, ", "), msg)
	}
	return msg
}

// PrintConfigPreview prints the preview of a manifest set of ConfigMaps and Secrets alone:
// -o, a RolloutPlanList of its restarts (SetRestartPlans); human, PrintConfigPreview.
func (v PreviewView) PrintConfigPreview(w io.Writer, sp *reloadoneshot.SetPreview) error {
	if !v.Output.Human() {
		p, err := v.Output.ToPrinter()
		if err != nil {
			return err
		}
		return p.PrintObj(NewRolloutPlanList(SetRestartPlans(sp)), w)
	}
	return PrintConfigPreview(w, sp.Preview, v.PlanOptions(nil))
}

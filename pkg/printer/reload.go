package printer

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// PrintReload writes the human form of a reload's assessment: one table of the Deployments
// with each reference and its state (current, changed since the last restart, missing,
// unrecorded) and what reload does (ACTION), then the first-sight evidence and refusals,
// then, for each restart, its rollout plan (PrintPlan). Names, states and times only: no
// config value and no checksum is printed.
func PrintReload(w io.Writer, targets []*reloadoneshot.Target, opts PlanOptions) error {
	return PrintReloadContexts(w, targets, nil, opts)
}

// PrintReloadContexts is PrintReload of targets read in several kubeconfig contexts:
// contexts[i] is targets[i]'s. The table gets a CONTEXT column first and each plan's header
// names its context (nil contexts: PrintReload's output exactly).
func PrintReloadContexts(w io.Writer, targets []*reloadoneshot.Target, contexts []string, opts PlanOptions) error {
	if len(targets) == 0 {
		_, err := fmt.Fprintln(w, "No Deployments selected (with -l or --all, only Deployments annotated rollplan.dev/reload: \"true\", reloader.stakater.com/auto: \"true\" or com.xing.deployment-restart: enabled are).")
		return err
	}
	if err := printReloadTable(w, targets, contexts); err != nil {
		return err
	}
	printReloadNotes(w, targets)
	for i, t := range targets {
		if t.Action != reload.ActionRestart || t.Plan == nil || t.Refusal() != nil {
			continue
		}
		in := ""
		if contexts != nil {
			in = " in context " + contexts[i]
		}
		fmt.Fprintf(w, "\nRestart of deployment %s%s (%s):\n", t.Name(), in, restartReason(t))
		if n := t.Plan.NewReplicaSet; n.Reused {
			fmt.Fprintf(w, "Config rollback: the pods of revision %d (replicaset %s) saw exactly this config; the controller brings that ReplicaSet back as revision %d\n",
				n.PreviousRevision, n.Name, n.Revision)
		}
		if err := PrintPlan(w, t.Plan, opts); err != nil {
			return err
		}
		if err := PrintFeasibility(w, t.Feasibility); err != nil {
			return err
		}
	}
	return nil
}

// printReloadTable is the shared summary table (PrintSummary) of the Deployments, with
// reload's columns: CONFIG, each reference with the keys the pods see and its state, and
// ACTION. The plan's columns are those of the restart (a Deployment not restarted shows
// "-"); a refused one shows its refusal as OUTCOME.
func printReloadTable(w io.Writer, targets []*reloadoneshot.Target, contexts []string) error {
	s := Summary{ExtraColumns: []string{"CONFIG", "ACTION"}, WithContext: contexts != nil}
	var feasibility []*v1alpha1.PlanFeasibility // each restart's checks (nil: none, or not restarted)
	for i, t := range targets {
		feasibility = append(feasibility, NewPlanFeasibility(t.Feasibility))
		dep := t.State.Deployment
		row := SummaryRow{Namespace: dep.Namespace, Name: dep.Name, Change: "none", Err: t.Refusal(),
			Extra: []string{configCell(t.Decision.Refs), actionWord(t)}}
		if contexts != nil {
			row.Context = contexts[i]
		}
		if t.Action == reload.ActionRestart {
			row.Change = "config restart"
			if row.Err == nil && t.Plan != nil {
				row.Plan = NewRolloutPlan(t.Plan, nil)
			}
		}
		if t.Action == reload.ActionAdopt {
			row.Change = "record checksums"
		}
		s.Rows = append(s.Rows, row)
	}
	AddFeasibilityColumn(&s, feasibility)
	return PrintSummary(w, s)
}

// AddFeasibilityColumn appends to s the FEASIBILITY column (FeasibilityCell of fs[i] for
// row i; fs has one entry per row) when one of fs is set; a summary whose plans have no
// feasibility section is left as it was, so it prints as before the checks.
func AddFeasibilityColumn(s *Summary, fs []*v1alpha1.PlanFeasibility) {
	if !slices.ContainsFunc(fs, func(f *v1alpha1.PlanFeasibility) bool { return f != nil }) {
		return
	}
	s.ExtraColumns = append(s.ExtraColumns, FeasibilityColumn)
	for i, f := range fs {
		s.Rows[i].Extra = append(s.Rows[i].Extra, FeasibilityCell(f))
	}
}

// configCell is "configmap/app[A]: changed, secret/db[*]: current"; "-" without references.
func configCell(refs []reload.RefStatus) string {
	var parts []string
	for _, s := range refs {
		parts = append(parts, fmt.Sprintf("%s[%s]: %s", s.Ref.AnnotationKey(), keysWord(s.Ref), stateWord(s)))
	}
	return strings.Join(parts, ", ")
}

func keysWord(r reload.Ref) string {
	if r.AllKeys {
		return "*"
	}
	return strings.Join(r.Keys, ",")
}

func stateWord(s reload.RefStatus) string {
	switch {
	case s.State == reload.Changed:
		return "changed since the last restart"
	case s.State == reload.Missing && s.Ref.Optional:
		return "missing (optional)"
	}
	return string(s.State)
}

func actionWord(t *reloadoneshot.Target) string {
	if t.Refusal() != nil {
		return "refused"
	}
	switch t.Action {
	case reload.ActionRestart:
		if !t.Decision.Stale && t.Assessment.PossiblyStale {
			return "restart (possibly stale since " + t.Assessment.Since.UTC().Format(time.RFC3339) + ")"
		}
		return "restart"
	case reload.ActionAdopt:
		return "adopt (record, no restart)"
	}
	if t.Decision.FirstSight() {
		return "none (unrecorded: --adopt records)"
	}
	return "none"
}

// printReloadNotes writes the evidence of first-sight judgements and the refusals.
func printReloadNotes(w io.Writer, targets []*reloadoneshot.Target) {
	first := true
	note := func(format string, args ...any) {
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintf(w, format+"\n", args...)
	}
	for _, t := range targets {
		if err := t.Refusal(); err != nil {
			note("Refused:    %v", err)
		}
		if t.Decision.AnnotationErr != nil {
			note("Warning:    deployment %s: %v (a restart rewrites it)", t.Name(), t.Decision.AnnotationErr)
		}
		if t.Decision.FirstSight() && t.Refusal() == nil {
			note("First sight: deployment %s: %s", t.Name(), t.Assessment.Summary())
		}
	}
}

func restartReason(t *reloadoneshot.Target) string {
	if t.Reason != "" {
		return t.Reason
	}
	var changed []string
	for _, s := range t.Decision.Refs {
		if s.State == reload.Changed || (s.State == reload.Missing && s.Ref.Optional && s.Recorded != "" && s.Recorded != reload.AbsentChecksum) {
			changed = append(changed, s.Ref.AnnotationKey())
		}
	}
	if len(changed) > 0 {
		return "changed: " + strings.Join(changed, ", ")
	}
	return "possibly stale since " + t.Assessment.Since.UTC().Format(time.RFC3339)
}

// PrintReloadResults writes kubectl's result line for each write of a reload
// ("deployment.apps/web restarted", "... config checksums adopted", with the dry-run
// suffix) and returns the failures, in order.
func PrintReloadResults(w io.Writer, results []reloadoneshot.Result, suffix string) []error {
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
			continue
		}
		what := "restarted"
		if r.Target.Action == reload.ActionAdopt {
			what = "config checksums adopted"
		}
		fmt.Fprintf(w, "deployment.apps/%s %s%s\n", r.Target.State.Deployment.Name, what, suffix)
	}
	return errs
}

// PrintConfigPreview writes what applying ConfigMap and Secret manifests would restart: one
// line per object (created or updated, from the server-side dry run), then the Deployments
// whose pods would see a changed key as PrintReload shows them (table, refusals, each
// restart's plan), or that none would. Names only: no value, no checksum.
func PrintConfigPreview(w io.Writer, p *reloadoneshot.ConfigPreview, opts PlanOptions) error {
	for _, c := range p.Changes {
		what := "updated"
		if c.Before == nil {
			what = "created"
		}
		fmt.Fprintf(w, "%s/%s (namespace %s) would be %s (server-side dry run)\n", strings.ToLower(string(c.Key.Kind)), c.Key.Name, c.Key.Namespace, what)
	}
	fmt.Fprintln(w)
	if len(p.Targets) == 0 {
		_, err := fmt.Fprintln(w, "No Deployment of these namespaces sees a changed key: nothing would restart.")
		return err
	}
	return PrintReload(w, p.Targets, opts)
}

// PrintSetConfigPreview writes the config-restart section of a manifest set that also holds
// Deployments (below the set's plans): a heading, then PrintConfigPreview of p, then notes
// (one line each: a Deployment of the set that also sees a changed key, planned from the
// set only). Names only: no value, no checksum.
func PrintSetConfigPreview(w io.Writer, p *reloadoneshot.ConfigPreview, notes []string, opts PlanOptions) error {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Config restarts: the set's ConfigMaps and Secrets, and the live Deployments whose pods would see a changed key")
	if err := PrintConfigPreview(w, p, opts); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

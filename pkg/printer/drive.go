package printer

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// newDriveTabWriter is the tabwriter of drive's tables (minwidth 0, tab width 4, padding 2).
func newDriveTabWriter(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// PrintDrivePrepared writes what a drive of namespace/name will do, before any write: one
// line for the takeover (or the held drive it continues), the plan table from step
// p.Done+1, and the hand-back.
func PrintDrivePrepared(w io.Writer, namespace, name string, p *drive.Prepared) error {
	b := p.Bounds
	if tk := p.Takeover; tk != nil {
		verb := "rolls out"
		if tk.Adopted {
			verb = "adopts the rollout in flight to"
		}
		fmt.Fprintf(w, "drive %s %s/%s: new ReplicaSet %s (revision %d), %d replicas, at most %d pods, at least %d available (%s)\n",
			verb, namespace, name, tk.NewName, tk.Revision, b.Replicas, b.MaxPods(), b.MinAvailable(), StrategyWords(tk.Desired.Spec.Strategy))
	} else {
		s := p.Snapshot.State
		fmt.Fprintf(w, "deployment %s/%s is held by drive (plan %s, %s, step %d of %d): %s left, %d replicas, at most %d pods, at least %d available\n",
			namespace, name, s.PlanID, strings.ToLower(string(s.Phase)), p.Done, p.Done+len(p.Steps), plural(len(p.Steps), "step"), b.Replicas, b.MaxPods(), b.MinAvailable())
	}
	if err := PrintDrivePlan(w, b, p.Steps, p.Done); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "then: hand back to the controller (original strategy and paused value restored)")
	return err
}

// PrintAbortPrepared writes what an abort of namespace/name will do: one line for the walk
// back, then the plan table from step p.Done+1.
func PrintAbortPrepared(w io.Writer, namespace, name string, p *drive.Prepared) error {
	s := p.Snapshot.State
	fmt.Fprintf(w, "abort walks deployment %s/%s back from %s to %s in %s (at most %d pods, at least %d available), then hands it back with the previous template\n",
		namespace, name, s.NewReplicaSet, s.PreviousReplicaSet, plural(len(p.Steps), "step"), p.Bounds.MaxPods(), p.Bounds.MinAvailable())
	return PrintDrivePlan(w, p.Bounds, p.Steps, p.Done)
}

// PrintDriveResult writes the last line of a drive or abort run of namespace/name (nothing
// when the user declined before the first write). Durations are rounded to 100ms.
func PrintDriveResult(w io.Writer, namespace, name string, res *drive.Result) error {
	var err error
	switch res.Outcome {
	case drive.OutcomeComplete:
		_, err = fmt.Fprintf(w, "deployment %s/%s rolled out: revision %d, %s in %s, handed back to the controller\n", namespace, name, res.Revision, plural(res.StepsRun, "step"), res.Duration.Round(100*time.Millisecond))
	case drive.OutcomeAborted:
		_, err = fmt.Fprintf(w, "deployment %s/%s walked back: revision %d, %s in %s, handed back to the controller\n", namespace, name, res.Revision, plural(res.StepsRun, "step"), res.Duration.Round(100*time.Millisecond))
	case drive.OutcomeHeld:
		_, err = fmt.Fprintf(w, "deployment %s/%s held at step %d of %d: %s\n", namespace, name, res.Step, res.Steps, res.Reason)
	case drive.OutcomeNotStarted:
	}
	return err
}

// StrategyWords says strategy for the plan's header: "RollingUpdate maxSurge 25%,
// maxUnavailable 25%", or the type alone ("Recreate").
func StrategyWords(s appsv1.DeploymentStrategy) string {
	if s.RollingUpdate == nil {
		return string(s.Type)
	}
	return fmt.Sprintf("RollingUpdate maxSurge %s, maxUnavailable %s", s.RollingUpdate.MaxSurge.String(), s.RollingUpdate.MaxUnavailable.String())
}

// PrintDrivePlan writes the driver's plan as a table: one row per step, numbered from
// done+1, with the new ReplicaSet's scale, the wait, the old ReplicaSets' scale-downs, the
// peak pods and the available pods after.
func PrintDrivePlan(w io.Writer, b drive.Bounds, steps []drive.Step, done int) error {
	tw := newDriveTabWriter(w)
	fmt.Fprintln(tw, "STEP\tNEW\tWAIT FOR\tOLD\tPODS\tAVAILABLE AFTER\tNOTE")
	for i, st := range steps {
		newCol := fmt.Sprintf("%s %d -> %d", st.New.Name, st.New.From, st.New.To)
		if st.Create {
			newCol = fmt.Sprintf("create %s with %d", st.New.Name, st.New.To)
		} else if st.New.From == st.New.To {
			newCol = fmt.Sprintf("%s at %d", st.New.Name, st.New.To)
		}
		var notes []string
		if st.ExtraPod {
			notes = append(notes, fmt.Sprintf("extra pod (maxSurge 0): %d > %d", st.Pods, b.MaxPods()))
		}
		if st.KeptOld {
			notes = append(notes, "keeps an old pod until new is at replicas")
		}
		fmt.Fprintf(tw, "%d\t%s\t%d available\t%s\t%d\t%d\t%s\n", done+i+1, newCol, st.WaitAvailable, oldScales(st.Old), st.Pods, st.AvailableAfter, strings.Join(notes, "; "))
	}
	return tw.Flush()
}

// oldScales is "web-5c8b 10 -> 5, web-1a2b 2 -> 0", or "-" for none.
func oldScales(old []drive.Scale) string {
	if len(old) == 0 {
		return "-"
	}
	parts := make([]string, len(old))
	for i, o := range old {
		parts[i] = fmt.Sprintf("%s %d -> %d", o.Name, o.From, o.To)
	}
	return strings.Join(parts, ", ")
}

// PrintComparison writes the controller's plan for the same change (one row per
// ReplicaSet write) and where drive differs from it, and why.
func PrintComparison(w io.Writer, c *drive.Comparison) error {
	fmt.Fprintf(w, "The controller (v%s, simulated; pods available when it stops writing) would make:\n", strings.TrimPrefix(planner.ControllerVersion, "v"))
	tw := newDriveTabWriter(w)
	fmt.Fprintln(tw, "SYNC\tWAIT\tREPLICASET\tFROM\tTO\tPODS\tAVAILABLE")
	for _, st := range c.Controller.Steps {
		name := c.Controller.ReplicaSets[st.ReplicaSet].Name
		wait := "-"
		if st.Wait != planner.WaitNone {
			wait = string(st.Wait)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%d\n", st.Sync, wait, name, st.From, st.To, st.Total, st.Available)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nWhere drive differs, and why:")
	for _, d := range c.Differences {
		fmt.Fprintf(w, "  - %s\n", d)
	}
	return nil
}

// StepPrompt is the question drive and abort ask before step s: "step 2/3: <the step>"
// and the answers, without a trailing newline.
func StepPrompt(s drive.StepInfo) string {
	verb := "step"
	if s.Phase == drive.PhaseAbort {
		verb = "abort step"
	}
	return fmt.Sprintf("%s %d/%d: %s\n  [c]ontinue, [h]old, [a]bort? ", verb, s.Number, s.Of, DescribeStep(drive.APIStep(s.Step)))
}

// DescribeStep says in one line what a step does, for example
// "web-7d9f 3 -> 8, wait for 8 available, web-5c8b 5 -> 1 (13 pods at most, 9 available after)".
func DescribeStep(st v1alpha1.DriveStep) string {
	var parts []string
	switch {
	case st.Create:
		parts = append(parts, fmt.Sprintf("create %s with %d", st.New.Name, st.New.To))
	case st.New.From != st.New.To:
		parts = append(parts, fmt.Sprintf("%s %d -> %d", st.New.Name, st.New.From, st.New.To))
	}
	parts = append(parts, fmt.Sprintf("wait for %d available", st.WaitAvailable))
	for _, o := range st.Old {
		parts = append(parts, fmt.Sprintf("%s %d -> %d", o.Name, o.From, o.To))
	}
	extra := ""
	if st.ExtraPod {
		extra = ", one extra pod: maxSurge is 0"
	}
	return fmt.Sprintf("%s (%d pods at most, %d available after%s)", strings.Join(parts, ", "), st.Pods, st.AvailableAfter, extra)
}

// PrintNothingToDo writes drive's message for a change that is rolled out already.
func PrintNothingToDo(w io.Writer, e *drive.NothingToDoError) error {
	_, err := fmt.Fprintln(w, e.Msg)
	return err
}

// PrintGuardWarning writes drive's warning when the guard policy is not installed
// (installed false) or cannot be read (err non-nil); nothing when it is installed.
func PrintGuardWarning(w io.Writer, installed bool, err error) {
	if err != nil {
		PrintWarnings(w, fmt.Sprintf("cannot tell whether the guard is installed (%v)", err))
	} else if !installed {
		PrintWarnings(w, "the guard is not installed: unpausing a held Deployment (kubectl rollout resume) would make the controller scale every old ReplicaSet to 0 at once; `kubectl rollplan guard install` refuses that edit")
	}
}

// PrintDriveDryRunHeld writes `drive --dry-run`'s whole answer for a Deployment held
// already: there is no takeover to compare, and nothing changed.
func PrintDriveDryRunHeld(w io.Writer) error {
	_, err := fmt.Fprintln(w, "(dry run: the Deployment is held already; nothing changed)")
	return err
}

// PrintDriveDryRunComparison writes `drive --dry-run`'s comparison with the controller: a
// blank line, then PrintComparison.
func PrintDriveDryRunComparison(w io.Writer, c *drive.Comparison) error {
	fmt.Fprintln(w)
	return PrintComparison(w, c)
}

// PrintDryRunEnd writes the last lines of drive's and abort's dry runs: that the API server
// accepts the takeover write (serverAccepted, after a server dry run), then
// "(dry run: nothing changed)".
func PrintDryRunEnd(w io.Writer, serverAccepted bool) error {
	if serverAccepted {
		fmt.Fprintln(w, "\nserver dry run: the API server accepts the takeover write")
	}
	_, err := fmt.Fprintln(w, "(dry run: nothing changed)")
	return err
}

// PrintHandBackPreview writes what `resume` does to a Deployment held by drive: a header
// naming namespace/name, how long it is held (held, drive.Held's words), the strategy and
// paused state it goes back to (after, the Deployment once handed back), then the plan the
// controller makes from there and a blank line.
func PrintHandBackPreview(w io.Writer, namespace, name, held string, after *appsv1.Deployment, plan *planner.Plan, opts PlanOptions) error {
	fmt.Fprintf(w, "deployment %s/%s is %s: resume hands it back to the controller where it stands (strategy %s, paused %v); the controller then makes:\n\n",
		namespace, name, held, StrategyWords(after.Spec.Strategy), after.Spec.Paused)
	if err := PrintPlan(w, plan, opts); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// PrintHeldExit writes the closing block of a drive or abort of namespace/name that ended
// while the Deployment stays held (e, for any cause: interrupted, the API server
// unreachable, the lease lapsed, an edit by someone else): where it stands and the commands
// that continue it, walk it back, hand it back or show it. Ctrl-C prints the same.
//
//	deployment shop/web stays held at step 2 of 3 (drive plan 01297f449739; paused, strategy Recreate): interrupted
//	  the lease was released: any driver may continue now
//	  continue:      kubectl rollplan drive deploy/web -n shop
//	  walk back:     kubectl rollplan abort deploy/web -n shop
//	  hand it back:  kubectl rollplan resume deploy/web -n shop
//	  see it:        kubectl rollplan drive status deploy/web -n shop
//
// When a step was under way and some of its ReplicaSet writes landed (e.InStep), the first
// line names that step and a second line its writes: the drive state records steps done,
// so it still says the step before, and the next run reconciles the step from the
// ReplicaSets:
//
//	deployment shop/web stays held in step 1 of 4 (drive plan 01297f449739; paused, strategy Recreate): interrupted
//	  step 1's ReplicaSet writes landed (created web-6d4f with 3 replicas); the drive state records no step of 4 done: the next run reads the ReplicaSets and reconciles step 1 from there
func PrintHeldExit(w io.Writer, namespace, name string, e *drive.HeldError, why string) error {
	phase := "drive"
	if e.Phase == drive.PhaseAbort {
		phase = "abort"
	}
	if e.InStep > 0 {
		// The state records steps done: "at step 0 of 4" would hide the writes of step 1.
		fmt.Fprintf(w, "deployment %s/%s stays held in step %d of %d (%s plan %s; paused, strategy Recreate): %s\n", namespace, name, e.InStep, e.Steps, phase, e.PlanID, why)
		fmt.Fprintf(w, "  step %d's ReplicaSet writes landed (%s); the drive state records %s done: the next run reads the ReplicaSets and reconciles step %d from there\n",
			e.InStep, strings.Join(e.Landed, "; "), stepsWord(e.Step, e.Steps), e.InStep)
	} else {
		fmt.Fprintf(w, "deployment %s/%s stays held at step %d of %d (%s plan %s; paused, strategy Recreate): %s\n", namespace, name, e.Step, e.Steps, phase, e.PlanID, why)
	}
	switch {
	case e.Released:
		fmt.Fprintln(w, "  the lease was released: any driver may continue now")
	case e.LeaseExpires != nil:
		fmt.Fprintf(w, "  the lease was not released (the API server did not answer): it lapses at %s; continue after that, or now with --force\n", e.LeaseExpires.UTC().Format(time.RFC3339))
	}
	ref := fmt.Sprintf("deploy/%s -n %s", name, namespace)
	cont := "kubectl rollplan drive " + ref
	if e.Phase == drive.PhaseAbort {
		cont = "kubectl rollplan abort " + ref + " --yes"
	}
	tw := newDriveTabWriter(w)
	fmt.Fprintf(tw, "  continue:\t%s\n", cont)
	if e.Phase != drive.PhaseAbort {
		fmt.Fprintf(tw, "  walk back:\tkubectl rollplan abort %s\n", ref)
	}
	fmt.Fprintf(tw, "  hand it back:\tkubectl rollplan resume %s\n", ref)
	fmt.Fprintf(tw, "  see it:\tkubectl rollplan drive status %s\n", ref)
	return tw.Flush()
}

// stepsWord is "no step of 4", "1 step of 4", "2 steps of 4".
func stepsWord(done, of int) string {
	switch done {
	case 0:
		return fmt.Sprintf("no step of %d", of)
	case 1:
		return fmt.Sprintf("1 step of %d", of)
	}
	return fmt.Sprintf("%d steps of %d", done, of)
}

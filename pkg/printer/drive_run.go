package printer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
)

// PrintDrivePreparation renders what drive (or abort) decided before its first write
// (driverun.Prepare): the warnings on errOut; then on out the nothing-to-do line, abort's
// walk-back plan, or drive's plan (its warnings and the guard's state on errOut first)
// followed by the FINDINGS block and the "Stalled at step k" line of the feasibility
// checks. A predicted stall without --fail-on-stall is a warning on errOut (drive goes on
// and holds there); a check that could not run is a warning too. p may carry only warnings
// (Prepare failed).
func PrintDrivePreparation(out, errOut io.Writer, p *driverun.Prepared) error {
	PrintWarnings(errOut, p.Warnings...)
	switch {
	case p.Nothing != nil:
		return PrintNothingToDo(out, p.Nothing)
	case p.Plan == nil:
		return nil
	case p.Abort:
		return PrintAbortPrepared(out, p.Namespace, p.Name, p.Plan)
	}
	PrintWarnings(errOut, p.Plan.Warnings...)
	PrintGuardWarning(errOut, p.GuardInstalled, p.GuardErr)
	if err := PrintDrivePrepared(out, p.Namespace, p.Name, p.Plan); err != nil {
		return err
	}
	if p.ChecksErr != nil {
		PrintWarnings(errOut, "feasibility checks not run: "+p.ChecksErr.Error())
	}
	if !p.Checked {
		return nil
	}
	if err := PrintFeasibility(out, p.Feasibility); err != nil {
		return err
	}
	if s := p.Stall(); s != nil && !p.FailOnStall {
		PrintWarnings(errOut, fmt.Sprintf("the checks predict the plan stalls at step %d (%s: %s): drive goes on and will hold there; --fail-on-stall exits %d instead", s.Step, s.Reason, driverun.ObjectsOr(s.Objects), driverun.ExitStalled))
	}
	return nil
}

// PrintDriveDryRun renders drive --dry-run's result: that a held drive is continued (no
// takeover to compare), or the comparison of drive's plan with the controller's, then
// (r.Done) that nothing changed and, for a server dry run, that the API server accepted the
// takeover. A nil r prints nothing.
func PrintDriveDryRun(w io.Writer, r *driverun.DryRunResult) error {
	switch {
	case r == nil:
		return nil
	case r.Held:
		return PrintDriveDryRunHeld(w)
	}
	if err := PrintDriveDryRunComparison(w, r.Comparison); err != nil || !r.Done {
		return err
	}
	return PrintDryRunEnd(w, r.Server)
}

// PrintDriveOutcome renders the end of a drive or abort walk: the result on out (handed
// back, or held with how to continue), or, for a Deployment left held by a stop, the
// closing block on errOut (PrintHeldExit with the outcome's why).
func PrintDriveOutcome(out, errOut io.Writer, o *driverun.Outcome) error {
	if o.Held != nil {
		return PrintHeldExit(errOut, o.Namespace, o.Name, o.Held, o.Why)
	}
	return PrintDriveResult(out, o.Namespace, o.Name, o.Result)
}

// ParseStepAnswer reads an answer to StepPrompt: c(ontinue) (or y, yes), h(old), a(bort),
// case and spaces ignored; ok is false for anything else (ask again).
func ParseStepAnswer(line string) (a drive.Answer, ok bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "c", "continue", "y", "yes":
		return drive.AnswerContinue, true
	case "h", "hold":
		return drive.AnswerHold, true
	case "a", "abort":
		return drive.AnswerAbort, true
	}
	return a, false
}

// PromptStep returns drive's step prompt: it asks on w (StepPrompt) and reads the answer
// from r (ParseStepAnswer), again until it is one; end of input holds. pkg/cmd wires it to
// standard input and stderr as drive.Options.Confirm.
func PromptStep(r io.Reader, w io.Writer) func(context.Context, drive.StepInfo) (drive.Answer, error) {
	in := bufio.NewReader(r)
	return func(ctx context.Context, s drive.StepInfo) (drive.Answer, error) {
		for {
			fmt.Fprint(w, StepPrompt(s))
			line, err := in.ReadString('\n')
			if a, ok := ParseStepAnswer(line); ok {
				return a, nil
			}
			if err != nil {
				fmt.Fprintln(w)
				return drive.AnswerHold, nil
			}
		}
	}
}

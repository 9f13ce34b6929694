package printer

import (
	"fmt"
	"io"
	"strings"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// KindsReport prints what pipeline.KindsVerb.Run tells as it goes, for the verb and flags of
// Kinds: histories and previews on Out, failures, the question and its refusal on ErrOut
// (KindWriteReport: results on Out, on ErrOut with -o). Ask asks a y/N question on the
// terminal and says whether the answer was yes.
type KindsReport struct {
	KindWriteReport
	Out   io.Writer
	Kinds pipeline.KindsVerb
	Ask   func(question string) bool
}

var _ pipeline.KindsReport = KindsReport{}

// NewKindsReport returns the KindsReport of v printing on out and errOut.
func NewKindsReport(out, errOut io.Writer, v pipeline.KindsVerb, ask func(string) bool) KindsReport {
	result := out
	if v.Output != "" {
		result = errOut
	}
	return KindsReport{KindWriteReport: KindWriteReport{Result: result, ErrOut: errOut, DryRun: v.DryRun}, Out: out, Kinds: v, Ask: ask}
}

// History prints one object's history: with -o a WorkloadHistory, with --revision that
// revision, else the table (PrintWorkloadHistory).
func (r KindsReport) History(_ target.KindRef, h *workload.History) error {
	switch {
	case r.Kinds.Output != "":
		return kindsPrinter(r.Kinds.Output).PrintObj(NewWorkloadHistory(h, r.Kinds.Revision), r.Out)
	case r.Kinds.Revision > 0:
		return PrintWorkloadRevision(r.Out, h, r.Kinds.Revision)
	default:
		return PrintWorkloadHistory(r.Out, h, r.Kinds.Now())
	}
}

// WritePreview prints the preview of ref's undo or restart (PrintKindWritePreview), or with
// -o kubectl's patch (nothing for a skipped rollback).
func (r KindsReport) WritePreview(ref target.KindRef, kw *pipeline.KindWrite) error {
	switch {
	case r.Kinds.Output == "":
		PrintKindWritePreview(r.Out, ref, kw)
	case kw.Patch != nil:
		return PrintPatch(r.Out, kw.Patch, r.Kinds.Output)
	}
	return nil
}

// Confirm asks once before writing n objects in namespace; y or yes goes on.
func (r KindsReport) Confirm(n int, namespace string) bool {
	return r.Ask(fmt.Sprintf("%s %d %s in namespace %q as previewed above? [y/N]: ", r.Kinds.Verb, n, r.Kinds.Noun(), namespace))
}

// Declined says on ErrOut that nothing was written.
func (r KindsReport) Declined() {
	fmt.Fprintf(r.ErrOut, "%s declined: nothing was changed.\n", r.Kinds.Verb)
}

// StatusShower returns how one object's statuses are shown: -o prints the WorkloadStatus at
// every change (one object, or --watch; several without --watch print one list at the end,
// PrintKindsResult); the human form prints each block of KindStatusBlocks that changed, and
// warns on ErrOut when where the rollout stands cannot be read.
func (r KindsReport) StatusShower() func(*pipeline.KindStatus) error {
	last := map[string]bool{}
	var lastKey string
	p := kindsPrinter(r.Kinds.Output) // one printer: "---" between the objects of a --watch
	return func(s *pipeline.KindStatus) error {
		blocks := KindStatusBlocks(s)
		if r.Kinds.Output != "" {
			var key strings.Builder
			for _, b := range blocks {
				key.WriteString(b.Key + "\n")
			}
			if (!r.Kinds.Watch && r.Kinds.Several()) || key.String() == lastKey {
				return nil
			}
			lastKey = key.String()
			return p.PrintObj(NewWorkloadStatus(s), r.Out)
		}
		if s.ProgressErr != nil {
			fmt.Fprintf(r.ErrOut, "warning: %s: where the rollout stands is unknown: %v\n", s.Ref, s.ProgressErr)
		}
		seen := map[string]bool{}
		for _, b := range blocks {
			seen[b.Key] = true
			if last[b.Key] {
				continue
			}
			if _, err := fmt.Fprint(r.Out, b.Text); err != nil {
				return err
			}
		}
		last = seen
		return nil
	}
}

// PrintKindsResult prints what is left of Run's result res for v: "No resources found in NS
// namespace." on errOut when nothing was selected; status -o of several without --watch, one
// WorkloadStatusList on out.
func PrintKindsResult(out, errOut io.Writer, v pipeline.KindsVerb, res *pipeline.KindsResult) error {
	if res.Selected == 0 {
		PrintNoneSelected(errOut, v.Namespace)
		return nil
	}
	if v.Output != "" && !v.Watch && len(res.Statuses) > 1 {
		return kindsPrinter(v.Output).PrintObj(NewWorkloadStatusList(res.Statuses), out)
	}
	return nil
}

// PrintKindsPreview prints the preview p of v: none selected (PrintNoneSelected on errOut),
// one plan or a list (PrintKindPlans; withContext: a CONTEXT column and each plan's
// context), then each failure's line on errOut ("error: ...").
func PrintKindsPreview(out, errOut io.Writer, v pipeline.KindsVerb, p *pipeline.KindsPreview, withContext bool) error {
	if len(p.Rows) == 0 && len(p.Failed) == 0 {
		PrintNoneSelected(errOut, v.Namespace)
		return nil
	}
	if err := PrintKindPlans(out, p.Rows, p.List, v.Output, string(v.Readiness), withContext); err != nil {
		return err
	}
	for _, err := range p.Failed {
		fmt.Fprintf(errOut, "error: %v\n", err)
	}
	return nil
}

// kindsPrinter is cli-runtime's YAML printer for "yaml", else its JSON printer.
func kindsPrinter(format string) printers.ResourcePrinter {
	if format == "yaml" {
		return &printers.YAMLPrinter{}
	}
	return &printers.JSONPrinter{}
}

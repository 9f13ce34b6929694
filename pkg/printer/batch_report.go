package printer

import (
	"fmt"
	"io"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// BatchReport prints what pipeline.RunBatch tells: a failure on ErrOut (PrintFailure), each
// success's kubectl result line on Result ("deployment.apps/web restarted", PrintResult
// under DryRun; an error printing it goes to ErrOut), a declined confirmation on ErrOut
// (PrintDeclined of Verb).
type BatchReport struct {
	Verb           string
	Result, ErrOut io.Writer
	DryRun         cmdutil.DryRunStrategy
}

var _ pipeline.BatchReport = BatchReport{}

// Failed prints r's failure line.
func (b BatchReport) Failed(r rollout.Result) {
	PrintFailure(b.ErrOut, Failure{Namespace: r.Namespace, Name: r.Name, Err: r.Err})
}

// Done prints r's result line.
func (b BatchReport) Done(r rollout.Result) {
	if err := PrintResult(b.Result, r.Name, r.Operation, b.DryRun); err != nil {
		fmt.Fprintf(b.ErrOut, "error: %v\n", err)
	}
}

// Declined prints that nothing was changed.
func (b BatchReport) Declined() { PrintDeclined(b.ErrOut, b.Verb) }

package pipeline

import (
	"context"
	"errors"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// BatchReport is what RunBatch tells as it goes (printer.BatchReport prints it): each
// failed Deployment of several as it happens, each success, and a declined confirmation.
type BatchReport interface {
	// Failed is one Deployment of several that failed (r.Err set).
	Failed(r rollout.Result)
	// Done is one Deployment written (or dry-run) with kubectl's word r.Operation.
	Done(r rollout.Result)
	// Declined is the confirmation declined: nothing was written.
	Declined()
}

// RunBatch runs b, a writing verb's preview, confirmation and writes, over objs, telling rep
// what happens. One Deployment (several unset) behaves as the verb always has: its error is
// returned as it is. Several: each failure is reported as it happens, the others go on, and
// the error (rollout.Results.Err) names each that failed; a declined confirmation writes
// nothing and is not an error. Errors: b's.
func RunBatch[T any](ctx context.Context, verb string, objs []rollout.Object, several bool, b rollout.Batch[T], rep BatchReport) error {
	b.Report = func(r rollout.Result) {
		switch {
		case r.Err != nil && several:
			rep.Failed(r)
		case r.Err == nil && r.Operation != "":
			rep.Done(r)
		}
	}
	results, err := b.Run(ctx, objs)
	if errors.Is(err, rollout.ErrDeclined) {
		rep.Declined()
		return nil
	}
	if err != nil {
		return err
	}
	if !several && len(results) == 1 {
		return results[0].Err
	}
	return results.Err(verb)
}

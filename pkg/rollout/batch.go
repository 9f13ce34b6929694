package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Object names one Deployment of a Batch.
type Object struct {
	Namespace, Name string
}

// String returns kubectl's name for the object, "deployment.apps/NAME" (the namespace is
// the command's): target.DeploymentName.
func (o Object) String() string { return target.DeploymentName(o.Namespace, o.Name, false) }

// Result is what a Batch did to one Deployment.
type Result struct {
	Object
	// Operation is kubectl's word after the object name on success: "restarted", "paused",
	// "rolled back", "skipped rollback (current template already matches revision 2)".
	// Empty when Err is set, or when nothing was asked of it (declined, cancelled).
	Operation string
	// Err is why this Deployment failed: its read, its preview (kubectl refuses the change,
	// the revision is not in its history) or its write (not found, forbidden, changed after
	// the preview). nil on success.
	Err error
}

// ErrDeclined is returned by Batch.Run when the one confirmation was answered no: nothing
// was written.
var ErrDeclined = errors.New("declined: nothing was changed")

// Batch is kubectl rollout's loop over many Deployments (RunRestart, RunPause, RunResume,
// RunUndo, k8s.io/kubectl/pkg/cmd/rollout, v0.36.3) with rollplan's preview and one
// confirmation in front: every Deployment is previewed first (a failed preview is reported
// and left out), then the user confirms once for all, then each previewed Deployment is
// written in turn, continuing past one that fails. T is a verb's previewed state of one
// Deployment. The loop holds no I/O of its own: the functions do it.
type Batch[T any] struct {
	// Preview reads and previews one Deployment (and prints its preview). An error leaves it
	// out of the writes and is its Result.
	Preview func(ctx context.Context, o Object) (T, error)
	// Previewed, when not nil, is given every Deployment previewed without error (at least
	// one), once, after the last preview and before Confirm: to print them together. Its
	// error is returned as is and nothing is written.
	Previewed func(ready []T) error
	// Confirm, when not nil, is asked once, after every preview, with the Deployments whose
	// preview succeeded (at least one) and the number that failed. false writes nothing
	// (Run returns ErrDeclined); an error is returned as is.
	Confirm func(ready []Object, failed int) (bool, error)
	// Apply writes one previewed Deployment and returns kubectl's operation word.
	Apply func(ctx context.Context, item T) (string, error)
	// Report, when not nil, is told each Result as soon as it is known: a failed preview
	// right after it, a write right after it. Results come in the order of the objects
	// within each phase.
	Report func(Result)
}

// Run previews every object, asks Confirm once, and applies every previewed one, in the
// order given. It returns one Result per object, in that order. A cancelled ctx stops the
// loop: the objects not yet written get ctx's error. The error is ErrDeclined, Confirm's
// error, or nil: failures of single objects are in the Results (Results.Err).
func (b Batch[T]) Run(ctx context.Context, objs []Object) (Results, error) {
	results := make(Results, len(objs))
	items := make([]T, len(objs))
	var ready []int
	for i, o := range objs {
		results[i].Object = o
		if results[i].Err = ctx.Err(); results[i].Err == nil {
			items[i], results[i].Err = b.Preview(ctx, o)
		}
		if results[i].Err != nil {
			b.report(results[i])
			continue
		}
		ready = append(ready, i)
	}
	if len(ready) == 0 {
		return results, nil
	}
	if b.Previewed != nil {
		if err := b.Previewed(pick(items, ready)); err != nil {
			return results, err
		}
	}
	if b.Confirm != nil {
		ok, err := b.Confirm(pick(objs, ready), len(objs)-len(ready))
		if err != nil {
			return results, err
		}
		if !ok {
			return results, ErrDeclined
		}
	}
	for _, i := range ready {
		if results[i].Err = ctx.Err(); results[i].Err == nil {
			results[i].Operation, results[i].Err = b.Apply(ctx, items[i])
		}
		b.report(results[i])
	}
	return results, nil
}

func (b Batch[T]) report(r Result) {
	if b.Report != nil {
		b.Report(r)
	}
}

func pick[E any](objs []E, idx []int) []E {
	out := make([]E, len(idx))
	for j, i := range idx {
		out[j] = objs[i]
	}
	return out
}

// Results are the Results of a Batch, one per object, in the order of the objects.
type Results []Result

// Failed returns the Results with an error, in order.
func (rs Results) Failed() Results {
	var out Results
	for _, r := range rs {
		if r.Err != nil {
			out = append(out, r)
		}
	}
	return out
}

// Err returns nil when no Deployment failed, else a *BatchError naming each that did (verb
// is the command: "restart", "undo").
func (rs Results) Err(verb string) error {
	failed := rs.Failed()
	if len(failed) == 0 {
		return nil
	}
	return &BatchError{Verb: verb, Failed: failed, Of: len(rs)}
}

// BatchError is the error of a Batch in which some Deployments failed: "restart failed for
// 2 of 3 Deployments: deployment.apps/a, deployment.apps/c". Each failure's own message is
// in Failed (the command prints them as they happen).
type BatchError struct {
	Verb   string
	Failed Results
	Of     int
}

func (e *BatchError) Error() string {
	names := make([]string, len(e.Failed))
	for i, r := range e.Failed {
		names[i] = r.Object.String()
	}
	noun := "Deployments"
	if e.Of == 1 {
		noun = "Deployment"
	}
	return fmt.Sprintf("%s failed for %d of %d %s: %s", e.Verb, len(e.Failed), e.Of, noun, strings.Join(names, ", "))
}

// Unwrap returns the errors of the failed Deployments.
func (e *BatchError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, r := range e.Failed {
		errs[i] = r.Err
	}
	return errs
}

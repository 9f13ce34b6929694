package pipeline

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Writes is what undo, pause, resume and restart act on (issue 8): the Deployments selected,
// whether the selection may name more than one, and the one confirmation before writing
// several, as kubectl rollout's loops over a resource.Builder do (RunRestart, pkg/cmd/rollout,
// v0.36.3) with one question added.
type Writes struct {
	// Verb is the command, for messages ("restart").
	Verb string
	// Namespace is the selection's, for "No resources found in NAMESPACE namespace.".
	Namespace string
	// Objects are the Deployments selected, in order (none: nothing matched).
	Objects []rollout.Object
	// Several is set when the selection was not one named Deployment (several names, -l,
	// --all): one confirmation for all, a failed Deployment named and the others still done,
	// and the error naming each that failed.
	Several bool
	DryRun  cmdutil.DryRunStrategy
	// Yes skips the confirmation (--yes).
	Yes bool
	// Terminal says whether standard input and error are a terminal (nil: not).
	Terminal func() bool
	// Confirm asks the one question (the command's y/N prompt) when Asks.
	Confirm func(ready []rollout.Object, failed int) (bool, error)
	// Client makes the client, once (Clientset).
	Client func() (kubernetes.Interface, error)

	client kubernetes.Interface
}

// WritesView is what RunWrites tells (printer.BatchReport and printer.PrintNoneSelected).
type WritesView interface {
	BatchReport
	// NoneSelected is a selection that matched nothing (not an error).
	NoneSelected(namespace string)
}

// Asks reports whether the verb asks once before writing: several Deployments, a real run,
// no --yes.
func (w *Writes) Asks() bool {
	return w.Several && w.DryRun == cmdutil.DryRunNone && !w.Yes
}

// CheckConfirm refuses, before anything is read, a run that would have to ask without a
// terminal to ask on.
func (w *Writes) CheckConfirm() error {
	if !w.Asks() || (w.Terminal != nil && w.Terminal()) {
		return nil
	}
	return fmt.Errorf("standard input is not a terminal, so %s cannot ask before changing several Deployments: pass --yes to %s them without asking, or --dry-run=client to preview only", w.Verb, w.Verb)
}

// Clientset returns the client, made once.
func (w *Writes) Clientset() (kubernetes.Interface, error) {
	if w.client == nil {
		client, err := w.Client()
		if err != nil {
			return nil, err
		}
		w.client = client
	}
	return w.client, nil
}

// RunWrites runs b over w's Objects (RunBatch), asking once first (w.Confirm) when w Asks;
// v is told each result, failure and a declined confirmation. None selected is v's
// NoneSelected and no error. Errors: CheckConfirm's, RunBatch's.
func RunWrites[T any](ctx context.Context, w *Writes, b rollout.Batch[T], v WritesView) error {
	if len(w.Objects) == 0 {
		v.NoneSelected(w.Namespace)
		return nil
	}
	if err := w.CheckConfirm(); err != nil {
		return err
	}
	if w.Asks() {
		b.Confirm = w.Confirm
	}
	return RunBatch(ctx, w.Verb, w.Objects, w.Several, b, v)
}

// StallError is --fail-on-stall's refusal of a write whose plan the checks see stall: the
// command exits 3 (ExitStalled) and writes nothing. Its message names the Deployment, the
// step and the reason.
type StallError struct {
	Name  string
	Stall *feasibility.Stall
}

func (e *StallError) Error() string {
	return fmt.Sprintf("deployment %s stalls at step %d (%s): nothing written (--fail-on-stall)", e.Name, e.Stall.Step, e.Stall.Reason)
}

// RefuseStall is the StallError of a plan r stalls (Stalls), with failOnStall; nil otherwise.
func RefuseStall(failOnStall bool, name string, r *feasibility.Result) error {
	if !failOnStall || !Stalls(r) {
		return nil
	}
	return &StallError{Name: name, Stall: r.Stall}
}

// ObjectsOf returns the objects of refs, in order, or when refs is empty and not several the
// one Deployment one (a command's Target).
func ObjectsOf(refs []target.Ref, one target.Ref, several bool) []rollout.Object {
	if len(refs) == 0 && !several {
		refs = []target.Ref{one}
	}
	out := make([]rollout.Object, len(refs))
	for i, r := range refs {
		out[i] = rollout.Object{Namespace: r.Namespace, Name: r.Name}
	}
	return out
}

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

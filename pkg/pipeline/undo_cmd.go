package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// UndoView is what UndoCommand shows (printer.UndoView): the preview of each Deployment, and
// for --patch-only and -o kubectl's patch alone and its result line.
type UndoView interface {
	WritesView
	// LastApplied is kubectl's warning of a Deployment with last-applied-configuration.
	LastApplied(name string)
	// Preview prints one previewed rollback (the outcome, the diff, the plan).
	Preview(it *UndoItem) error
	// Patch prints kubectl's patch alone (json or yaml).
	Patch(u *rollout.Undo) error
	// Result prints kubectl's result line of one Deployment (stderr: stdout holds the patch);
	// dryRun false for an outcome that writes nothing anyway (skipped).
	Result(name, message string, dryRun bool) error
}

// UndoCommand is `kubectl rollplan undo` over a selection: each Deployment read and previewed
// (UndoRun.Read, Check, the view's Preview), one confirmation, then kubectl's guarded patch
// of each (UndoRun.Apply), as RunWrites composes them; or, for one Deployment, kubectl's
// patch alone (PatchOnly, Patch: -o json|yaml) and then the write unless PatchOnly.
type UndoCommand struct {
	*UndoRun
	Writes *Writes
	// PatchOnly is --patch-only: the patch alone, nothing written; Patch is -o: the patch
	// alone, then the write.
	PatchOnly, Patch bool
	// FailOnStall refuses a rollback whose plan stalls (StallError).
	FailOnStall bool
	View        UndoView
}

// Run runs the command. A Deployment without the revision, or paused, is named and the
// others are still rolled back. Errors: RunWrites'; for one Deployment its own (kubectl's
// refusal, StallError, the server's). A nil ctx is context.Background().
func (c *UndoCommand) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if c.PatchOnly || c.Patch {
		return c.runPatch(ctx)
	}
	return RunWrites(ctx, c.Writes, rollout.Batch[*UndoItem]{Preview: c.previewOne, Apply: c.Apply}, c.View)
}

// previewOne reads the Deployment, previews the rollback (with --dry-run=server, checked by
// the server) and shows the preview; kubectl's refusals (not found, paused) are shown and
// are the error.
func (c *UndoCommand) previewOne(ctx context.Context, ref rollout.Object) (*UndoItem, error) {
	it, err := c.preview(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := c.check(ctx, it, false); err != nil {
		return nil, err
	}
	return it, nil
}

// preview reads the Deployment, shows kubectl's last-applied-configuration warning if it
// applies, and previews the rollback (UndoRun.Read).
func (c *UndoCommand) preview(ctx context.Context, ref rollout.Object) (*UndoItem, error) {
	client, err := c.Writes.Clientset()
	if err != nil {
		return nil, err
	}
	it, err := c.Read(ctx, client, ref)
	if it != nil && it.LastApplied() {
		c.View.LastApplied(ref.Name)
	}
	return it, err
}

// runPatch is --patch-only and -o json|yaml (one Deployment): kubectl's patch alone, then
// (-o, a rollback) the write, with kubectl's result line.
func (c *UndoCommand) runPatch(ctx context.Context) error {
	objs := c.Writes.Objects
	if len(objs) != 1 || c.Writes.Several {
		return fmt.Errorf("--patch-only and -o print the patch of one Deployment: %d selected; name one", len(objs))
	}
	it, err := c.preview(ctx, objs[0])
	if err != nil {
		return err
	}
	if err := c.patch(it.Undo); err != nil || c.PatchOnly || it.Undo.Outcome != rollout.UndoRollBack {
		return err
	}
	if err := c.check(ctx, it, true); err != nil {
		return err
	}
	op, err := c.Apply(ctx, it)
	if err != nil {
		return err
	}
	return c.View.Result(objs[0].Name, op, true)
}

// patch shows kubectl's patch alone, or for an outcome without a patch kubectl's message
// (skipped: a result line, no error; refused, not found: the error).
func (c *UndoCommand) patch(u *rollout.Undo) error {
	switch u.Outcome {
	case rollout.UndoSkipped:
		return c.View.Result(c.Writes.Objects[0].Name, u.Message, false)
	case rollout.UndoRefused, rollout.UndoNotFound:
		return errors.New(u.Message)
	}
	return c.View.Patch(u)
}

// check checks a rollback with the server (--dry-run=server), runs the feasibility checks on
// its plan and shows the preview (unless quiet); a refused or not-found rollback is then the
// error, and with FailOnStall a plan that stalls (StallError).
func (c *UndoCommand) check(ctx context.Context, it *UndoItem, quiet bool) error {
	if err := c.Check(ctx, it); err != nil {
		return err
	}
	if !quiet {
		if err := c.View.Preview(it); err != nil {
			return err
		}
	}
	if it.Undo.Failed() {
		return errors.New(it.Undo.Message)
	}
	return RefuseStall(c.FailOnStall, it.State.Deployment.Name, it.Feasibility)
}

package pipeline

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// HeldOperation is the result word of resume on a Deployment drive holds.
const HeldOperation = "handed back by drive"

// ActionView is what ActionCommand shows (printer.ActionView): each Deployment's preview,
// and with -o over several Deployments their plans together.
type ActionView interface {
	WritesView
	// Preview prints one previewed action: the human form, or with -o its RolloutPlan (one
	// Deployment; several are printed by Plans).
	Preview(it *ActionItem) error
	// Plans prints the plans of several Deployments as one list (-o).
	Plans(items []*ActionItem) error
}

// ActionCommand is `kubectl rollplan pause`, `resume` or `restart` over a selection: each
// Deployment read and previewed (ActionRun.Preview, the view's Preview), one confirmation,
// then kubectl's guarded patch of each (ActionRun.Apply), as RunWrites composes them. A
// Deployment drive holds (ActionRun.Held took it) is handed back by HandBack instead.
type ActionCommand struct {
	*ActionRun
	Writes *Writes
	// Plans prints the plans of several Deployments together (-o), after all previews.
	Plans bool
	// FailOnStall refuses an action whose plan stalls (StallError).
	FailOnStall bool
	// HandBack writes the hand-back of a held Deployment (nil: none is held).
	HandBack func(ctx context.Context, client kubernetes.Interface, ref rollout.Object) error
	View     ActionView
}

// Run runs the command. Errors: RunWrites'; for one Deployment its own (kubectl's refusal,
// StallError, the server's). A nil ctx is context.Background().
func (c *ActionCommand) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	b := rollout.Batch[*ActionItem]{Preview: c.previewOne, Apply: c.apply}
	if c.Writes.Several && c.Plans {
		b.Previewed = c.View.Plans
	}
	return RunWrites(ctx, c.Writes, b, c.View)
}

// previewOne reads the Deployment, previews the verb (ActionRun.Preview; a held Deployment's
// preview is Held's) and shows the preview.
func (c *ActionCommand) previewOne(ctx context.Context, ref rollout.Object) (*ActionItem, error) {
	client, err := c.Writes.Clientset()
	if err != nil {
		return nil, err
	}
	it, err := c.Preview(ctx, client, ref)
	if it == nil || it.Held || err != nil {
		return it, err
	}
	if err := c.View.Preview(it); err != nil {
		return nil, err
	}
	return it, RefuseStall(c.FailOnStall, ref.Name, it.Feasibility)
}

// apply writes one previewed Deployment (nothing for a dry run) and returns kubectl's word;
// a Deployment drive holds is handed back (HeldOperation).
func (c *ActionCommand) apply(ctx context.Context, it *ActionItem) (string, error) {
	if it.Held {
		return HeldOperation, c.HandBack(ctx, it.Client, it.Ref)
	}
	return c.Apply(ctx, it)
}

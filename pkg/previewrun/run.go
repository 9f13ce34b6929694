// Package previewrun is "kubectl rollplan preview" for Deployments once its flags are read:
// which variant runs (one Deployment, a selection, several contexts, a manifest set, a set
// in several contexts), the pipeline calls of each (pkg/pipeline: Preview, PlanSet,
// PlanKindManifests), its printer calls (pkg/printer: PreviewView) and the exit it ends with
// (Exit), as pkg/driverun is drive's and pkg/reloadoneshot reload's. pkg/cmd fills a Config
// from the flags and calls Config.Run; nothing here writes to a cluster.
package previewrun

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Config is a preview's flags, complete and validated, and its I/O.
type Config struct {
	// Preview is the pipeline's config of the flags (its Change nil without a change flag).
	Preview *pipeline.Preview
	// View is how the plans print (-o, --max-steps, --summary, the change in words).
	View printer.PreviewView
	// FailOnStall is --fail-on-stall: exit 3 when a plan ends Stalled.
	FailOnStall bool
	// Filenames are -f/-R/-k: a manifest set (none given: no set).
	Filenames resource.FilenameOptions
	// Ref is the one Deployment named (a set's pick, or one Deployment's preview); Namespace
	// and EnforceNamespace are -n (or the kubeconfig's) and whether it was given.
	Ref              target.Ref
	Namespace        string
	EnforceNamespace bool
	// Client is the current context's clientset (one Deployment, a set).
	Client func() (kubernetes.Interface, error)
	// Selection is the selection of many Deployments (several names, -l, --all, -A; nil or
	// One: not many), FleetClient its clientset and ChunkSize --chunk-size.
	Selection   *target.Selection
	FleetClient func() (kubernetes.Interface, error)
	ChunkSize   int64
	// Contexts are the contexts resolved from --contexts/--all-contexts (more than one: the
	// preview runs in each) and Sources the Live Source of each, in order.
	Contexts []string
	Sources  func() ([]*pipeline.Live, []error)

	Out, ErrOut io.Writer
}

// preview is the state of one Run: the set's StatefulSet and DaemonSet rows and the file of
// each, and the namespaces read once.
type preview struct {
	*Config
	kindRows    []pipeline.KindRow
	kindSources []string
	fleets      pipeline.NamespaceCache
}

// Run previews what the flags select and prints it. Errors: the first that kept anything
// from being printed, or *Exit once everything is printed (a failure named on ErrOut, or a
// stall with FailOnStall).
func (c *Config) Run(ctx context.Context) error {
	o := &preview{Config: c}
	switch {
	case c.manyContexts() && c.manifests():
		return o.runSetContexts(ctx)
	case c.manyContexts():
		return o.runContexts(ctx)
	case c.manifests():
		return o.runSet(ctx)
	case c.Selection != nil && !c.Selection.One():
		return o.runFleet(ctx)
	}
	return o.runOne(ctx, c.Preview)
}

func (c *Config) manifests() bool {
	return len(c.Filenames.Filenames) > 0 || c.Filenames.Kustomize != ""
}

func (c *Config) manyContexts() bool { return len(c.Contexts) > 1 }

func (c *Config) now() time.Time { return c.Preview.Now() }

// runOne previews the change of the one Deployment o names (pipeline.Preview.PlanOne) with p.
func (o *preview) runOne(ctx context.Context, p *pipeline.Preview) error {
	r, err := p.PlanOne(ctx, o.Client, o.Ref)
	if err != nil {
		return err
	}
	if err := o.View.PrintOne(o.Out, r); err != nil {
		return err
	}
	if o.FailOnStall && r.Stalls() {
		return &Exit{Code: CodeStalled}
	}
	return nil
}

// runFleet previews every selected Deployment (pipeline.Preview.PlanMany): the change flags
// applied to each (as `kubectl set image -l` does), else the rest of its rollout. Human: the
// summary table, then each plan in full (--summary: the table only); -o: a RolloutPlanList
// (printer.PreviewView.PrintFleet). Failed Deployments are named on stderr, the others still
// printed; the exit is FleetExit's.
func (o *preview) runFleet(ctx context.Context) error {
	client := o.Client
	if client == nil {
		client = o.FleetClient // the reads, dry runs and pod LISTs of every Deployment: one clientset
	}
	sel, err := o.selection()
	if err != nil {
		return err
	}
	rs, err := o.Preview.PlanMany(ctx, client, sel)
	if err != nil {
		return err
	}
	results := printer.PreviewPlans(rs)
	if len(results) == 0 {
		fmt.Fprintln(o.ErrOut, printer.NoneFound(o.Selection.Scope().Namespace))
	}
	failed, stalled := printer.Tally(results)
	if err := o.View.PrintFleet(o.Out, results, false); err != nil {
		return err
	}
	names := printer.PrintFailures(o.ErrOut, failed, o.Selection.AllNamespaces)
	return FleetExit(names, stalled, o.FailOnStall)
}

// selection is the pipeline's Selection of the flags (pipeline.SelectionOf: the LIST of
// -l/--all/-A, or the names) with -n's enforcement. Errors: SelectionOf's (names ask nothing).
func (o *preview) selection() (pipeline.Selection, error) {
	ps, err := pipeline.SelectionOf(context.Background(), o.Selection)
	ps.ExplicitNamespace = o.Selection.EnforceNamespace
	return ps, err
}

// runContexts previews the selection in every context (pipeline.Preview.PlanContexts:
// DefaultSources at once). Human: one summary, CONTEXT first, then each plan headed by its
// context; -o: one RolloutPlanList whose items carry their context. A context that could not
// be read is one line on stderr ("error: context NAME: REASON"), a Deployment that could not
// be planned one line naming its context; the others are printed. Exit: FleetExit's for
// failed Deployments, else 1 when a context failed, else FleetExit's stall.
func (o *preview) runContexts(ctx context.Context) error {
	sel, err := o.selection()
	if err != nil {
		return err
	}
	sel.AllowMissing, sel.RequireNamespace = o.Preview.FromManifest, true
	srcs, errs := o.Sources()
	rs, errs := o.Preview.PlanContexts(ctx, srcs, errs, sel)
	results := printer.PreviewPlans(rs)
	if len(results) == 0 && !slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
		fmt.Fprintln(o.ErrOut, printer.NoneFound(o.Selection.Scope().Namespace))
	}
	failed, stalled := printer.Tally(results)
	if err := o.View.PrintFleet(o.Out, results, true); err != nil {
		return err
	}
	names, failedContexts := printer.PrintFleetContextFailures(o.ErrOut, o.Contexts, errs, results, o.Selection.AllNamespaces)
	if len(failed) == 0 && failedContexts > 0 {
		return &Exit{Code: CodeError}
	}
	return FleetExit(names, stalled, o.FailOnStall)
}

package reloadoneshot

import (
	"context"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// Report is how one run shows itself and asks, in the order Config.Run calls it; the
// command supplies it (pkg/printer's ReloadRun renders, with the command's y/N prompt).
type Report interface {
	// Assessed shows what the run would write (table and plans, or -o's list), before
	// anything is asked or written. Errors end the run: nothing is written.
	Assessed(c *Config, a *Assessment) error
	// Nothing says that nothing is to be written.
	Nothing()
	// Confirm asks once for all n writes (kinds: StatefulSets or DaemonSets among them);
	// false writes nothing. Errors (no way to ask) end the run.
	Confirm(n int, kinds bool) (bool, error)
	// Declined says that the writes were not confirmed.
	Declined()
	// Restarted shows the Deployments' results (after their writes, before the other
	// kinds'); KindsWritten then the StatefulSets' and DaemonSets'.
	Restarted(results []Result)
	KindsWritten(results []KindResult)
}

// Run is one run of `kubectl rollplan reload` without --watch: Assess through client,
// r.Assessed, the refusal (one line naming every refused workload: nothing written), then,
// when something is to be written, r.Confirm unless a dry run, and the writes: the
// Deployments (Restart; with ClientDryRun their DryRunResults), then the other kinds
// (WriteKinds, one at a time). Errors: Assess's, r's, the refusal, and the aggregate of
// every failed write (utilerrors.NewAggregate, Deployments first).
func (c *Config) Run(ctx context.Context, client kubernetes.Interface, r Report) error {
	a, err := c.Assess(ctx, client)
	if err != nil {
		return err
	}
	if err := r.Assessed(c, a); err != nil {
		return err
	}
	if err := a.Refusal(); err != nil {
		return err
	}
	n := a.Writes()
	if n == 0 {
		r.Nothing()
		return nil
	}
	if !c.ClientDryRun && !c.ServerDryRun {
		ok, err := r.Confirm(n, a.KindWrites() > 0)
		if err != nil {
			return err
		}
		if !ok {
			r.Declined()
			return nil
		}
	}
	results := a.DryRunResults()
	if !c.ClientDryRun {
		results = c.Restart(ctx, client, a)
	}
	r.Restarted(results)
	kinds := c.WriteKinds(ctx, client, a)
	r.KindsWritten(kinds)
	return Failures(results, kinds)
}

// Failures is the aggregate of the failed writes of results, then kinds, in order (nil:
// none failed).
func Failures(results []Result, kinds []KindResult) error {
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	for _, k := range kinds {
		if k.Err != nil {
			errs = append(errs, k.Err)
		}
	}
	return utilerrors.NewAggregate(errs)
}

// Contexts are the assessed targets of reload --contexts: every context's, flattened in
// order (Contexts[i] names the context of Targets[i]); Failed are the contexts that could
// not be read, in order, each with why (Names[i] failed with Errs[i]).
type Contexts struct {
	Targets  []*Target
	Contexts []string
	// Names are every context, in order (the count the human form names).
	Names []string
	// Failed and Errs are parallel: the contexts that could not be read and why.
	Failed []string
	Errs   []error
}

// RunContexts assesses c's Deployment selection in every context of names (srcs and errs
// parallel to it, as pipeline.Kubeconfig.Sources returns them) at the same time
// (AssessContexts): nothing is written and nothing is asked. Errors: the resolution of the
// selection's names; a context that could not be read is in Failed, not an error.
func (c *Config) RunContexts(ctx context.Context, names []string, srcs []*pipeline.Live, errs []error) (*Contexts, error) {
	per, err := c.AssessContexts(ctx, srcs, errs)
	if err != nil {
		return nil, err
	}
	out := &Contexts{Names: names}
	out.Targets, out.Contexts = Flatten(per, names)
	for i, r := range per {
		if r.Err != nil {
			out.Failed, out.Errs = append(out.Failed, names[i]), append(out.Errs, r.Err)
		}
	}
	return out, nil
}

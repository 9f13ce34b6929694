package reloadoneshot

import (
	"context"
	"sync"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// ContextTargets are the assessed targets of one context, or why it could not be read.
type ContextTargets struct {
	Targets []*Target
	Err     error
}

// AssessContexts assesses c's Deployment selection in every source at the same time
// (pipeline Source Select, then Assess with the source's client), for reload --contexts:
// nothing is written. srcs and errs are parallel (a nil source: errs holds why it could not
// be built); the result is parallel to them. The names of a non-bulk selection are resolved
// once first (pipeline.SelectionOf; Errors: that resolution's).
func (c *Config) AssessContexts(ctx context.Context, srcs []*pipeline.Live, errs []error) ([]ContextTargets, error) {
	ps, err := pipeline.SelectionOf(ctx, c.Selection)
	if err != nil {
		return nil, err
	}
	ps.ExplicitNamespace, ps.RequireNamespace = c.Selection.EnforceNamespace, true
	per := make([]ContextTargets, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		per[i].Err = errs[i]
		if src == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			per[i].Targets, per[i].Err = c.assessIn(ctx, src, ps)
		}()
	}
	wg.Wait()
	return per, nil
}

// assessIn reads the selection in src (-l/--all/-A: its opted-in Deployments, as Load) and
// assesses it with src's client. Errors: the Select's, a named Deployment's, Assess's.
func (c *Config) assessIn(ctx context.Context, src *pipeline.Live, ps pipeline.Selection) ([]*Target, error) {
	members, err := src.Select(ctx, ps)
	if err != nil {
		return nil, err
	}
	states, failed := actedOn(members, ps.Bulk)
	if failed != nil {
		return nil, failure(failed)
	}
	client, err := src.Client()
	if err != nil {
		return nil, err
	}
	return Assess(ctx, client, cluster.NewConfig(client), states,
		AssessOptions{Adopt: c.Adopt, Readiness: c.readiness()})
}

// Flatten lists the targets of every context in order, each with the name of its context
// (names is parallel to per).
func Flatten(per []ContextTargets, names []string) ([]*Target, []string) {
	var targets []*Target
	var contexts []string
	for i, r := range per {
		for _, t := range r.Targets {
			targets, contexts = append(targets, t), append(contexts, names[i])
		}
	}
	return targets, contexts
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// runSetContexts previews a manifest set (-f/-k; with a name, that Deployment of it) in every
// context: each context checks the set's namespaces (pipeline.Live.CheckNamespaces), then
// plans the set on its own live state (manifest.PlanSet, its reads and dry runs),
// pipeline.DefaultSources contexts at once; the set's StatefulSets and DaemonSets are planned
// in each context too (planSetKinds). Printed as runContexts prints, with the SOURCE
// column of a set, the kinds' table with its CONTEXT column after it. ConfigMaps and Secrets (config restarts) are previewed in one context only.
func (o *PreviewOptions) runSetContexts(ctx context.Context) error {
	set, err := o.readSetForContexts()
	if err != nil {
		return err
	}
	kinds := kindManifests(set)
	set.Others = slices.DeleteFunc(slices.Clone(set.Others), func(obj manifest.Object) bool { return pipeline.IsKindManifest(obj.Object) })
	srcs, errs := o.Contexts.sources()
	runs := make([]setRun, len(srcs))
	kindRows := make([][]printer.KindSummaryRow, len(srcs))
	var g errgroup.Group
	g.SetLimit(pipeline.DefaultSources)
	for i, live := range srcs {
		runs[i] = setRun{Context: o.Contexts.resolved[i], Err: errs[i]}
		if live == nil {
			continue
		}
		g.Go(func() error {
			if runs[i].Err = live.CheckNamespaces(ctx, setNamespaces(set)); runs[i].Err != nil {
				return nil
			}
			read := func(ctx context.Context, ns string) ([]cluster.Member, error) {
				return live.ReadNamespace(ctx, ns, o.Fleet.Select.ChunkSize)
			}
			kindRows[i] = o.planSetKinds(ctx, live, runs[i].Context, kinds)
			if len(set.Deployments) > 0 {
				runs[i].Results, runs[i].Err = manifest.PlanSet(ctx, set, o.preview().SetConfig(live, read))
			}
			return nil
		})
	}
	_ = g.Wait()
	for _, rows := range kindRows {
		for j, r := range rows {
			o.kindRows = append(o.kindRows, r)
			o.kindSources = append(o.kindSources, kinds[j].Source)
		}
	}
	err = o.printSets(set, runs, nil)
	if failed := o.reportKindErrors(); err == nil && failed > 0 {
		return NewExitError(ExitError, "")
	}
	return err
}

// readSetForContexts reads the set; with a name, keeps that Deployment only (in the named
// namespace). Errors: the set's, as runSet and runPicked give them; ConfigMaps or Secrets.
func (o *PreviewOptions) readSetForContexts() (*manifest.Set, error) {
	named := o.Name != ""
	opts := manifest.Options{Filenames: o.Filenames, Namespace: o.Namespace, EnforceNamespace: o.enforceNamespace && !named, In: o.In}
	if named {
		opts.Namespace = ""
	}
	set, err := manifest.Read(opts)
	if err != nil {
		return nil, err
	}
	if len(pipeline.ConfigObjects(set)) > 0 {
		return nil, errors.New("the ConfigMaps and Secrets of a manifest set (the restarts they cause) are previewed in one context: drop --contexts/--all-contexts, or those objects")
	}
	if named {
		obj, err := set.Pick(o.Ref)
		if err != nil {
			if len(set.Errors) > 0 {
				return nil, utilerrors.NewAggregate(set.Errors)
			}
			return nil, fmt.Errorf("%s: %w", o.filenamesWord(), err)
		}
		if obj.Object.GetNamespace() == "" {
			obj.Object.SetNamespace(o.Ref.Namespace)
		}
		set.Deployments = []manifest.Object{obj}
	}
	switch {
	case len(set.Deployments) == 0 && len(set.Errors) > 0:
		return nil, utilerrors.NewAggregate(set.Errors)
	case len(set.Deployments) == 0 && (named || len(kindManifests(set)) == 0):
		return nil, set.NoDeployment()
	}
	return set, nil
}

// setNamespaces are the namespaces of the set's Deployments, in order, once each.
func setNamespaces(set *manifest.Set) []string {
	var out []string
	for _, d := range set.Deployments {
		if ns := d.Ref().Namespace; !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

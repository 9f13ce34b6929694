package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// PlanSet plans every Deployment of set (manifest.PlanSet). Errors: PlanSet's.
func PlanSet(ctx context.Context, set *manifest.Set, cfg manifest.Config) ([]manifest.Result, error) {
	return manifest.PlanSet(ctx, set, cfg)
}

// SetRoute is what a preview does with the manifest set it read (SetRead.Route).
type SetRoute int

const (
	// SetPlanAll plans every Deployment of the set (PlanSet), its config restarts below.
	SetPlanAll SetRoute = iota
	// SetPickOne previews the one Deployment named (or the set's only one) as one preview.
	SetPickOne
	// SetKinds: the set holds StatefulSets or DaemonSets (IsKindManifest).
	SetKinds
	// SetConfigOnly: the set holds ConfigMaps and Secrets and no Deployment.
	SetConfigOnly
)

// SetRead is how preview reads a manifest set: -f/-R/-k, the namespace (-n or the
// kubeconfig's; "" offline without -n), whether -n was given, the Deployment named (Ref.Name
// "" for none) and standard input.
type SetRead struct {
	Filenames        resource.FilenameOptions
	Namespace        string
	EnforceNamespace bool
	Ref              target.Ref
	In               io.Reader
	// Offline is --state-file: config restarts are previewed against a cluster only.
	Offline bool
}

// read reads the set (manifest.Read); with a name its namespace is checked by Pick, so none
// is imposed here.
func (r SetRead) read() (*manifest.Set, error) {
	named := r.Ref.Name != ""
	opts := manifest.Options{Filenames: r.Filenames, Namespace: r.Namespace, EnforceNamespace: r.EnforceNamespace && !named, In: r.In}
	if named {
		opts.Namespace = "" // Pick checks the namespace, with today's error
	}
	return manifest.Read(opts)
}

// Read reads the set and routes it: without a name, StatefulSets or DaemonSets (SetKinds),
// else ConfigMaps and Secrets alone (SetConfigOnly); with a name, or exactly one Deployment
// (and no ConfigMap or Secret, or offline), SetPickOne; else SetPlanAll. Errors:
// manifest.Read's; with no Deployment to plan, the files' errors or the set's NoDeployment.
func (r SetRead) Read() (*manifest.Set, SetRoute, error) {
	set, err := r.read()
	if err != nil {
		return nil, 0, err
	}
	named := r.Ref.Name != ""
	if slices.ContainsFunc(set.Others, isKindObject) && !named {
		return set, SetKinds, nil
	}
	if objs := ConfigObjects(set); len(set.Deployments) == 0 && len(objs) > 0 && !named {
		return set, SetConfigOnly, nil
	}
	switch {
	case named || (len(set.Deployments) == 1 && (len(ConfigObjects(set)) == 0 || r.Offline)):
		return set, SetPickOne, nil
	case len(set.Deployments) == 0 && len(set.Errors) > 0:
		return nil, 0, utilerrors.NewAggregate(set.Errors)
	case len(set.Deployments) == 0:
		return nil, 0, set.NoDeployment()
	}
	return set, SetPlanAll, nil
}

func isKindObject(obj manifest.Object) bool { return IsKindManifest(obj.Object) }

// Pick returns the Deployment of set that r names (none named: the set's only one) and its
// manifest. Errors: the files' errors when some could not be read, else Pick's, prefixed
// with the files (FilenamesWord).
func (r SetRead) Pick(set *manifest.Set) (target.Ref, *unstructured.Unstructured, error) {
	ref := r.Ref
	if ref.Name == "" {
		ref = set.Deployments[0].Ref()
	}
	obj, err := r.pick(set, ref)
	return ref, obj.Object, err
}

// pick is set.Pick(ref) with Pick's errors.
func (r SetRead) pick(set *manifest.Set, ref target.Ref) (manifest.Object, error) {
	obj, err := set.Pick(ref)
	if err != nil {
		if len(set.Errors) > 0 {
			return obj, utilerrors.NewAggregate(set.Errors)
		}
		return obj, fmt.Errorf("%s: %w", r.FilenamesWord(), err)
	}
	return obj, nil
}

// FilenamesWord names the manifests in an error: the -f values, or the -k directory.
func (r SetRead) FilenamesWord() string {
	if r.Filenames.Kustomize != "" {
		return r.Filenames.Kustomize
	}
	return strings.Join(r.Filenames.Filenames, ",")
}

// ReadForContexts reads the set previewed across contexts; with a name, keeps that
// Deployment only (in the named namespace). Errors: the set's, as Read and Pick give them;
// ConfigMaps or Secrets (their restarts are previewed in one context only).
func (r SetRead) ReadForContexts() (*manifest.Set, error) {
	set, err := r.read()
	if err != nil {
		return nil, err
	}
	named := r.Ref.Name != ""
	if len(ConfigObjects(set)) > 0 {
		return nil, errors.New("the ConfigMaps and Secrets of a manifest set (the restarts they cause) are previewed in one context: drop --contexts/--all-contexts, or those objects")
	}
	if named {
		obj, err := r.pick(set, r.Ref)
		if err != nil {
			return nil, err
		}
		if obj.Object.GetNamespace() == "" {
			obj.Object.SetNamespace(r.Ref.Namespace)
		}
		set.Deployments = []manifest.Object{obj}
	}
	switch {
	case len(set.Deployments) == 0 && len(set.Errors) > 0:
		return nil, utilerrors.NewAggregate(set.Errors)
	case len(set.Deployments) == 0 && (named || !slices.ContainsFunc(set.Others, isKindObject)):
		return nil, set.NoDeployment()
	}
	return set, nil
}

// DropKindManifests removes the StatefulSets and DaemonSets from the set's other kinds (they
// are planned apart, PlanKindManifest), leaving the slice it shared untouched.
func DropKindManifests(set *manifest.Set) {
	set.Others = slices.DeleteFunc(slices.Clone(set.Others), isKindObject)
}

// SetNamespaces are the namespaces of the set's Deployments, in order, once each.
func SetNamespaces(set *manifest.Set) []string {
	var out []string
	for _, d := range set.Deployments {
		if ns := d.Ref().Namespace; !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// PlanSetContexts plans set in each context of srcs (nil: a context whose Source could not be
// made, its error in errs), DefaultSources at once: each checks the set's namespaces
// (Live.CheckNamespaces), then calls kinds (the set's StatefulSets and DaemonSets, by the
// caller; may be nil) and plans the Deployments on its own live state (PlanSet, its reads of
// chunkSize pages and its dry runs). It returns each context's Results and errs with the
// error of each context that failed.
func (p *Preview) PlanSetContexts(ctx context.Context, set *manifest.Set, srcs []*Live, errs []error, chunkSize int64, kinds func(ctx context.Context, i int, live *Live)) ([][]manifest.Result, []error) {
	results := make([][]manifest.Result, len(srcs))
	var g errgroup.Group
	g.SetLimit(DefaultSources)
	for i, live := range srcs {
		if live == nil {
			continue
		}
		g.Go(func() error {
			if errs[i] = live.CheckNamespaces(ctx, SetNamespaces(set)); errs[i] != nil {
				return nil
			}
			read := func(ctx context.Context, ns string) ([]cluster.Member, error) {
				return live.ReadNamespace(ctx, ns, chunkSize)
			}
			if kinds != nil {
				kinds(ctx, i, live)
			}
			if len(set.Deployments) > 0 {
				results[i], errs[i] = manifest.PlanSet(ctx, set, p.SetConfig(live, read))
			}
			return nil
		})
	}
	_ = g.Wait()
	return results, errs
}

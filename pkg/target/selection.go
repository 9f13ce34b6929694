package target

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// deploymentResource is the fully qualified resource ParseArgs' forms are normalised to
// before the builder maps them ("deployments.v1.apps", as schema.ParseResourceArg reads it).
const deploymentResource = "deployments.v1.apps"

// DefaultChunkSize is kubectl's --chunk-size default: the page size of a LIST.
const DefaultChunkSize int64 = 500

// Ref names one apps/v1 Deployment to act on. Namespace is empty only offline, when no
// namespace was given: "the one the state file says".
type Ref struct {
	Namespace string
	Name      string
}

// String returns "NAMESPACE/NAME", or "NAME" without a namespace.
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// DeploymentName is kubectl's name for a Deployment in every line about one of many:
// resource/name, "deployment.apps/NAME" (as kubectl's result lines, "deployment.apps/web
// restarted", name it), with " (namespace NS)" when withNamespace (a selection across
// namespaces). The one place the name is rendered: printer.DeploymentName and
// rollout.Object.String call it.
func DeploymentName(namespace, name string, withNamespace bool) string {
	if withNamespace {
		return fmt.Sprintf("deployment.apps/%s (namespace %s)", name, namespace)
	}
	return "deployment.apps/" + name
}

// Selection is what a command's arguments and selection flags select. With Many false (the
// zero value) it is today's one Deployment: the positional arguments in ParseArgs' forms, and
// the other fields stay empty. With Many it follows kubectl's rollout commands: several names
// (ParseNames), or -l/--selector, --all, -A (a LIST), or -f/-k (FilenameOptions).
type Selection struct {
	// Args are the positional arguments ("deploy/web", or "deployment" "web").
	Args []string
	// Namespace is the namespace of -n or the kubeconfig's context ("" offline without -n).
	Namespace string
	// EnforceNamespace: -n was given (kubectl's enforceNamespace; a manifest in another
	// namespace is then an error for the builder's FilenameParam).
	EnforceNamespace bool
	// Builder returns a fresh resource.Builder (see NewBuilder); nil resolves offline: the
	// arguments are parsed and nothing else is asked.
	Builder Builder
	// Retry is the policy of the selection's reads (kube.Read: a time for each attempt,
	// sent again whole through transient failures); the zero value is kube's defaults.
	Retry kube.Retry

	// Many accepts several Deployments (Choices.Many).
	Many bool
	// Selector is -l/--selector, a label query ("app=web,tier in (front)").
	Selector string
	// All is --all: every Deployment in the namespace.
	All bool
	// AllNamespaces is -A/--all-namespaces: the namespace is ignored; without -l, every
	// Deployment of the cluster.
	AllNamespaces bool
	// ChunkSize is --chunk-size, the page size of the LISTs (0: one page).
	ChunkSize int64
	// Filenames is -f/-R/-k (nil when the command has no such flags). The command reads the
	// manifests itself (FilenameParam of a builder of its own); Validate checks the
	// combinations kubectl refuses.
	Filenames *resource.FilenameOptions
}

// Bulk reports whether the Deployments come from a LIST (-l, --all or -A) rather than names.
func (s *Selection) Bulk() bool {
	return s.Many && (s.Selector != "" || s.All || s.AllNamespaces)
}

// One reports whether the selection is one Deployment given by name, in today's forms
// (ParseArgs: "NAME", "TYPE/NAME", "TYPE NAME"), with no -l, --all, -A or -f/-k: a command
// then reads and prints it as it always has (a RolloutPlan, not a list of one).
func (s *Selection) One() bool {
	return !s.Many || s.single()
}

// Manifests reports whether -f or -k was given: the command plans the manifests' objects.
func (s *Selection) Manifests() bool {
	return s.Filenames != nil && (len(s.Filenames.Filenames) > 0 || s.Filenames.Kustomize != "")
}

// Validate checks the arguments and flags alone and asks nothing. One Deployment (Many
// false): ParseArgs' rules and errors. Many: kubectl's errors (cli-runtime's resource.Builder
// words) with what to do: names with -l/--all ("name cannot be provided when a selector is
// specified"), -l with --all, names with -A ("a resource cannot be retrieved by name across
// all namespaces"), names or -A with -f/-k, -f with -k, an invalid selector, a negative
// --chunk-size, and nothing selected at all.
func (s *Selection) Validate() error {
	if s.One() {
		_, err := ParseArgs(s.Args)
		return err
	}
	names, typed, err := ParseNames(s.Args)
	if err != nil {
		return err
	}
	if err := s.validateFlags(); err != nil {
		return err
	}
	switch {
	case s.Manifests() && (len(names) > 0 || typed):
		return errors.New("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well: give -f/-k or names, not both")
	case s.Manifests() && (s.All || s.AllNamespaces):
		return errors.New("--all and -A/--all-namespaces select live Deployments: they do not go with -f/-k")
	case len(names) > 0 && (s.Selector != "" || s.All):
		return errors.New("name cannot be provided when a selector is specified: give names, or -l/--selector or --all, not both")
	case len(names) > 0 && s.AllNamespaces:
		return errors.New("a resource cannot be retrieved by name across all namespaces: drop -A/--all-namespaces and give the namespace with -n")
	case len(names) == 0 && !s.Bulk() && !s.Manifests():
		return errors.New("a Deployment is required: give deploy/NAME (or NAME), several names, -l/--selector, --all or -A")
	}
	return nil
}

// single reports whether Many's arguments are exactly today's one-Deployment form: one
// argument, or TYPE NAME, and no selection flag. ParseArgs keeps reading them, so that a
// Deployment named like a type ("deploy") still works as before.
func (s *Selection) single() bool {
	if s.Bulk() || s.Manifests() {
		return false
	}
	return len(s.Args) == 1 || len(s.Args) == 2 && IsDeploymentType(s.Args[0]) && !containsSlash(s.Args)
}

func containsSlash(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "/") })
}

func (s *Selection) validateFlags() error {
	if s.ChunkSize < 0 {
		return fmt.Errorf("--chunk-size %d: give 0 or more (0: no chunking)", s.ChunkSize)
	}
	if s.Selector != "" {
		if _, err := labels.Parse(s.Selector); err != nil {
			return fmt.Errorf("the provided selector %q is not valid: %v", s.Selector, err)
		}
		if s.All {
			return errors.New("setting 'all' parameter but found a non empty selector: give -l/--selector or --all, not both")
		}
	}
	if f := s.Filenames; f != nil {
		if len(f.Filenames) > 0 && f.Kustomize != "" {
			return errors.New("only one of -f or -k can be specified")
		}
		if f.Kustomize != "" && f.Recursive {
			return errors.New("the -k flag can't be used with -f or -R")
		}
	}
	return nil
}

// Resolve returns the Deployments the selection names, in order.
//
// Names (one, or several with Many) are parsed, then, with a Builder, visited through
// resource.Builder as kubectl rollout does (WithScheme, NamespaceParam, DefaultNamespace,
// ResourceTypeOrNameArgs, ContinueOnError, Flatten), one visit per object, with
// RequireObject(false): a name is not fetched, the command reads the object itself, so no
// request is made. -l/--all/-A (Bulk) make one paginated LIST through the builder (List).
// -f/-k are the command's to read: Resolve refuses them.
//
// Every attempt goes through kube.Read with s.Retry: its requests end with the attempt's
// time, and a transient failure (the API server restarting, 429, 5xx) is sent again whole.
//
// Errors: those of Validate; a Bulk selection offline (no Builder); every failed visit or
// object of another kind, collected with utilerrors.NewAggregate (the Refs that did resolve
// are returned with it); after retries, kube.Read's "(gave up after N attempts in D)"; ctx's.
func (s *Selection) Resolve(ctx context.Context) ([]Ref, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Manifests() {
		return nil, errors.New("-f/-k: the command reads the manifests itself (Selection.Filenames)")
	}
	if s.Bulk() {
		ds, err := s.List(ctx)
		refs := make([]Ref, 0, len(ds))
		for _, d := range ds {
			refs = append(refs, Ref{Namespace: d.Namespace, Name: d.Name})
		}
		return refs, err
	}
	names, err := s.names()
	if err != nil {
		return nil, err
	}
	if s.Builder == nil {
		refs := make([]Ref, 0, len(names))
		for _, n := range names {
			refs = append(refs, Ref{Namespace: s.Namespace, Name: n})
		}
		return refs, nil
	}
	args := make([]string, 0, len(names))
	for _, n := range names {
		args = append(args, deploymentResource+"/"+n)
	}
	var refs []Ref
	err = s.read(ctx, func(actx context.Context) error {
		refs = nil
		return s.visitNames(actx, args, func(info *resource.Info) {
			refs = append(refs, Ref{Namespace: info.Namespace, Name: info.Name})
		})
	})
	return refs, err
}

// read runs one read of the selection under kube.Read with s.Retry. A read that fails in
// part (some visits failed: not transient) keeps what it read.
func (s *Selection) read(ctx context.Context, fn func(actx context.Context) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	_, err := kube.Read(ctx, s.Retry, func(actx context.Context) (struct{}, error) {
		return struct{}{}, fn(actx)
	})
	return err
}

// visitNames visits the Deployments named by args (deployments.v1.apps/NAME each) without
// fetching them.
func (s *Selection) visitNames(ctx context.Context, args []string, fn func(*resource.Info)) error {
	r := s.Builder(ctx).
		WithScheme(scheme.Scheme, appsv1.SchemeGroupVersion).
		NamespaceParam(s.Namespace).DefaultNamespace().
		ResourceTypeOrNameArgs(true, args...).
		RequireObject(false).
		ContinueOnError().
		Flatten().
		Do()
	return visit(r, fn)
}

// names returns the names of a selection by name: ParseArgs' one, or ParseNames' many.
func (s *Selection) names() ([]string, error) {
	if s.One() {
		name, err := ParseArgs(s.Args)
		if err != nil {
			return nil, err
		}
		return []string{name}, nil
	}
	names, _, err := ParseNames(s.Args)
	return names, err
}

// List returns the Deployments a Bulk selection (-l, --all, -A) selects, as the API server
// returns them (namespace, then name), read through resource.Builder with one LIST
// (RequestChunksOf(ChunkSize): ceil(n/ChunkSize) pages, continue tokens followed by the
// builder) of deployments.v1.apps in Scope().Namespace with the label selector, through
// kube.Read with s.Retry: each attempt's requests end with its time (kube.AttemptTimeout),
// and the whole LIST is sent again after a transient failure. Errors: not a Bulk selection,
// offline (no Builder), the LIST's, aggregated, after retries with kube.Read's "(gave up
// after N attempts in D)"; ctx's.
func (s *Selection) List(ctx context.Context) ([]*appsv1.Deployment, error) {
	if !s.Bulk() {
		return nil, errors.New("not a selection by -l, --all or -A")
	}
	if s.Builder == nil {
		return nil, errors.New("-l, --all and -A select live Deployments: they need a cluster")
	}
	var out []*appsv1.Deployment
	err := s.read(ctx, func(actx context.Context) error {
		var err error
		out, err = s.list(actx)
		return err
	})
	return out, err
}

// list is one attempt of List: the paginated LIST under ctx.
func (s *Selection) list(ctx context.Context) ([]*appsv1.Deployment, error) {
	r := s.Builder(ctx).
		WithScheme(scheme.Scheme, appsv1.SchemeGroupVersion).
		NamespaceParam(s.Namespace).DefaultNamespace().AllNamespaces(s.AllNamespaces).
		ResourceTypes(deploymentResource). // not ResourceTypeOrNameArgs: its alias expansion asks discovery
		LabelSelectorParam(s.Selector).
		SelectAllParam(s.Selector == "").
		RequestChunksOf(s.ChunkSize).
		ContinueOnError().
		Flatten().
		Do()
	var out []*appsv1.Deployment
	var bad []error
	err := visit(r, func(info *resource.Info) {
		d, ok := info.Object.(*appsv1.Deployment)
		if !ok {
			bad = append(bad, fmt.Errorf("deployment %s/%s: decoded as %T", info.Namespace, info.Name, info.Object))
			return
		}
		out = append(out, d)
	})
	if err != nil {
		bad = append(bad, err)
	}
	return out, utilerrors.NewAggregate(bad)
}

// visit runs fn on every Deployment of r; failed visits and objects of another kind are
// collected with utilerrors.NewAggregate.
func visit(r *resource.Result, fn func(*resource.Info)) error {
	if err := r.Err(); err != nil {
		return err
	}
	var errs []error
	err := r.Visit(func(info *resource.Info, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if err := checkMapping(info.Mapping); err != nil {
			errs = append(errs, err)
			return nil
		}
		fn(info)
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return utilerrors.NewAggregate(errs)
}

// checkMapping refuses a mapping other than apps Deployments, with ParseName's message.
func checkMapping(m *meta.RESTMapping) error {
	if m.GroupVersionKind.GroupKind() == appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind() {
		return nil
	}
	res := m.Resource.Resource
	if m.Resource.Group != "" {
		res += "." + m.Resource.Group
	}
	return fmt.Errorf("rollplan works on Deployments; got %s", res)
}

package target

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/kubernetes/scheme"
)

// deploymentResource is the fully qualified resource ParseArgs' forms are normalised to
// before the builder maps them ("deployments.v1.apps", as schema.ParseResourceArg reads it).
const deploymentResource = "deployments.v1.apps"

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

// Selection is what a command's arguments and flags select: today the positional arguments
// naming one Deployment (ParseArgs' forms); the flags of kubectl's rollout commands (-l,
// --all, -A, -f) are the builder parameters still to come.
type Selection struct {
	// Args are the positional arguments ("deploy/web", or "deployment" "web").
	Args []string
	// Namespace is the namespace of -n or the kubeconfig's context ("" offline without -n).
	Namespace string
	// Builder returns a fresh resource.Builder (see NewBuilder); nil resolves offline: the
	// arguments are parsed and nothing else is asked.
	Builder func() *resource.Builder
}

// Validate checks the arguments alone (ParseArgs' rules and errors); it asks nothing.
func (s *Selection) Validate() error {
	_, err := ParseArgs(s.Args)
	return err
}

// Resolve returns the Deployments the selection names, in order: the arguments are parsed
// (ParseArgs), then, with a Builder, visited through resource.Builder as kubectl rollout does
// (WithScheme, NamespaceParam, DefaultNamespace, ResourceTypeOrNameArgs, ContinueOnError, Flatten), one
// visit per object. RequireObject(false): a name is not fetched, the command reads the object
// itself. Errors: those of ParseArgs, and every failed visit or object of another kind,
// collected with utilerrors.NewAggregate (the Refs that did resolve are returned with it).
func (s *Selection) Resolve() ([]Ref, error) {
	name, err := ParseArgs(s.Args)
	if err != nil {
		return nil, err
	}
	if s.Builder == nil {
		return []Ref{{Namespace: s.Namespace, Name: name}}, nil
	}
	r := s.Builder().
		WithScheme(scheme.Scheme, appsv1.SchemeGroupVersion).
		NamespaceParam(s.Namespace).DefaultNamespace().
		ResourceTypeOrNameArgs(true, deploymentResource+"/"+name).
		RequireObject(false).
		ContinueOnError().
		Flatten().
		Do()
	if err := r.Err(); err != nil {
		return nil, err
	}
	var refs []Ref
	var errs []error
	err = r.Visit(func(info *resource.Info, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if err := checkMapping(info.Mapping); err != nil {
			errs = append(errs, err)
			return nil
		}
		refs = append(refs, Ref{Namespace: info.Namespace, Name: info.Name})
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return refs, utilerrors.NewAggregate(errs)
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

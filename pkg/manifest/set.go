package manifest

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Object is one object of a manifest set as the files say it, with its namespace defaulted
// (see Read).
type Object struct {
	// Source is where it was read: the file, "STDIN", or the kustomization directory.
	Source string
	// Object is the object, unstructured (a Secret's data stays in it: never print it).
	Object *unstructured.Unstructured
}

// Ref returns the object's namespace and name.
func (o Object) Ref() target.Ref {
	return target.Ref{Namespace: o.Object.GetNamespace(), Name: o.Object.GetName()}
}

// Kind returns the object's kind ("Deployment", "ConfigMap", ...).
func (o Object) Kind() string { return o.Object.GetKind() }

// Set is a manifest set: what `kubectl apply -f FILE|DIR|- [-R]` or `-k DIR` would send,
// split into the apps/v1 Deployments rollplan plans and every other object.
type Set struct {
	// Deployments are the apps/v1 Deployments, in the order read (files in lexical order, as
	// kubectl walks a directory; documents in file order), each namespace/name once.
	Deployments []Object
	// Others are the objects of every other kind, in the order read: counted by kind in the
	// summary; the ConfigMaps and Secrets are what a config restart (pkg/reload) looks at.
	Others []Object
	// Errors are the files (or documents) that could not be read, each error naming its
	// source and the reason; the objects of the other files are still in the set.
	Errors []error
}

// KindCount is how many objects of a kind a set holds.
type KindCount struct {
	Kind  string
	Count int
}

// OtherKinds counts Others by kind, most first, then by kind name.
func (s *Set) OtherKinds() []KindCount {
	counts := map[string]int{}
	for _, o := range s.Others {
		counts[o.Kind()]++
	}
	var out []KindCount
	for k, n := range counts {
		out = append(out, KindCount{Kind: k, Count: n})
	}
	slices.SortFunc(out, func(a, b KindCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// Pick returns the Deployment ref.Name of the set, today's `preview NAME -f FILE`: the
// target is named and the manifest must hold it. Errors: the set holds no Deployment (the
// kinds it holds are named), none of that name (the ones it holds are named), or puts it in
// another namespace than ref.Namespace (when both are set).
func (s *Set) Pick(ref target.Ref) (Object, error) {
	for _, d := range s.Deployments {
		if d.Object.GetName() != ref.Name {
			continue
		}
		if ns := d.Object.GetNamespace(); ns != "" && ref.Namespace != "" && ns != ref.Namespace {
			return Object{}, fmt.Errorf("manifest puts Deployment %q in namespace %q, but the target is in %q: pass -n %s or fix metadata.namespace", ref.Name, ns, ref.Namespace, ns)
		}
		return d, nil
	}
	if len(s.Deployments) == 0 {
		return Object{}, s.NoDeployment()
	}
	var names []string
	for _, d := range s.Deployments {
		names = append(names, fmt.Sprintf("%q", d.Object.GetName()))
	}
	return Object{}, fmt.Errorf("manifest holds Deployment %s, not %q: the manifest must be for the target Deployment", strings.Join(names, ", "), ref.Name)
}

// NoDeployment is the error of a set without a Deployment: what it holds instead.
func (s *Set) NoDeployment() error {
	if len(s.Others) == 0 {
		return fmt.Errorf("manifest holds no object: expected an apps/v1 Deployment")
	}
	var kinds []string
	for _, k := range s.OtherKinds() {
		kinds = append(kinds, fmt.Sprintf("%d %s", k.Count, k.Kind))
	}
	return fmt.Errorf("manifest holds no Deployment (it holds %s): rollplan works on Deployments", strings.Join(kinds, ", "))
}

// Options say what to read and how namespaces are set: kubectl's -f/-R/-k and -n.
type Options struct {
	// Filenames are -f (files, directories, URLs, "-" for In), -R and -k.
	Filenames resource.FilenameOptions
	// Namespace is the command's namespace (-n or the kubeconfig's): objects of the kinds
	// known to be namespaced (namespacedKinds) that give none get it.
	Namespace string
	// EnforceNamespace (-n given) refuses an object of another namespace, as kubectl apply
	// does ("the namespace from the provided object ... does not match").
	EnforceNamespace bool
	// In is read for "-f -".
	In io.Reader
}

// namespacedKinds are the core and apps kinds a manifest may leave without a namespace that
// the set needs one for: the Deployments, StatefulSets and DaemonSets it plans and the ConfigMaps and Secrets a config
// restart reads. Other kinds keep the namespace the file gives (the set only counts them).
var namespacedKinds = map[string]bool{"Deployment": true, "ConfigMap": true, "Secret": true, "StatefulSet": true, "DaemonSet": true}

// Read reads a manifest set through cli-runtime's resource.Builder, as kubectl apply and diff
// read -f/-R/-k (FilenameParam, Flatten: a v1 List is its items; a kustomization is built
// with the builder's kustomize), in local mode: no discovery and no request, so it works
// offline, and an object of a kind the server does not know is still counted.
//
// Errors: a bad flag combination or a path that does not exist fails the whole read (as in
// kubectl); a file that does not parse, an object without a kind, a Deployment of another
// apiVersion than apps/v1 or with fields the type does not have, a Deployment given twice
// and an object of another namespace under EnforceNamespace go to Set.Errors, and the rest
// is read.
func Read(o Options) (*Set, error) {
	fo := o.Filenames
	b := resource.NewLocalBuilder().Unstructured().ContinueOnError().
		NamespaceParam(o.Namespace).DefaultNamespace()
	stdin := slices.Contains(fo.Filenames, "-")
	if stdin {
		fo.Filenames = slices.DeleteFunc(slices.Clone(fo.Filenames), func(f string) bool { return f == "-" })
		b = b.Stream(o.In, "STDIN")
	}
	if len(fo.Filenames) > 0 || fo.Kustomize != "" || fo.Recursive {
		b = b.FilenameParam(false, &fo) // EnforceNamespace is checked in add, to name the file
	}
	r := b.Flatten().Do()
	if err := r.Err(); err != nil {
		return nil, err
	}
	s := &Set{}
	seen := map[target.Ref]string{}
	err := r.Visit(func(info *resource.Info, err error) error {
		if err != nil {
			return err
		}
		return s.add(info, o, seen)
	})
	s.Errors = append(s.Errors, flatten(err)...)
	return s, nil
}

// add puts one visited object into the set.
func (s *Set) add(info *resource.Info, opts Options, seen map[target.Ref]string) error {
	u, ok := info.Object.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("%s: %s %q: decoded as %T", info.Source, info.Object.GetObjectKind().GroupVersionKind().Kind, info.Name, info.Object)
	}
	ns := u.GetNamespace()
	if opts.EnforceNamespace && ns != "" && ns != opts.Namespace {
		// resource.RequireNamespace's words, with the file.
		return fmt.Errorf("%s: the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", info.Source, ns, opts.Namespace, ns)
	}
	if ns == "" && namespacedKinds[u.GetKind()] {
		u.SetNamespace(opts.Namespace)
	}
	o := Object{Source: info.Source, Object: u}
	gvk := u.GroupVersionKind()
	if gvk.Kind != "Deployment" || gvk.Group != appsv1.GroupName {
		s.Others = append(s.Others, o)
		return nil
	}
	if gvk.Version != "v1" {
		return fmt.Errorf("%s: Deployment %q has apiVersion %s: use apps/v1", info.Source, u.GetName(), u.GetAPIVersion())
	}
	if prev, dup := seen[o.Ref()]; dup {
		return fmt.Errorf("%s: Deployment %s is given twice (also in %s): kubectl would apply both, the last one winning; keep one", info.Source, o.Ref(), prev)
	}
	if _, err := change.DecodeDeployment(u); err != nil {
		return fmt.Errorf("%s: %w", info.Source, err)
	}
	seen[o.Ref()] = info.Source
	s.Deployments = append(s.Deployments, o)
	return nil
}

// flatten returns the errors of err, an aggregate of the builder's visits, one by one, each
// made one line.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) {
		return []error{oneLine(err)}
	}
	var out []error
	for _, e := range utilerrors.Flatten(agg).Errors() {
		out = append(out, oneLine(e))
	}
	return out
}

// oneLine keeps the first line of err's message (the builder quotes a whole object after an
// "Object 'Kind' is missing" decode error: cut there, so a Secret's data is never shown).
func oneLine(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "Object 'Kind' is missing in '"); i >= 0 {
		return fmt.Errorf("%sobject has no kind: every object needs apiVersion and kind", msg[:i])
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return errors.New(strings.TrimSpace(msg[:i]))
	}
	return err
}

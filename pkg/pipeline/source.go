package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Selection is what a command selects, resolved from its arguments and flags by pkg/target:
// the Deployments named (Refs), or, when Bulk (-l, --all, -A), every Deployment of Scope.
type Selection struct {
	// Refs are the named Deployments, in order (ignored when Bulk). A Ref's Namespace is ""
	// only offline without -n ("as the state file says").
	Refs []target.Ref
	// Bulk: the Deployments come from a LIST of Scope (one per Source), not from Refs.
	Bulk bool
	// Scope is the namespace ("" with -A), label selector and page size of a Bulk selection.
	Scope target.Scope
	// ExplicitNamespace: -n was given. Without it a Live Source of another context uses that
	// context's namespace (kubectl --context X's).
	ExplicitNamespace bool
	// AllowMissing turns a named Deployment that is not found into an empty State (a
	// manifest's Deployment not created yet: -f creates it).
	AllowMissing bool
	// RequireNamespace: a Live Source first GETs the namespace it reads (not with -A), so that
	// a cluster that lacks it, cannot be reached or refuses the credentials fails as a whole
	// (one error) rather than listing nothing. A GET that is forbidden is no failure.
	RequireNamespace bool
}

// Member is one selected Deployment of one Source: its State, or Err saying why it has none
// (not found, an invalid selector). Source is the Source's Name (the kubeconfig context;
// "" for the current context or a state file).
type Member struct {
	Source string
	target.Ref
	State *cluster.State
	Err   error
}

// Source is where state comes from. Select is the one way a Selection becomes Deployments.
//
// Errors of Select: the client's (kubeconfig, credentials) and a failed LIST of a Bulk
// selection (nothing can be planned from the Source then); a named Deployment's own failure
// is its Member's Err.
type Source interface {
	// Name is the context's name ("" for the current context or a file).
	Name() string
	// Live reports whether the state is a cluster's (a file has no pods to measure and no
	// server to dry-run against).
	Live() bool
	// Client returns the Source's clientset, built once; a File has none (an error).
	Client() (kubernetes.Interface, error)
	Select(ctx context.Context, sel Selection) ([]Member, error)
}

// Live is one kubeconfig context, read live: GETs and paginated LISTs through kube.Read (the
// retry of transient failures of every read).
type Live struct {
	// Context is the context's name ("" for the current context: Name is then "").
	Context string
	// Namespace is the context's namespace, used when the Selection's was not given with -n
	// ("" keeps the Selection's, already the current context's).
	Namespace string
	// RetryFor bounds the retries of each read's transient failures (0: kube.TransientTimeout,
	// 30 s); a preview across contexts gives an unreachable one less (ContextRetry).
	RetryFor time.Duration
	client   func() (kubernetes.Interface, error)
}

// ContextRetry is how long a read of one context of several is retried through transient
// failures (a refused connection, 5xx): its cluster is then reported unreachable and the
// others are still printed, without waiting kube.TransientTimeout.
const ContextRetry = 5 * time.Second

// NewLive returns the Live Source of context reached with client (called once, on first
// use, so that a Source never used builds nothing).
func NewLive(context, namespace string, client func() (kubernetes.Interface, error)) *Live {
	return &Live{Context: context, Namespace: namespace, client: sync.OnceValues(client)}
}

func (l *Live) Name() string                          { return l.Context }
func (l *Live) Live() bool                            { return true }
func (l *Live) Client() (kubernetes.Interface, error) { return l.client() }

// Select reads sel from the cluster: Bulk, two paginated LISTs (cluster.LoadFleet) whatever
// the number of Deployments; names, a GET and a LIST each (cluster.LoadLive), in order.
func (l *Live) Select(ctx context.Context, sel Selection) ([]Member, error) {
	cs, err := l.Client()
	if err != nil {
		return nil, err
	}
	retry := l.retry()
	if sel.RequireNamespace {
		if err := l.requireNamespace(ctx, retry, cs, sel); err != nil {
			return nil, err
		}
	}
	if sel.Bulk {
		sc := sel.Scope
		if sc.Namespace != "" && l.Namespace != "" && !sel.ExplicitNamespace {
			sc.Namespace = l.Namespace
		}
		ms, err := kube.Read(ctx, retry, func(ctx context.Context) ([]cluster.Member, error) {
			return cluster.LoadFleet(ctx, cs, cluster.Scope{Namespace: sc.Namespace, LabelSelector: sc.LabelSelector, ChunkSize: sc.ChunkSize})
		})
		if err != nil {
			return nil, err
		}
		return l.members(ms), nil
	}
	out := make([]Member, 0, len(sel.Refs))
	for _, ref := range sel.Refs {
		if l.Namespace != "" && !sel.ExplicitNamespace {
			ref.Namespace = l.Namespace
		}
		st, err := kube.Read(ctx, retry, func(ctx context.Context) (*cluster.State, error) {
			return cluster.LoadLive(ctx, cs, ref.Namespace, ref.Name)
		})
		if err != nil && sel.AllowMissing && apierrors.IsNotFound(err) {
			st, err = &cluster.State{Source: "cluster"}, nil
		}
		out = append(out, Member{Source: l.Context, Ref: ref, State: st, Err: err})
	}
	return out, nil
}

// retry is the policy of the Source's reads.
func (l *Live) retry() kube.Retry {
	if l.RetryFor > 0 {
		return kube.Retry{Deadline: time.Now().Add(l.RetryFor)}
	}
	return kube.Retry{}
}

// ReadNamespace returns every Deployment of namespace ns with its State (cluster.LoadFleet,
// two paginated LISTs of chunk items a page, retried): a manifest set's Read
// (manifest.Config.Read). Errors: the client's and LoadFleet's.
func (l *Live) ReadNamespace(ctx context.Context, ns string, chunk int64) ([]cluster.Member, error) {
	cs, err := l.Client()
	if err != nil {
		return nil, err
	}
	return kube.Read(ctx, l.retry(), func(ctx context.Context) ([]cluster.Member, error) {
		return cluster.LoadFleet(ctx, cs, cluster.Scope{Namespace: ns, ChunkSize: chunk})
	})
}

// CheckNamespaces GETs each of nss ("" skipped), as Selection.RequireNamespace does: the
// Source fails as a whole when its cluster cannot be reached, refuses the credentials or
// lacks a namespace. Errors: the client's, "namespace NS not found", the GET's (not
// Forbidden).
func (l *Live) CheckNamespaces(ctx context.Context, nss []string) error {
	cs, err := l.Client()
	if err != nil {
		return err
	}
	var refs []target.Ref
	for _, ns := range nss {
		refs = append(refs, target.Ref{Namespace: ns})
	}
	return l.requireNamespace(ctx, l.retry(), cs, Selection{Refs: refs, ExplicitNamespace: true})
}

// requireNamespace GETs the namespaces sel reads in (none with -A). Errors: the GET's (not
// found: "namespace NS not found"), but Forbidden (a user may read Deployments without
// reading namespaces).
func (l *Live) requireNamespace(ctx context.Context, retry kube.Retry, cs kubernetes.Interface, sel Selection) error {
	var nss []string
	switch {
	case sel.Bulk && sel.Scope.Namespace != "":
		nss = []string{sel.Scope.Namespace}
		if l.Namespace != "" && !sel.ExplicitNamespace {
			nss = []string{l.Namespace}
		}
	case !sel.Bulk:
		for _, ref := range sel.Refs {
			ns := ref.Namespace
			if l.Namespace != "" && !sel.ExplicitNamespace {
				ns = l.Namespace
			}
			if ns != "" && !slices.Contains(nss, ns) {
				nss = append(nss, ns)
			}
		}
	}
	for _, ns := range nss {
		_, err := kube.Read(ctx, retry, func(ctx context.Context) (*corev1.Namespace, error) {
			return cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		})
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Errorf("namespace %s not found", ns)
		case apierrors.IsUnauthorized(err):
			return fmt.Errorf("the server refused the credentials (%w): check the context's user", err)
		case apierrors.IsForbidden(err):
		case err != nil:
			return err
		}
	}
	return nil
}

func (l *Live) members(ms []cluster.Member) []Member {
	out := make([]Member, 0, len(ms))
	for _, m := range ms {
		ref := target.Ref{Namespace: m.Deployment.Namespace, Name: m.Deployment.Name}
		out = append(out, Member{Source: l.Context, Ref: ref, State: m.State, Err: m.Err})
	}
	return out
}

// File is a state file ('kubectl get deploy,rs -o yaml|json' output; "-" reads standard
// input, once).
type File struct {
	Path string
	all  func() ([]cluster.Member, error)
}

// NewFile returns the Source of the state file at path.
func NewFile(path string) *File {
	return &File{Path: path, all: sync.OnceValues(func() ([]cluster.Member, error) { return cluster.LoadFileAll(path) })}
}

func (f *File) Name() string { return "" }
func (f *File) Live() bool   { return false }
func (f *File) Client() (kubernetes.Interface, error) {
	return nil, fmt.Errorf("state file %s: no cluster to ask", f.Path)
}

// Select reads sel from the file: Bulk, every Deployment of the file in sel.Scope (its
// namespace, "" for all with -A, and label selector, as the API server filters a LIST), in
// the API server's order (namespace, then name); names, cluster.LoadFile each (its errors:
// not found, ambiguous), in the order given.
func (f *File) Select(_ context.Context, sel Selection) ([]Member, error) {
	if sel.Bulk {
		ms, err := f.all()
		if err != nil {
			return nil, err
		}
		var out []Member
		for _, m := range ms {
			if !sel.Scope.Matches(m.Deployment) {
				continue
			}
			out = append(out, Member{Ref: target.Ref{Namespace: m.Deployment.Namespace, Name: m.Deployment.Name}, State: m.State, Err: m.Err})
		}
		slices.SortStableFunc(out, func(a, b Member) int {
			return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
		})
		return out, nil
	}
	out := make([]Member, 0, len(sel.Refs))
	for _, ref := range sel.Refs {
		st, err := cluster.LoadFile(f.Path, ref.Namespace, ref.Name)
		if st != nil && ref.Namespace == "" {
			ref.Namespace = st.Deployment.Namespace
		}
		out = append(out, Member{Ref: ref, State: st, Err: err})
	}
	return out, nil
}

package cluster

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"
)

// Scope is what a fleet read lists: Deployments in Namespace ("": every namespace) whose
// labels match LabelSelector ("": all), in pages of ChunkSize items (kubectl's --chunk-size;
// 0: one page). pkg/target's Selection.Scope gives it.
type Scope struct {
	Namespace     string
	LabelSelector string
	ChunkSize     int64
}

// Member is one Deployment of a fleet read: its State, or Err saying why it has none (an
// invalid spec.selector). Deployment is the Deployment as listed either way.
type Member struct {
	Deployment *appsv1.Deployment
	State      *State
	Err        error
}

// LoadFleet reads the Deployments of scope and the ReplicaSets their controller claims with
// two paginated LISTs, whatever the number of Deployments: Deployments in scope.Namespace
// with scope.LabelSelector, then every ReplicaSet of scope.Namespace (cluster-wide when it is
// ""), each in pages of scope.ChunkSize followed by continue tokens (client-go tools/pager,
// which falls back to one full LIST if a continue token expires). ReplicaSets are grouped with
// GroupReplicaSets. The members are in the API server's order (namespace, then name); an
// empty scope gives none and no error.
//
// Errors: a failed LIST, in LoadLive's words (liveError: a Forbidden response names the verb
// and resource to ask for). A Deployment that cannot be grouped is a Member with Err, not an
// error of the read.
func LoadFleet(ctx context.Context, client kubernetes.Interface, scope Scope) ([]Member, error) {
	var ds []*appsv1.Deployment
	err := listPages(ctx, scope, metav1.ListOptions{LabelSelector: scope.LabelSelector},
		func(opts metav1.ListOptions) (runtime.Object, error) {
			return client.AppsV1().Deployments(scope.Namespace).List(ctx, opts)
		},
		func(obj runtime.Object) error {
			d, ok := obj.(*appsv1.Deployment)
			if !ok {
				return fmt.Errorf("list deployments: got %T", obj)
			}
			ds = append(ds, d)
			return nil
		})
	if err != nil {
		return nil, fleetError("deployments", scope.Namespace, err)
	}
	if len(ds) == 0 {
		return nil, nil
	}
	var rss []*appsv1.ReplicaSet
	err = listPages(ctx, scope, metav1.ListOptions{},
		func(opts metav1.ListOptions) (runtime.Object, error) {
			return client.AppsV1().ReplicaSets(scope.Namespace).List(ctx, opts)
		},
		func(obj runtime.Object) error {
			rs, ok := obj.(*appsv1.ReplicaSet)
			if !ok {
				return fmt.Errorf("list replicasets: got %T", obj)
			}
			rss = append(rss, rs)
			return nil
		})
	if err != nil {
		return nil, fleetError("replicasets", scope.Namespace, err)
	}
	return GroupReplicaSets(ds, rss, "cluster"), nil
}

// fleetError is liveError for a LIST of resource in namespace, or, with namespace "" (-A),
// in every namespace: a Forbidden response then names the cluster-wide permission to ask for.
func fleetError(resource, namespace string, err error) error {
	if namespace != "" || !apierrors.IsForbidden(err) {
		return liveError("list", resource, namespace, "", err)
	}
	return &apiError{err: err, msg: fmt.Sprintf(
		"list %s.apps in all namespaces: forbidden: rollplan needs permission to list %s (apps) cluster-wide for -A; check with `kubectl auth can-i list %s.apps -A`, or give a namespace with -n (%v)",
		resource, resource, resource, err)}
}

// listPages lists with a pager of page size scope.ChunkSize and calls each on every item.
func listPages(ctx context.Context, scope Scope, opts metav1.ListOptions, list func(metav1.ListOptions) (runtime.Object, error), each func(runtime.Object) error) error {
	p := pager.New(pager.SimplePageFunc(list))
	p.PageSize = scope.ChunkSize
	return p.EachListItem(ctx, opts, each)
}

// GroupReplicaSets gives each Deployment of ds the ReplicaSets of rss its controller claims,
// with the single-Deployment rules of LoadLive (newState and claimOf: controller ownerRef
// with the Deployment's UID and labels matching its selector; orphans adopted; ReplicaSets of
// another controller Foreign), one Member per Deployment in the order of ds. rss may hold
// ReplicaSets of any namespace.
//
// Cost: the ReplicaSets are indexed by namespace and by label pair once; a Deployment whose
// selector has an equality or set-based "in" requirement is matched against only the
// ReplicaSets carrying one of that requirement's label pairs (a ReplicaSet without it cannot
// match the selector), so a namespace of D Deployments and R ReplicaSets costs about R + D
// selector matches instead of D x R. A selector with no such requirement is matched against
// every ReplicaSet of its namespace.
func GroupReplicaSets(ds []*appsv1.Deployment, rss []*appsv1.ReplicaSet, source string) []Member {
	idx := newLabelIndex(rss)
	out := make([]Member, 0, len(ds))
	for _, d := range ds {
		st, err := newState(d, idx.candidates(d), source)
		out = append(out, Member{Deployment: d, State: st, Err: err})
	}
	return out
}

// labelIndex holds ReplicaSets by namespace, and by namespace and "key=value" label pair.
type labelIndex struct {
	byNamespace map[string][]*appsv1.ReplicaSet
	byLabel     map[string]map[string][]*appsv1.ReplicaSet
}

func newLabelIndex(rss []*appsv1.ReplicaSet) *labelIndex {
	idx := &labelIndex{byNamespace: map[string][]*appsv1.ReplicaSet{}, byLabel: map[string]map[string][]*appsv1.ReplicaSet{}}
	for _, rs := range rss {
		idx.byNamespace[rs.Namespace] = append(idx.byNamespace[rs.Namespace], rs)
		m := idx.byLabel[rs.Namespace]
		if m == nil {
			m = map[string][]*appsv1.ReplicaSet{}
			idx.byLabel[rs.Namespace] = m
		}
		for k, v := range rs.Labels {
			m[k+"="+v] = append(m[k+"="+v], rs)
		}
	}
	return idx
}

// candidates returns the ReplicaSets of d's namespace that may match d's selector: those
// with a label pair of its first equality or "in" requirement, else every one of the
// namespace. A selector that does not parse gets every one (newState reports the error).
func (idx *labelIndex) candidates(d *appsv1.Deployment) []*appsv1.ReplicaSet {
	sel, err := deploymentSelector(d)
	if err != nil {
		return nil
	}
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
		default:
			continue
		}
		var out []*appsv1.ReplicaSet
		for _, v := range r.Values().List() {
			out = append(out, idx.byLabel[d.Namespace][r.Key()+"="+v]...)
		}
		return out
	}
	return idx.byNamespace[d.Namespace]
}

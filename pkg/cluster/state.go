package cluster

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
)

// State is a Deployment as read and the ReplicaSets its controller would work with.
type State struct {
	// Deployment is the Deployment as read (spec, annotations and status), with TypeMeta
	// apps/v1 Deployment set.
	Deployment *appsv1.Deployment
	// ReplicaSets are the ReplicaSets the controller claims: those it owns (controller
	// ownerReference with the Deployment's UID) and the orphans it would adopt, sorted by
	// creation timestamp, then name (controller.ReplicaSetsByCreationTimestamp). This is what
	// planner.Input.ReplicaSets takes.
	ReplicaSets []*appsv1.ReplicaSet
	// Orphans are the members of ReplicaSets that have no controller ownerReference: the
	// controller's next sync adopts them ("will be adopted"). kubectl rollout history and undo
	// do not see them until then. Same pointers as in ReplicaSets, same order.
	Orphans []*appsv1.ReplicaSet
	// Foreign are ReplicaSets whose labels match the selector but that another controller
	// owns: the Deployment controller ignores them, but their pods may overlap (worth a
	// warning). Sorted like ReplicaSets.
	Foreign []*appsv1.ReplicaSet
	// Source says where the state was read: "cluster" or the file name.
	Source string
	// CheckObjects are, for a state file, the objects the feasibility checks read that the
	// file holds (ResourceQuotas, LimitRanges, PDBs and HPAs of the Deployment's namespace,
	// Nodes, Pods), a kind the file lacks nil with its reason; nil for a live read
	// (LoadCheckObjects reads them).
	CheckObjects *feasibility.Cluster
}

// IsOrphan reports whether rs is one of s.Orphans (compared by namespace and name).
func (s *State) IsOrphan(rs *appsv1.ReplicaSet) bool {
	return slices.ContainsFunc(s.Orphans, func(o *appsv1.ReplicaSet) bool {
		return o.Namespace == rs.Namespace && o.Name == rs.Name
	})
}

// Owned returns the ReplicaSets the Deployment already controls (ReplicaSets minus
// Orphans), in order: the set kubectl's rollout history and undo work on
// (deploymentutil.GetAllReplicaSets, k8s.io/kubectl/pkg/util/deployment).
func (s *State) Owned() []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range s.ReplicaSets {
		if !s.IsOrphan(rs) {
			out = append(out, rs)
		}
	}
	return out
}

// newState selects from candidates the ReplicaSets d's controller claims and builds the
// State. candidates may hold ReplicaSets of any namespace and labels.
func newState(d *appsv1.Deployment, candidates []*appsv1.ReplicaSet, source string) (*State, error) {
	selector, err := deploymentSelector(d)
	if err != nil {
		return nil, err
	}
	s := &State{Deployment: d, Source: source}
	for _, rs := range candidates {
		switch claimOf(d, selector, rs) {
		case claimOwned:
			s.ReplicaSets = append(s.ReplicaSets, rs)
		case claimAdopt:
			s.ReplicaSets = append(s.ReplicaSets, rs)
			s.Orphans = append(s.Orphans, rs)
		case claimForeign:
			s.Foreign = append(s.Foreign, rs)
		}
	}
	sortReplicaSets(s.ReplicaSets)
	sortReplicaSets(s.Orphans)
	sortReplicaSets(s.Foreign)
	setTypeMeta(d, s.ReplicaSets, s.Foreign)
	return s, nil
}

// deploymentSelector converts spec.selector, with an error naming the Deployment when it is
// missing or invalid. A nil selector would select nothing (labels.Nothing); the API server
// never stores one, so it is an error here.
func deploymentSelector(d *appsv1.Deployment) (labels.Selector, error) {
	if d.Spec.Selector == nil {
		return nil, fmt.Errorf("deployment %s/%s has no spec.selector: the API server requires one", d.Namespace, d.Name)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has an invalid spec.selector: %w", d.Namespace, d.Name, err)
	}
	return sel, nil
}

type claim int

const (
	claimNone    claim = iota // not selected, or being deleted, or another namespace
	claimOwned                // controlled by the Deployment and labels match
	claimAdopt                // orphan whose labels match: the controller adopts it
	claimForeign              // labels match but another controller owns it
)

// claimOf decides what the controller does with rs. It mirrors BaseControllerRefManager.
// ClaimObject (pkg/controller/controller_ref_manager.go, v1.36.3) without the writes: an
// owned ReplicaSet whose labels stopped matching would be released (claimNone here).
//
// A controller ownerReference matches when its UID is the Deployment's. When the Deployment
// has no UID (a hand-written state file), a controller ownerReference of kind Deployment with
// the Deployment's name matches instead.
func claimOf(d *appsv1.Deployment, selector labels.Selector, rs *appsv1.ReplicaSet) claim {
	if rs.Namespace != d.Namespace {
		return claimNone
	}
	matches := selector.Matches(labels.Set(rs.Labels))
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		switch {
		case !matches:
			return claimNone
		case isDeploymentRef(d, ref):
			return claimOwned
		default:
			return claimForeign
		}
	}
	if !matches || d.DeletionTimestamp != nil || rs.DeletionTimestamp != nil {
		return claimNone
	}
	return claimAdopt
}

func isDeploymentRef(d *appsv1.Deployment, ref *metav1.OwnerReference) bool {
	if d.UID != "" {
		return ref.UID == d.UID
	}
	return ref.Kind == "Deployment" && ref.Name == d.Name
}

// sortReplicaSets orders rss by creation timestamp, then name, as
// controller.ReplicaSetsByCreationTimestamp (pkg/controller/controller_utils.go, v1.36.3).
func sortReplicaSets(rss []*appsv1.ReplicaSet) {
	slices.SortStableFunc(rss, deployutil.ByCreationTimestamp)
}

// setTypeMeta fills apiVersion and kind, which typed clients leave empty, so printers and
// encoders see complete objects.
func setTypeMeta(d *appsv1.Deployment, rsLists ...[]*appsv1.ReplicaSet) {
	d.APIVersion, d.Kind = appsv1.SchemeGroupVersion.String(), "Deployment"
	for _, rss := range rsLists {
		for _, rs := range rss {
			rs.APIVersion, rs.Kind = appsv1.SchemeGroupVersion.String(), "ReplicaSet"
		}
	}
}

// StateOf returns the State of d among candidates (ReplicaSets of any namespace and labels,
// for example those of a watch cache): the ReplicaSets its controller claims, the orphans
// and the foreign ones, as LoadLive sorts them. d and candidates are not modified (cached
// objects): the State holds copies. Errors: a missing or invalid spec.selector.
func StateOf(d *appsv1.Deployment, candidates []*appsv1.ReplicaSet) (*State, error) {
	selector, err := deploymentSelector(d)
	if err != nil {
		return nil, err
	}
	var mine []*appsv1.ReplicaSet
	for _, rs := range candidates {
		if claimOf(d, selector, rs) != claimNone {
			mine = append(mine, rs.DeepCopy())
		}
	}
	return newState(d.DeepCopy(), mine, "cluster")
}

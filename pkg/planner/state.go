package planner

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// replicaSet is the planner's working copy of one ReplicaSet: the fields the controller's
// decisions read, and nothing else.
type replicaSet struct {
	idx     int // index into Plan.ReplicaSets and the creation order
	name    string
	created metav1.Time
	newest  bool // created after every other ReplicaSet (the new one, when Input.Now is zero)

	exists   bool // false for the new ReplicaSet until the plan creates it
	deleted  bool // deleted by cleanupDeployment during the plan
	isNew    bool // its template equals the Deployment's (ignoring pod-template-hash)
	deleting bool // metadata.deletionTimestamp is set

	// revision annotation: revisionSet says it is present, revisionErr that it does not parse.
	revision                 int64
	revisionSet, revisionErr bool
	revisionHistory          string

	replicas       int32 // spec.replicas
	statusReplicas int32 // status.replicas
	available      int32 // status.availableReplicas
	// ready (status.readyReplicas), pods and the counts of its Ready and available pods now
	// (which the status follows at each ReplicaSet controller catch-up) are kept under
	// ReadinessTimed only.
	ready                    int32
	pods                     []pod
	podsReady, podsAvailable int32
	// staleGeneration: metadata.generation > status.observedGeneration at the start and the
	// plan never writes this ReplicaSet (cleanupDeployment skips such a ReplicaSet).
	staleGeneration bool

	// The desired-replicas and max-replicas annotations as strings ("" when absent), and
	// whether the ReplicaSet has no annotations at all.
	desiredAnn, maxAnn string
	noAnnotations      bool
}

// before orders ReplicaSets as controller.ReplicaSetsByCreationTimestamp: creation time,
// then name.
func (rs *replicaSet) before(other *replicaSet) bool {
	if rs.newest != other.newest {
		return other.newest
	}
	if rs.created.Equal(&other.created) {
		return rs.name < other.name
	}
	return rs.created.Before(&other.created)
}

func newReplicaSetState(rs *appsv1.ReplicaSet) *replicaSet {
	s := &replicaSet{
		name:            rs.Name,
		created:         rs.CreationTimestamp,
		exists:          true,
		deleting:        rs.DeletionTimestamp != nil,
		replicas:        ptr.Deref(rs.Spec.Replicas, 1),
		statusReplicas:  rs.Status.Replicas,
		available:       rs.Status.AvailableReplicas,
		ready:           rs.Status.ReadyReplicas,
		staleGeneration: rs.Generation > rs.Status.ObservedGeneration,
		noAnnotations:   rs.Annotations == nil,
		desiredAnn:      rs.Annotations[deployutil.DesiredReplicasAnnotation],
		maxAnn:          rs.Annotations[deployutil.MaxReplicasAnnotation],
		revisionHistory: rs.Annotations[deployutil.RevisionHistoryAnnotation],
	}
	if _, ok := rs.Annotations[deployutil.RevisionAnnotation]; ok {
		s.revisionSet = true
		n, err := deployutil.Revision(rs)
		s.revision, s.revisionErr = n, err != nil
	}
	return s
}

// desiredReplicas parses the desired-replicas annotation as
// deploymentutil.GetDesiredReplicasAnnotation does (a non-negative int32).
func (rs *replicaSet) desiredReplicas() (int32, bool) { return nonNegativeInt32(rs.desiredAnn) }

// maxReplicas parses the max-replicas annotation as getMaxReplicasAnnotation does.
func (rs *replicaSet) maxReplicas() (int32, bool) { return nonNegativeInt32(rs.maxAnn) }

func nonNegativeInt32(s string) (int32, bool) {
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil || v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}

// readyCount is status.readyReplicas: under ReadinessTimed the pods that are Ready, under
// the other models the available ones (they have no minReadySeconds window).
func (rs *replicaSet) readyCount(r Readiness) int32 {
	if r == ReadinessTimed {
		return rs.ready
	}
	return rs.available
}

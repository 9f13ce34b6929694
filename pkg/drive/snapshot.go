package drive

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// Snapshot is one read of a held (or about to be held) Deployment: the Deployment, the
// ReplicaSets it controls, and its drive state.
type Snapshot struct {
	Deployment *appsv1.Deployment
	// ReplicaSets are the ReplicaSets the controller claims, oldest first.
	ReplicaSets []*appsv1.ReplicaSet
	// State is the drive state, nil when the Deployment is not held.
	State *State
}

// NewSnapshot reads the drive state of st.Deployment.
func NewSnapshot(st *cluster.State) (*Snapshot, error) {
	s := &Snapshot{Deployment: st.Deployment, ReplicaSets: st.ReplicaSets}
	var err error
	s.State, err = ReadState(st.Deployment)
	return s, err
}

// ReplicaSet returns the ReplicaSet called name, or nil.
func (s *Snapshot) ReplicaSet(name string) *appsv1.ReplicaSet {
	for _, rs := range s.ReplicaSets {
		if rs.Name == name {
			return rs
		}
	}
	return nil
}

// TargetName is the ReplicaSet the held drive walks to: the new one going forward, the
// previous one in an abort.
func (s *Snapshot) TargetName() string {
	if s.State.Phase == PhaseAbort {
		return s.State.PreviousReplicaSet
	}
	return s.State.NewReplicaSet
}

// Start returns the counts a held drive plans from: the target ReplicaSet and every other
// ReplicaSet with replicas, in scale-down order (in an abort the ReplicaSet walked back from
// first, then the others oldest first).
func (s *Snapshot) Start() Start {
	target := s.TargetName()
	st := Start{New: Counts{Name: target}}
	if rs := s.ReplicaSet(target); rs != nil {
		st.New = counts(rs)
		st.NewExists = true
	}
	var first []Counts
	for _, rs := range s.ReplicaSets {
		if rs.Name == target || replicas(rs) == 0 {
			continue
		}
		if s.State.Phase == PhaseAbort && rs.Name == s.State.NewReplicaSet {
			first = append(first, counts(rs))
			continue
		}
		st.Old = append(st.Old, counts(rs))
	}
	st.Old = append(first, st.Old...)
	return st
}

func counts(rs *appsv1.ReplicaSet) Counts {
	return Counts{Name: rs.Name, Replicas: replicas(rs), Available: rs.Status.AvailableReplicas}
}

func replicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// revisionOf is a ReplicaSet's revision (deployutil.Revision): 0 when the annotation is
// absent or does not parse.
func revisionOf(rs *appsv1.ReplicaSet) int64 {
	n, err := deployutil.Revision(rs)
	if err != nil {
		return 0
	}
	return n
}

// maxRevision is deployutil.MaxRevision over rss except the ReplicaSet named skip.
func maxRevision(rss []*appsv1.ReplicaSet, skip string) int64 {
	return deployutil.MaxRevision(slices.DeleteFunc(slices.Clone(rss), func(rs *appsv1.ReplicaSet) bool { return rs.Name == skip }))
}

// activeOld returns the ReplicaSets other than name that have replicas, oldest first.
func activeOld(rss []*appsv1.ReplicaSet, name string) []*appsv1.ReplicaSet {
	return slices.DeleteFunc(slices.Clone(rss), func(rs *appsv1.ReplicaSet) bool {
		return rs.Name == name || replicas(rs) == 0
	})
}

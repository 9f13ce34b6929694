package statefulset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Readiness is the assumption the planner plays between syncs about when pods become Ready
// (the same names as the Deployment planner's).
type Readiness string

const (
	// ReadinessBatched: when a sync writes nothing, every pod not Ready becomes Running and
	// Ready (at the current time); when nothing is left to become Ready, the clock moves to
	// the next moment a Ready pod becomes available (minReadySeconds); else the run ends.
	ReadinessBatched Readiness = "batched"
	// ReadinessInstant: after every sync that writes (a pod, a revision or the status), every
	// pod not Ready becomes Running and Ready; between syncs that write nothing the clock moves
	// as under batched.
	ReadinessInstant Readiness = "instant"
	// ReadinessNever: no pod becomes Ready; the clock still moves for pods Ready already.
	ReadinessNever Readiness = "never"
	// ReadinessTimed: a created pod becomes Ready Input.ReadyAfter after its creation; a sync
	// that writes is followed by the next Input.SyncLatency later; a sync that writes
	// nothing moves the clock to the next pod becoming Ready or available. Plan.SyncAt and
	// Plan.Duration say when.
	ReadinessTimed Readiness = "timed"
)

// DefaultMaxSyncs bounds a run whose Input.MaxSyncs is 0.
const DefaultMaxSyncs = 10000

// Input is the state a plan starts from.
type Input struct {
	// StatefulSet is the desired StatefulSet: spec after the change (server-defaulted, as
	// stored: a field the API server drops, such as maxUnavailable with the
	// MaxUnavailableStatefulSet gate off, must be absent), status as live.
	StatefulSet *appsv1.StatefulSet
	// Revisions are the ControllerRevisions the StatefulSet owns.
	Revisions []*appsv1.ControllerRevision
	// Pods are the StatefulSet's pods: name "<set>-<ordinal>", the controller-revision-hash
	// label, phase, the Ready condition (with its lastTransitionTime), deletionTimestamp.
	Pods []*corev1.Pod
	// Now is the time of the first sync (minReadySeconds is measured against it).
	Now time.Time
	// Readiness is the readiness model between syncs.
	Readiness Readiness
	// Broken lists revision names whose pods never become Ready under any model (a bad image).
	Broken []string
	// MaxSyncs bounds the run (0: DefaultMaxSyncs).
	MaxSyncs int
	// ReadyAfter (from creation to Ready) and SyncLatency (from a sync that writes to the
	// next sync) are the timed model's durations (ReadinessTimed only).
	ReadyAfter, SyncLatency time.Duration
}

// RevisionOperation is one ControllerRevision write of the controller.
type RevisionOperation struct {
	Step int `json:"step"`
	// Action: planner.PodCreate, Update (renumbered, a rollback) or Delete (history limit).
	Action string `json:"action"`
	Name   string `json:"name"`
	// Revision is the number after the write.
	Revision int64 `json:"revision"`
}

// Outcome is how a run ends.
type Outcome string

const (
	// Complete: every replica runs the update revision and is available.
	Complete Outcome = "Complete"
	// Partitioned: the ordinals from the partition up are updated; those below keep the
	// current revision (RollingUpdate.partition).
	Partitioned Outcome = "Partitioned"
	// WaitingForDelete: OnDelete; the pods in Plan.WaitingForDelete keep their old revision
	// until someone deletes them.
	WaitingForDelete Outcome = "WaitingForDelete"
	// Stalled: a pod never becomes available and the controller waits for it.
	Stalled Outcome = "Stalled"
	// Incomplete: the run reached MaxSyncs.
	Incomplete Outcome = "Incomplete"
)

// Issue67250 names the upstream issue of an OrderedReady StatefulSet that never finishes a
// broken update, even after the template is reverted.
const Issue67250 = "kubernetes/kubernetes#67250"

// Plan is the result of Simulate.
type Plan struct {
	// UpdateRevision and UpdateRevisionNumber: the revision the first sync resolves the
	// template to (a rollback reuses an old name with a new number).
	UpdateRevision       string `json:"updateRevision"`
	UpdateRevisionNumber int64  `json:"updateRevisionNumber"`
	// CurrentRevision is status.currentRevision after the first sync.
	CurrentRevision string `json:"currentRevision"`
	// CollisionCount is status.collisionCount after the first sync.
	CollisionCount int32 `json:"collisionCount"`
	// PodOperations are the pod writes in the controller's order.
	PodOperations []planner.PodOperation `json:"podOperations"`
	// RevisionOperations are the ControllerRevision writes in order.
	RevisionOperations []RevisionOperation `json:"revisionOperations,omitempty"`
	// Statuses is the status each sync computes (index i: sync i+1).
	Statuses []appsv1.StatefulSetStatus `json:"-"`
	// Syncs is the number of syncs played.
	Syncs int `json:"syncs"`
	// SyncAt is, under ReadinessTimed, when each sync runs (index i: sync i+1), from
	// Input.Now; Duration is when the run ends (the last pod available). Both nil/0 under
	// the other models.
	SyncAt   []time.Duration `json:"-"`
	Duration time.Duration   `json:"-"`
	// Outcome and Reason say how the run ends.
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
	// WaitingForDelete lists, under OnDelete, the pods left on another revision.
	WaitingForDelete []string `json:"waitingForDelete,omitempty"`
	// StalledOn is the pod a Stalled run waits for.
	StalledOn string `json:"stalledOn,omitempty"`
}

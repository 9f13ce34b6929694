package daemonset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// BurstReplicas is the most pod creations, and the most pod deletions, the controller makes
// in one sync. Mirrors BurstReplicas, pkg/controller/daemon/daemon_controller.go, v1.36.3.
const BurstReplicas = 250

// Outcome is how a DaemonSet plan ends.
type Outcome string

const (
	// OutcomeComplete: every node that should run the pod runs one of the update revision,
	// available (kubectl's DaemonSet status viewer: updatedNumberScheduled and
	// numberAvailable both equal desiredNumberScheduled).
	OutcomeComplete Outcome = "Complete"
	// OutcomeNoChange: complete, and the controller makes no pod operation.
	OutcomeNoChange Outcome = "NoChange"
	// OutcomeWaitingForDelete: updateStrategy OnDelete, and pods of an old revision stay
	// until someone deletes them (Plan.WaitingForDelete).
	OutcomeWaitingForDelete Outcome = "WaitingForDelete"
	// OutcomeStalled: the controller stops before the rollout is complete, waiting for pods
	// to become available (under ReadinessNever, or pods that stay unready).
	OutcomeStalled Outcome = "Stalled"
)

// Input is the state a DaemonSet plan starts from.
type Input struct {
	// DaemonSet is the desired DaemonSet (template and strategy after the change, server
	// defaults applied, status.collisionCount kept). Required.
	DaemonSet *appsv1.DaemonSet
	// Revisions are the ControllerRevisions the DaemonSet owns.
	Revisions []*appsv1.ControllerRevision
	// Nodes are the cluster's nodes (labels, taints and names matter).
	Nodes []*corev1.Node
	// Pods are the DaemonSet's pods (controller ownerRef), with their phase, Ready
	// condition, deletionTimestamp, node (spec.nodeName, or the matchFields node affinity
	// of an unscheduled pod) and controller-revision-hash label.
	Pods []*corev1.Pod
	// Readiness is the availability assumption, as for Deployments: batched (default),
	// instant, never or timed (ReadyAfter and SyncLatency; Plan.SyncAt and Plan.Duration).
	Readiness planner.Readiness
	// ReadyAfter (from a pod's creation to Ready) and SyncLatency (from a sync that writes
	// to the next sync) are the timed model's durations, the StatefulSet planner's: a new
	// pod is Ready ReadyAfter after its creation and available minReadySeconds later.
	ReadyAfter, SyncLatency time.Duration
	// Now is the time availability (minReadySeconds) of the given pods is judged at; zero
	// treats every Ready pod as available.
	Now metav1.Time
	// MaxSyncs bounds the syncs simulated; 0 means DefaultMaxSyncs.
	MaxSyncs int
	// NodeOrder, when set, gives for a sync (from 1) the nodes the controller visits first;
	// the others follow by name. The controller walks nodes in Go map order, which is
	// random: when it may pick only some of several candidate nodes (maxUnavailable,
	// maxSurge, burstReplicas), this decides which. Nil: by name. The conformance harness
	// replays the upstream controller's choices through it.
	NodeOrder func(step int) []string
}

// DefaultMaxSyncs bounds a simulation whose Input.MaxSyncs is 0.
const DefaultMaxSyncs = 10000

// Step is one sync that made pod operations, with the bounds after it.
type Step struct {
	// Step is the sync number (from 1).
	Step int `json:"step"`
	// Creates and Deletes count the sync's pod operations.
	Creates int `json:"creates"`
	Deletes int `json:"deletes"`
	// Unavailable counts the nodes that should run the pod and have no available pod after
	// the sync's operations; Surging the nodes with two pods or more.
	Unavailable int `json:"unavailable"`
	Surging     int `json:"surging"`
}

// NodeReport says what the plan decides for one node.
type NodeReport struct {
	Name string `json:"name"`
	// ShouldRun: the controller's predicates let a new pod start on the node.
	ShouldRun bool `json:"shouldRun"`
	// ShouldContinueRunning: a pod already there may stay (tolerated NoExecute taints).
	ShouldContinueRunning bool `json:"shouldContinueRunning"`
	// Reason, for a node that gets no pod: why.
	Reason string `json:"reason,omitempty"`
}

// PodRef names a pod left on an old revision (OnDelete).
type PodRef struct {
	Pod            string `json:"pod"`
	Node           string `json:"node"`
	Revision       string `json:"revision"`
	RevisionNumber int64  `json:"revisionNumber"`
}

// RevisionDelete is a ControllerRevision cleanupHistory deletes (revisionHistoryLimit).
type RevisionDelete struct {
	Step     int    `json:"step"`
	Revision string `json:"revision"`
}

// Plan is what the controller does, sync by sync.
type Plan struct {
	// UpdateRevision is the ControllerRevision the template names after the change.
	UpdateRevision Revision `json:"updateRevision"`
	Outcome        Outcome  `json:"outcome"`
	// DesiredNumberScheduled counts the nodes that should run the pod; MaxUnavailable and
	// MaxSurge are the strategy's values scaled to it (both 0 becomes maxUnavailable 1).
	DesiredNumberScheduled int `json:"desiredNumberScheduled"`
	MaxUnavailable         int `json:"maxUnavailable"`
	MaxSurge               int `json:"maxSurge"`
	// PodOperations: per node, nodes sorted by name, in step order within a node.
	PodOperations []planner.PodOperation `json:"podOperations"`
	// Steps are the syncs that made pod operations, in order.
	Steps []Step `json:"steps"`
	// Nodes is every node, sorted by name.
	Nodes []NodeReport `json:"nodes"`
	// WaitingForDelete lists the pods of old revisions OnDelete leaves, by node name.
	WaitingForDelete []PodRef `json:"waitingForDelete,omitempty"`
	// RevisionsDeleted are the ControllerRevisions cleanupHistory deletes.
	RevisionsDeleted []RevisionDelete `json:"revisionsDeleted,omitempty"`
	// OrderMattersFrom is the first sync at which the controller picks some of several
	// candidate nodes, so which nodes it takes depends on its random node order (0: never).
	OrderMattersFrom int `json:"orderMattersFrom,omitempty"`
	// Syncs is the number of syncs simulated, the last one making no pod operation.
	Syncs int `json:"syncs"`
	// SyncAt is, under ReadinessTimed, when each sync runs (index i: sync i+1), from
	// Input.Now. Duration is when the last pod of the update revision becomes available
	// (Complete, NoChange: the moment kubectl rollout status says done; a surge rollout's
	// last old pod is deleted after it), 0 under OnDelete's WaitingForDelete (no end), the
	// end of the run when Stalled. Both nil/0 under the other models.
	SyncAt   []time.Duration `json:"-"`
	Duration time.Duration   `json:"-"`
}

// Revision is a ControllerRevision of the DaemonSet as the controller resolves it.
type Revision struct {
	Name   string `json:"name"`
	Hash   string `json:"hash"`
	Number int64  `json:"number"`
	// Reused: an existing ControllerRevision matches the template (a rollback), so the
	// controller keeps its name and hash; RenumberedFrom is its number before, when the
	// controller raises it.
	Reused         bool  `json:"reused"`
	RenumberedFrom int64 `json:"renumberedFrom,omitempty"`
	// Collisions counts the hash collisions the controller meets first (each costs a
	// failed sync and raises status.collisionCount).
	Collisions int `json:"collisions,omitempty"`
}

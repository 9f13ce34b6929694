package planner

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// PodAction is what a StatefulSet's or DaemonSet's controller does to a pod.
type PodAction string

const (
	// PodCreate: the controller creates a pod of the update revision.
	PodCreate PodAction = "Create"
	// PodDelete: the controller deletes the pod.
	PodDelete PodAction = "Delete"
)

// PodOperation is one pod write of the StatefulSet or DaemonSet controller, in the
// controller's order: the statefulset and daemonset planners' output, the pipeline's
// KindPlan.PodOperations and KindProgress.Next, and what feasibility.CheckPodOperations
// replays. The printer maps it to the API's PlanPodOperation and WorkloadPodOperation.
type PodOperation struct {
	// Step is the sync (from 1) that makes the operation.
	Step int `json:"step"`
	// Action is Create or Delete.
	Action PodAction `json:"action"`
	// Pod is the pod's name: a StatefulSet pod's always; a DaemonSet's deleted pod's; empty
	// for a created DaemonSet pod (its name is generated).
	Pod string `json:"pod"`
	// Node is the node a DaemonSet pod runs on; always empty for a StatefulSet pod (the
	// scheduler picks it).
	Node string `json:"node"`
	// Revision is the ControllerRevision's name: for a Create the update revision, for a
	// Delete the revision the pod runs (its controller-revision-hash label; empty when no
	// revision has it).
	Revision string `json:"revision"`
	// RevisionNumber is that revision's number at the time (0: unknown, no such revision).
	RevisionNumber int64 `json:"revisionNumber"`
	// At is, under the timed model, when the controller makes it, from the change (set by
	// the pipeline from the plan's SyncAt; nil otherwise).
	At *metav1.Duration `json:"at,omitempty"`
}

package v1alpha1

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// DriveStatus is what `kubectl rollplan drive status -o json|yaml` shows: whether drive
// holds a Deployment, by whom, at which step, with every ReplicaSet's counts. It is an API:
// fields are added, never renamed or removed, within v1alpha1. Bounds and Next keep the
// capitalized keys they have had since before this object was versioned.
type DriveStatus struct {
	metav1.TypeMeta `json:",inline"`
	// Context is the kubeconfig context the status was read in, when drive status spans
	// several contexts (--contexts, --all-contexts); empty otherwise.
	Context   string `json:"context,omitempty"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Held: the Deployment carries the drive annotation (rollplan.dev/drive).
	Held bool `json:"held"`
	// State is the drive state kept in that annotation (nil when not held).
	State *DriveState `json:"state,omitempty"`
	// Driving: a driver holds a valid lease now.
	Driving bool `json:"driving"`
	// Paused and Strategy are the live spec values.
	Paused   bool   `json:"paused"`
	Strategy string `json:"strategy"`
	// Edits lists spec edits made while held (fields drive holds).
	Edits []string `json:"edits,omitempty"`
	// ReplicaSets are every ReplicaSet with its counts, oldest first.
	ReplicaSets []DriveReplicaSet `json:"replicaSets"`
	// Bounds and Next: the bounds and the next step of the plan from the current state (held
	// only; Next nil when the drive only needs the hand-back).
	Bounds    *DriveBounds `json:"bounds,omitempty"`
	Next      *DriveStep   `json:"next,omitempty"`
	StepsLeft int          `json:"stepsLeft"`
	// Problem is set when the plan cannot be made (for example a bad annotation).
	Problem string `json:"problem,omitempty"`
	// WorkloadKind is the workload's kind when it is not a Deployment ("StatefulSet");
	// empty for a Deployment.
	WorkloadKind string `json:"workloadKind,omitempty"`
	// StatefulSet is the lease and partition walk of `drive status sts/NAME` (nil for a
	// Deployment).
	StatefulSet *StatefulSetDriveStatus `json:"statefulSet,omitempty"`
}

// DriveReplicaSet is one ReplicaSet's line of the status.
type DriveReplicaSet struct {
	Name string `json:"name"`
	// Role is new, previous or old.
	Role      string   `json:"role"`
	Revision  int64    `json:"revision"`
	Replicas  int32    `json:"replicas"`
	Current   int32    `json:"current"`
	Ready     int32    `json:"ready"`
	Available int32    `json:"available"`
	Images    []string `json:"images"`
}

// DriveState is the drive's state as kept, as JSON, in the rollplan.dev/drive annotation of
// the Deployment it holds (schema version 1; drive.State is the copy drive works with).
type DriveState struct {
	// Version is the state's schema version (1).
	Version int `json:"version"`
	// PlanID identifies one drive, from takeover to hand-back.
	PlanID string `json:"planID"`
	// Phase is Forward (walking to the target template) or Abort (walking back).
	Phase string `json:"phase"`
	// OriginalStrategy and OriginalPaused are spec.strategy and spec.paused before the
	// takeover; the hand-back restores them.
	OriginalStrategy appsv1.DeploymentStrategy `json:"originalStrategy"`
	OriginalPaused   bool                      `json:"originalPaused"`
	// TargetHash is the pod-template-hash of the template being rolled out and
	// NewReplicaSet its ReplicaSet's name.
	TargetHash    string `json:"targetHash"`
	NewReplicaSet string `json:"newReplicaSet"`
	// PreviousReplicaSet is the ReplicaSet of the template before the takeover.
	PreviousReplicaSet string `json:"previousReplicaSet,omitempty"`
	// Revision is the revision the new ReplicaSet carries.
	Revision int64 `json:"revision,omitempty"`
	// Replicas is spec.replicas the plan was made for; MaxSurge and MaxUnavailable, in pods,
	// the original strategy's fenceposts resolved at Replicas.
	Replicas       int32 `json:"replicas"`
	MaxSurge       int32 `json:"maxSurge"`
	MaxUnavailable int32 `json:"maxUnavailable"`
	// PendingReplicas: the change sets spec.replicas to Replicas, written once the new
	// ReplicaSet exists.
	PendingReplicas bool `json:"pendingReplicas,omitempty"`
	// Step counts the steps done; Steps is Step plus the steps left when last planned.
	Step  int `json:"step"`
	Steps int `json:"steps"`
	// Generation is metadata.generation after the driver's last spec write.
	Generation int64 `json:"generation"`
	// Holder identifies the running driver; LeaseExpires is when its lease ends.
	Holder       string     `json:"holder,omitempty"`
	LeaseExpires *Timestamp `json:"leaseExpires,omitempty"`
	// LastHolder is the last driver that held the lease.
	LastHolder string `json:"lastHolder,omitempty"`
	// StartedAt is the takeover time; UpdatedAt the last write of the state.
	StartedAt Timestamp `json:"startedAt"`
	UpdatedAt Timestamp `json:"updatedAt"`
	// HeldSince and HeldReason say since when and why no driver runs.
	HeldSince  *Timestamp `json:"heldSince,omitempty"`
	HeldReason string     `json:"heldReason,omitempty"`
	// Adopted: the drive took over a rollout it did not start (--adopt).
	Adopted bool `json:"adopted,omitempty"`
}

// DriveBounds are the limits a drive keeps, in pods: at most Replicas+MaxSurge pods, at
// least Replicas-MaxUnavailable available.
type DriveBounds struct {
	Replicas       int32 `json:"Replicas"`
	MaxSurge       int32 `json:"MaxSurge"`
	MaxUnavailable int32 `json:"MaxUnavailable"`
}

// DriveStep is one step of a drive: scale the new ReplicaSet up (creating it when Create),
// wait for WaitAvailable of its pods, then scale old ReplicaSets down.
type DriveStep struct {
	// Number counts the steps of a plan from 1.
	Number int  `json:"Number"`
	Create bool `json:"Create"`
	// New is the new ReplicaSet's scale (From == To: no write, only the wait).
	New           DriveScale `json:"New"`
	WaitAvailable int32      `json:"WaitAvailable"`
	// Old are the old ReplicaSets' scale-downs, in the order they are written.
	Old []DriveScale `json:"Old"`
	// Pods is the sum of spec.replicas at the peak of the step.
	Pods int32 `json:"Pods"`
	// ExtraPod: Pods exceeds Replicas+MaxSurge by the one pod a maxSurge of 0 needs.
	ExtraPod        bool  `json:"ExtraPod"`
	AvailableBefore int32 `json:"AvailableBefore"`
	AvailableAfter  int32 `json:"AvailableAfter"`
	// KeptOld: the step leaves an old pod until the new ReplicaSet is at replicas.
	KeptOld bool `json:"KeptOld"`
	// After is the state the step leaves.
	After DriveStart `json:"After"`
}

// DriveScale is one ReplicaSet's spec.replicas change; Old indexes the old ReplicaSets of
// the state planned from (-1 for the new ReplicaSet).
type DriveScale struct {
	Name string `json:"Name"`
	Old  int    `json:"Old"`
	From int32  `json:"From"`
	To   int32  `json:"To"`
}

// DriveStart is a state a drive plans from: the new ReplicaSet and the old ones with
// replicas, in scale-down order.
type DriveStart struct {
	New       DriveCounts   `json:"New"`
	NewExists bool          `json:"NewExists"`
	Old       []DriveCounts `json:"Old"`
}

// DriveCounts are one ReplicaSet's spec.replicas and status.availableReplicas.
type DriveCounts struct {
	Name      string `json:"Name"`
	Replicas  int32  `json:"Replicas"`
	Available int32  `json:"Available"`
}

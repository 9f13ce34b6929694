package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RolloutStatus is where a Deployment's rollout stands against its plan (`kubectl rollplan
// status -o json|yaml`). It is an API: fields are added, never renamed or removed, within
// v1alpha1. See README "The RolloutStatus object".
type RolloutStatus struct {
	metav1.TypeMeta `json:",inline"`
	// Context is the kubeconfig context the status was read in, when status spans several
	// contexts (--contexts, --all-contexts); empty otherwise.
	Context string `json:"context,omitempty"`
	// Deployment identifies the Deployment, with the spec fields the status depends on.
	Deployment StatusDeployment `json:"deployment"`
	// ObservedAt is the time the status was computed for; Elapsed, the deadline and the ETA
	// are relative to it.
	ObservedAt metav1.Time `json:"observedAt"`
	// Phase is Progressing, Complete or ProgressDeadlineExceeded.
	Phase string `json:"phase"`
	// Message is what `kubectl rollout status` prints now (without the newline).
	Message string `json:"message"`
	// Step of Steps: the steps of the whole rollout's plan (or drive's) the live ReplicaSets
	// have reached. Steps is 0 when no plan could be made (planError).
	Step  int `json:"step"`
	Steps int `json:"steps"`
	// PlanError says why the rollout could not be planned.
	PlanError string `json:"planError,omitempty"`
	// NewReplicaSet and Revision name the new ReplicaSet, once created.
	NewReplicaSet string `json:"newReplicaSet,omitempty"`
	Revision      int64  `json:"revision,omitempty"`
	// ReplicaSets are every ReplicaSet the controller claims, oldest first.
	ReplicaSets []StatusReplicaSet `json:"replicaSets"`
	// Next is the controller's next ReplicaSet write, when one is left.
	Next *StatusWrite `json:"next,omitempty"`
	// Waiting says what the controller waits for now ("" once complete).
	Waiting string `json:"waiting,omitempty"`
	// HeldBy is set while kubectl rollplan drive holds the Deployment.
	HeldBy string `json:"heldBy,omitempty"`
	// StartedAt: when the rollout started (absent: unknown); CompletedAt: when it completed.
	StartedAt   *metav1.Time `json:"startedAt,omitempty"`
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
	// Elapsed: observedAt (or completedAt) - startedAt, as a Go duration ("1m30s").
	Elapsed *metav1.Duration `json:"elapsed,omitempty"`
	// LastProgressAt is the Progressing condition's lastUpdateTime; DeadlineAt when the
	// controller reports ProgressDeadlineExceeded without more progress (absent when no
	// deadline runs).
	LastProgressAt *metav1.Time `json:"lastProgressAt,omitempty"`
	DeadlineAt     *metav1.Time `json:"deadlineAt,omitempty"`
	// ETA is how long the rest of the rollout takes under the time model, when known, and
	// ETABasis what the model assumed ("pods Ready after 2s (median of 20 pods, 2s..3s)"), or
	// why there is no ETA ("none: 2 pods are not Ready after 9s, longer than ...").
	ETA      *metav1.Duration `json:"eta,omitempty"`
	ETABasis string           `json:"etaBasis,omitempty"`
	// Warning: the deadline is near or passed.
	Warning string `json:"warning,omitempty"`
	// Stalled says why the new ReplicaSet does not progress, one entry per reason, while it
	// lacks available pods (absent otherwise).
	Stalled []StatusStall `json:"stalled,omitempty"`
	// FailedFast: with --fail-fast, a reason of stalled lasted --fail-fast-after.
	FailedFast bool `json:"failedFast,omitempty"`
	// Feasibility is what the feasibility checks (status --checks) found on the remaining
	// plan (the plan from the live state; its step 1 is the controller's next write), same
	// shape as a RolloutPlan's; absent when they found nothing.
	Feasibility *PlanFeasibility `json:"feasibility,omitempty"`
}

// StatusStall is one reason a rollout's new ReplicaSet does not progress.
type StatusStall struct {
	// Reason: FailedCreate, Unschedulable, Unhealthy, NodeLost, or the kubelet's container
	// reason (ImagePullBackOff, CrashLoopBackOff, ...).
	Reason string `json:"reason"`
	// Pods in this state (FailedCreate: the pods not created).
	Pods int32 `json:"pods"`
	// Message: the cluster's words for the first of them.
	Message string `json:"message,omitempty"`
	// Restarts: the highest container restart count of those pods.
	Restarts int32 `json:"restarts,omitempty"`
	// Since: when the earliest of them entered the state.
	Since *metav1.Time `json:"since,omitempty"`
	// Object: the pod (or ReplicaSet) the message is from.
	Object string `json:"object,omitempty"`
}

// StatusDeployment identifies the Deployment of a status.
type StatusDeployment struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Replicas  int32  `json:"replicas"`
	Paused    bool   `json:"paused"`
	// Strategy is RollingUpdate or Recreate; MaxSurgePods and MaxUnavailablePods the
	// fenceposts resolved in pods.
	Strategy           string `json:"strategy,omitempty"`
	MaxSurgePods       int32  `json:"maxSurgePods"`
	MaxUnavailablePods int32  `json:"maxUnavailablePods"`
	// ProgressDeadlineSeconds is spec.progressDeadlineSeconds.
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// StatusReplicaSet is one ReplicaSet's counts.
type StatusReplicaSet struct {
	Name     string `json:"name"`
	Revision int64  `json:"revision"`
	New      bool   `json:"new"`
	// Replicas is spec.replicas; Current, Ready and Available the status counts.
	Replicas  int32 `json:"replicas"`
	Current   int32 `json:"current"`
	Ready     int32 `json:"ready"`
	Available int32 `json:"available"`
}

// StatusWrite is one ReplicaSet write of the controller.
type StatusWrite struct {
	ReplicaSet string `json:"replicaSet"`
	From       int32  `json:"from"`
	To         int32  `json:"to"`
	Create     bool   `json:"create"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RolloutStatusList is a list of RolloutStatuses, one per Deployment, in the order the
// Deployments were selected (kind RolloutStatusList).
type RolloutStatusList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RolloutStatus `json:"items"`
}

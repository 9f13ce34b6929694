package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadStatus is where a StatefulSet's or DaemonSet's rollout stands (`kubectl rollplan
// status sts/NAME|ds/NAME -o json|yaml`): kubectl's verdict, step k of n, what the
// controller does next or waits for, why it does not progress, the feasibility checks on the
// remaining plan and the ETA. It is an API: fields are added, never renamed or removed,
// within v1alpha1.
type WorkloadStatus struct {
	metav1.TypeMeta `json:",inline"`
	// Workload names the object: kind StatefulSet or DaemonSet, namespace, name.
	Workload StatusWorkload `json:"workload"`
	// ObservedAt is the time the status was computed for; the ETA is relative to it.
	ObservedAt metav1.Time `json:"observedAt"`
	// Message is what `kubectl rollout status` prints now (without the newline); Done: it
	// reports the rollout complete.
	Message string `json:"message"`
	Done    bool   `json:"done"`
	// Updated of Total: StatefulSet: the ordinals from the partition up that run the update
	// revision and are Ready, of those ordinals; DaemonSet: the nodes whose pod runs it and is
	// Ready, of desiredNumberScheduled. Absent (0 of 0) once done or when unread.
	Updated int `json:"updated,omitempty"`
	Total   int `json:"total,omitempty"`
	// UpdateRevision is the ControllerRevision the template names.
	UpdateRevision string `json:"updateRevision,omitempty"`
	// Next are the pod operations the controller's next sync makes without waiting; Waiting
	// what it waits for when there are none.
	Next    []WorkloadPodOperation `json:"next,omitempty"`
	Waiting string                 `json:"waiting,omitempty"`
	// ProgressError says why where the rollout stands is unknown (a failed read or plan).
	ProgressError string `json:"progressError,omitempty"`
	// Stalled says why the pods do not progress, one entry per reason (the controller's
	// FailedCreate events, Unschedulable pods with the scheduler's message, container
	// states, failing readiness probes, lost nodes); absent otherwise.
	Stalled []StatusStall `json:"stalled,omitempty"`
	// FailedFast: with --fail-fast, a reason of stalled lasted --fail-fast-after.
	FailedFast bool `json:"failedFast,omitempty"`
	// Feasibility is what the feasibility checks (--checks) found on the remaining plan
	// (from the live state; step 1 is the controller's next sync); absent when nothing.
	Feasibility *PlanFeasibility `json:"feasibility,omitempty"`
	// ETA is how long the rest of the rollout takes under the time model, when known, and
	// ETABasis what the model assumed, or why there is no ETA.
	ETA      *metav1.Duration `json:"eta,omitempty"`
	ETABasis string           `json:"etaBasis,omitempty"`
}

// StatusWorkload names a StatefulSet or DaemonSet.
type StatusWorkload struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// WorkloadPodOperation is one pod write the controller makes next.
type WorkloadPodOperation struct {
	Action   string `json:"action"`
	Pod      string `json:"pod,omitempty"`
	Node     string `json:"node,omitempty"`
	Revision string `json:"revision"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadStatusList is the WorkloadStatus of each object selected (-l, --all, -A, several
// names), in the order printed.
type WorkloadStatusList struct {
	metav1.TypeMeta `json:",inline"`
	Items           []WorkloadStatus `json:"items"`
}

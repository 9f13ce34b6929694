package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadHistory is the machine-readable revision history of a StatefulSet or DaemonSet
// (`history sts/NAME -o json|yaml`), from its ControllerRevisions. It is an API: fields are
// added, never renamed or removed, within v1alpha1.
type WorkloadHistory struct {
	metav1.TypeMeta `json:",inline"`
	// Workload identifies the StatefulSet or DaemonSet.
	Workload HistoryWorkload `json:"workload"`
	// Revisions by ascending revision.
	Revisions []WorkloadRevision `json:"revisions"`
	// CleanupAtNextRollout lists the revisions the controller deletes, oldest first, once the
	// next rollout to a new template completes (revisionHistoryLimit).
	CleanupAtNextRollout []int64 `json:"cleanupAtNextRollout"`
}

// HistoryWorkload identifies the workload of a WorkloadHistory.
type HistoryWorkload struct {
	// Kind is StatefulSet or DaemonSet.
	Kind                 string `json:"kind"`
	Namespace            string `json:"namespace"`
	Name                 string `json:"name"`
	UpdateStrategy       string `json:"updateStrategy"`
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// TemplateRevision is the revision whose data matches the live pod template (absent when
	// none does yet).
	TemplateRevision *int64 `json:"templateRevision,omitempty"`
	// CurrentRevision and UpdateRevision are a StatefulSet's status.currentRevision and
	// status.updateRevision (ControllerRevision names).
	CurrentRevision string `json:"currentRevision,omitempty"`
	UpdateRevision  string `json:"updateRevision,omitempty"`
}

// WorkloadRevision is one ControllerRevision.
type WorkloadRevision struct {
	Revision           int64  `json:"revision"`
	ControllerRevision string `json:"controllerRevision"`
	// Hash is the controller-revision-hash label.
	Hash              string      `json:"hash"`
	Images            []string    `json:"images"`
	CreationTimestamp metav1.Time `json:"creationTimestamp"`
	ChangeCause       string      `json:"changeCause,omitempty"`
	// Pods and ReadyPods count the workload's pods running this revision.
	Pods      int32 `json:"pods"`
	ReadyPods int32 `json:"readyPods"`
	// InTemplate: the live pod template is this revision's.
	InTemplate bool `json:"inTemplate"`
	// DeletedAtNextRollout: in CleanupAtNextRollout.
	DeletedAtNextRollout bool `json:"deletedAtNextRollout"`
	// Template is the pod template (only with --revision).
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
}

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RolloutHistory is the machine-readable revision history (`history -o json|yaml`). It is
// an API: fields are added, never renamed or removed, within v1alpha1. See README
// "The RolloutHistory object".
type RolloutHistory struct {
	metav1.TypeMeta `json:",inline"`
	// Context is the kubeconfig context the history was read in, when history spans several
	// contexts (--contexts, --all-contexts); empty otherwise.
	Context string `json:"context,omitempty"`
	// Deployment identifies the Deployment.
	Deployment HistoryDeployment `json:"deployment"`
	// Revisions by ascending revision.
	Revisions []HistoryRevision `json:"revisions"`
	// CleanupAtNextRollout lists the revisions the controller deletes, in this order, when
	// the next rollout to a new template completes (revisionHistoryLimit).
	CleanupAtNextRollout []int64 `json:"cleanupAtNextRollout"`
	// CleanupError says why the cleanup could not be forecast.
	CleanupError string `json:"cleanupError,omitempty"`
	// Orphans are ReplicaSets the controller will adopt at its next sync (not history yet).
	Orphans []string `json:"orphans,omitempty"`
	// Unrevisioned are ReplicaSets of the Deployment whose revision annotation is invalid.
	Unrevisioned []string `json:"unrevisioned,omitempty"`
}

// HistoryDeployment identifies the Deployment of a history.
type HistoryDeployment struct {
	Namespace            string `json:"namespace"`
	Name                 string `json:"name"`
	Paused               bool   `json:"paused"`
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// CurrentRevision is the revision whose template the Deployment has (absent when
	// PendingTemplate).
	CurrentRevision *int64 `json:"currentRevision,omitempty"`
	// PendingTemplate: the Deployment's template matches no ReplicaSet yet.
	PendingTemplate bool `json:"pendingTemplate"`
}

// HistoryRevision is one revision (one ReplicaSet).
type HistoryRevision struct {
	Revision int64 `json:"revision"`
	// EarlierRevisions are the numbers rollbacks took from this ReplicaSet, oldest first.
	EarlierRevisions  []int64     `json:"earlierRevisions,omitempty"`
	ReplicaSet        string      `json:"replicaSet"`
	PodTemplateHash   string      `json:"podTemplateHash"`
	Images            []string    `json:"images"`
	Replicas          int32       `json:"replicas"`
	ReadyReplicas     int32       `json:"readyReplicas"`
	AvailableReplicas int32       `json:"availableReplicas"`
	CreationTimestamp metav1.Time `json:"creationTimestamp"`
	ChangeCause       string      `json:"changeCause,omitempty"`
	Current           bool        `json:"current"`
	// Restart: the template differs from the previous revision's only by
	// kubectl.kubernetes.io/restartedAt.
	Restart     bool   `json:"restart"`
	RestartedAt string `json:"restartedAt,omitempty"`
	// DeletedAtNextRollout: in CleanupAtNextRollout.
	DeletedAtNextRollout bool `json:"deletedAtNextRollout"`
	// Config names the ConfigMaps and Secrets whose content changed from the previous
	// revision, from the rollplan.dev/config-checksums annotation of both templates:
	// "configmap/app" (changed), "+secret/db" (first recorded), "-configmap/old" (no longer
	// referenced). Absent when the template records none.
	Config []string `json:"config,omitempty"`
	// Template is the pod template (only with --revision).
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
}

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// StatefulSetDrive is what `kubectl rollplan drive sts/NAME -o json|yaml` prints: the
// partition walk planned (Steps; with --dry-run nothing is written) and, after a run, its
// Result. It is an API: fields are added, never renamed or removed, within v1alpha1.
type StatefulSetDrive struct {
	metav1.TypeMeta `json:",inline"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	// DryRun is "client" or "server" for a --dry-run; empty for a run.
	DryRun string `json:"dryRun,omitempty"`
	// Replicas is spec.replicas; StartPartition the partition the walk starts from
	// (replicas after a change; the stored partition when it continues).
	Replicas       int32 `json:"replicas"`
	StartPartition int32 `json:"startPartition"`
	// Images and Restart are the change the first write applies (none: a resume).
	Images  []string `json:"images,omitempty"`
	Restart bool     `json:"restart,omitempty"`
	// Steps are the partition writes planned, in order (partition.Plan).
	Steps []PartitionStep `json:"steps"`
	// Result is how the run ended (nil for a dry run).
	Result *StatefulSetDriveResult `json:"result,omitempty"`
}

// PartitionStep is one write of spec.updateStrategy.rollingUpdate.partition: From -> To
// replaces the pods of ordinals To..From-1, highest first; PauseAfter: the walk stops
// after it (--pause-after).
type PartitionStep struct {
	Number     int   `json:"number"`
	From       int32 `json:"from"`
	To         int32 `json:"to"`
	PauseAfter bool  `json:"pauseAfter,omitempty"`
}

// StatefulSetDriveResult is the end of a run: Outcome Done (every pod on the update
// revision and available), Paused (a --pause-after ordinal) or Held (a failed pod or a
// passed --timeout); the last two exit with code 4. Partition is where it stays.
type StatefulSetDriveResult struct {
	Outcome   string `json:"outcome"`
	Partition int32  `json:"partition"`
	Reason    string `json:"reason,omitempty"`
}

// StatefulSetDriveStatus is the StatefulSet part of `drive status sts/NAME` (DriveStatus's
// statefulSet): the lease in the annotation rollplan.dev/drive-lease and the partition
// walk's progress as the StatefulSet shows it.
type StatefulSetDriveStatus struct {
	// Holder and LeaseExpires are the lease's (empty/nil: no lease); LeaseValid: it has
	// not expired.
	Holder       string     `json:"holder,omitempty"`
	LeaseExpires *Timestamp `json:"leaseExpires,omitempty"`
	LeaseValid   bool       `json:"leaseValid"`
	// Partition is spec.updateStrategy.rollingUpdate.partition; Replicas spec.replicas;
	// UpdatedReplicas, ReadyReplicas status counts; the revisions status's.
	Partition       int32  `json:"partition"`
	Replicas        int32  `json:"replicas"`
	UpdatedReplicas int32  `json:"updatedReplicas"`
	ReadyReplicas   int32  `json:"readyReplicas"`
	CurrentRevision string `json:"currentRevision"`
	UpdateRevision  string `json:"updateRevision"`
	// Strategy is spec.updateStrategy.type.
	Strategy string `json:"strategy"`
}

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RolloutPlan is the machine-readable plan (`preview -o json|yaml`). It is an API: fields
// are added, never renamed or removed, within v1alpha1. See README "The RolloutPlan object".
type RolloutPlan struct {
	metav1.TypeMeta `json:",inline"`
	// Context is the kubeconfig context the plan was made in, when a preview spans several
	// (--contexts, --all-contexts); absent for one context.
	Context string `json:"context,omitempty"`
	// Deployment is the previewed Deployment.
	Deployment PlanDeployment `json:"deployment"`
	// Strategy with fenceposts resolved to pods.
	Strategy PlanStrategy `json:"strategy"`
	// Readiness is the assumption the plan was made under: batched, instant, never or timed.
	Readiness string `json:"readiness"`
	// Timing is, under readiness timed, where the pods' ready times come from; absent under
	// the other models.
	Timing *PlanTiming `json:"timing,omitempty"`
	// NewReplicaSet is the ReplicaSet the Deployment's template maps to.
	NewReplicaSet PlanNewReplicaSet `json:"newReplicaSet"`
	// ReplicaSets lists every ReplicaSet of the plan, oldest first.
	ReplicaSets []PlanReplicaSet `json:"replicaSets"`
	// Steps are the controller's ReplicaSet writes, in order.
	Steps []PlanStep `json:"steps"`
	// Outcome: Complete, Stalled, NoChange or Paused.
	Outcome string `json:"outcome"`
	// StalledReason says what a Stalled rollout waits for.
	StalledReason string `json:"stalledReason,omitempty"`
	// Cleanup lists the old ReplicaSets revisionHistoryLimit deletes, in order.
	Cleanup []PlanCleanup `json:"cleanup"`
	// Syncs is the number of controller syncs simulated.
	Syncs int `json:"syncs"`
	// Warnings about the accuracy of the plan (for example a client-side defaulted template).
	Warnings []string `json:"warnings,omitempty"`
	// Duration is, under readiness timed, how long the rollout takes from the change (a Go
	// duration, e.g. "1m30s"): until the Deployment is complete (Complete, NoChange), or
	// until the last write or pod change the controller waits for (Stalled, Paused). Absent
	// under the other models.
	Duration *metav1.Duration `json:"duration,omitempty"`
	// ProgressDeadlineAt is, under readiness timed, when (from the change) the controller sets
	// Progressing=False with reason ProgressDeadlineExceeded: progressDeadlineSeconds after
	// the last progress. `kubectl rollout status` fails then, even if the rollout goes on and
	// completes later. Absent when it never happens under the model.
	ProgressDeadlineAt *metav1.Duration `json:"progressDeadlineAt,omitempty"`
	// Manifest is set on the plans of a manifest set (preview -f/-k with several
	// Deployments): where the Deployment came from and what applying it does.
	Manifest *PlanManifest `json:"manifest,omitempty"`
	// Config is set on the plans of `reload -o json|yaml` (and on a config restart of
	// `preview -f` with ConfigMaps or Secrets): the ConfigMaps and Secrets the pods see,
	// their states and what reload decides (PlanConfig). The plan is then the restart's
	// rollout (decision restart), or the Deployment as it stands (any other decision:
	// reload writes no template change).
	Config *PlanConfig `json:"config,omitempty"`
	// Feasibility is what the feasibility checks (quota, capacity, pdb, hpa) found on the
	// plan's steps; absent when no check ran (--checks=none).
	Feasibility *PlanFeasibility `json:"feasibility,omitempty"`
	// Workload is set on the plan of a StatefulSet or DaemonSet (preview sts/NAME, ds/NAME):
	// the Deployment fields are then empty and the plan is in the fields below.
	Workload *PlanWorkload `json:"workload,omitempty"`
	// UpdateRevision and UpdateRevisionNumber are the ControllerRevision a StatefulSet's or
	// DaemonSet's template resolves to after the change (before it exists).
	UpdateRevision       string `json:"updateRevision,omitempty"`
	UpdateRevisionNumber int64  `json:"updateRevisionNumber,omitempty"`
	// PodOperations are a StatefulSet's or DaemonSet's pod writes in the controller's order
	// (a DaemonSet's per node, nodes by name).
	PodOperations []PlanPodOperation `json:"podOperations,omitempty"`
	// WaitingForDelete lists the pods an OnDelete StatefulSet or DaemonSet leaves on an old
	// revision until someone deletes them.
	WaitingForDelete []string `json:"waitingForDelete,omitempty"`
	// Nodes, for a DaemonSet: every node, whether it gets a pod, and why not.
	Nodes []PlanNode `json:"nodes,omitempty"`
}

// PlanWorkload names a planned StatefulSet or DaemonSet.
type PlanWorkload struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Strategy is the updateStrategy type; Partition a StatefulSet's rollingUpdate.partition.
	Strategy  string `json:"strategy,omitempty"`
	Partition int32  `json:"partition,omitempty"`
}

// PlanPodOperation is one pod write of the StatefulSet or DaemonSet controller.
type PlanPodOperation struct {
	// Step is the controller sync (from 1) that makes it.
	Step int `json:"step"`
	// Action is Create or Delete.
	Action string `json:"action"`
	// Pod is the pod's name (empty for a DaemonSet's created pod: generated).
	Pod string `json:"pod"`
	// Node is a DaemonSet pod's node (empty for a StatefulSet: the scheduler picks it).
	Node string `json:"node"`
	// Revision and RevisionNumber: the ControllerRevision of the created pod, or of the
	// deleted pod (0: unknown).
	Revision       string `json:"revision"`
	RevisionNumber int64  `json:"revisionNumber"`
	// At is, under readiness timed (StatefulSets), when the controller makes the write, from
	// the change (a Go duration).
	At *metav1.Duration `json:"at,omitempty"`
}

// PlanNode is one node of a DaemonSet plan.
type PlanNode struct {
	Name string `json:"name"`
	// ShouldRun: a new pod may start on the node; Reason says why not.
	ShouldRun bool   `json:"shouldRun"`
	Reason    string `json:"reason,omitempty"`
}

// PlanFeasibility is the outcome of the feasibility checks.
type PlanFeasibility struct {
	// Checked lists the checks that ran: quota, capacity, pdb, hpa.
	Checked []string `json:"checked"`
	// Unchecked lists what was not checked and why ("forbidden to list nodes").
	Unchecked []PlanUnchecked `json:"unchecked,omitempty"`
	// Stall is where the rollout stops because of what a check found; absent when it does not.
	Stall *PlanStall `json:"stall,omitempty"`
	// Findings are the checks' findings, in step order.
	Findings []PlanFinding `json:"findings,omitempty"`
}

// PlanUnchecked is a check, or part of one, that did not run.
type PlanUnchecked struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
}

// PlanStall is the step after which the controller can make no further write.
type PlanStall struct {
	// Step numbers the plan's step (from 1); 0: before the first write.
	Step int `json:"step"`
	// Reason: Quota or Unschedulable.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Objects name what holds the rollout ("resourcequota/compute").
	Objects []string `json:"objects,omitempty"`
}

// PlanFinding is one finding of a check.
type PlanFinding struct {
	// Check: quota, capacity, pdb or hpa.
	Check string `json:"check"`
	// Step numbers the plan's step (from 1) it concerns; 0 for the plan as a whole.
	Step int `json:"step"`
	// Severity: Stall, Warning or Info.
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Object names the object found ("poddisruptionbudget/web").
	Object string `json:"object,omitempty"`
}

// PlanTiming is the time model of readiness timed.
type PlanTiming struct {
	// Source is "flag" (--pod-ready-after) or "pods" (measured on the Deployment's own pods).
	Source string `json:"source"`
	// ReadyAfterMin, ReadyAfterMedian and ReadyAfterMax describe how long pods take from
	// creation to Ready (Go durations).
	ReadyAfterMin    metav1.Duration `json:"readyAfterMin"`
	ReadyAfterMedian metav1.Duration `json:"readyAfterMedian"`
	ReadyAfterMax    metav1.Duration `json:"readyAfterMax"`
	// MinReadySeconds is the Deployment's spec.minReadySeconds: a pod is available this long
	// after it is Ready.
	MinReadySeconds int32 `json:"minReadySeconds"`
	// Samples is the number of pods measured and ReplicaSets the ReplicaSets they belong to
	// (source pods only).
	Samples     int      `json:"samples,omitempty"`
	ReplicaSets []string `json:"replicaSets,omitempty"`
	// SyncLatency is the controllers' reaction time per write the model adds: pods a write
	// asks for start this long after it (pod creation, status updates, the next sync).
	SyncLatency metav1.Duration `json:"syncLatency"`
	// SyncLatencySource is "flag" (--sync-latency), "rollout" (fitted to the Deployment's
	// last rollout) or absent (none: 0, SyncLatencyNote says why).
	SyncLatencySource string `json:"syncLatencySource,omitempty"`
	// For source rollout: the new ReplicaSet of the rollout fitted, how long it took (second
	// precision) and how long the model gives it without latency.
	SyncLatencyReplicaSet string           `json:"syncLatencyReplicaSet,omitempty"`
	SyncLatencyTook       *metav1.Duration `json:"syncLatencyTook,omitempty"`
	SyncLatencyModelled   *metav1.Duration `json:"syncLatencyModelled,omitempty"`
	// SyncLatencyNote says why there is none (source absent).
	SyncLatencyNote string `json:"syncLatencyNote,omitempty"`
}

// PlanManifest is the manifest set's part of a RolloutPlan.
type PlanManifest struct {
	// Source is the file the Deployment was read from ("STDIN", or the kustomization
	// directory for -k).
	Source string `json:"source"`
	// Change is what applying it does: Create (not live: its first rollout), Update or
	// NoChange (the live Deployment stays as it is); or ConfigRestart: a live Deployment
	// not updated by the set whose pods would see a changed key of the set's ConfigMaps or
	// Secrets, planned as `reload` would restart it (Source: the files holding them).
	Change string `json:"change"`
}

// PlanDeployment identifies the Deployment and its desired size.
type PlanDeployment struct {
	Namespace            string `json:"namespace"`
	Name                 string `json:"name"`
	Replicas             int32  `json:"replicas"`
	Paused               bool   `json:"paused"`
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// ProgressDeadlineSeconds, in seconds.
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// PlanStrategy is the strategy; maxSurge/maxUnavailable as written, and in pods.
type PlanStrategy struct {
	Type               string `json:"type"`
	MaxSurge           string `json:"maxSurge,omitempty"`
	MaxUnavailable     string `json:"maxUnavailable,omitempty"`
	MaxSurgePods       int32  `json:"maxSurgePods"`
	MaxUnavailablePods int32  `json:"maxUnavailablePods"`
}

// PlanNewReplicaSet describes the new ReplicaSet.
type PlanNewReplicaSet struct {
	Name            string `json:"name"`
	PodTemplateHash string `json:"podTemplateHash"`
	Revision        int64  `json:"revision"`
	// Exists: it exists before the plan; Reused: an older revision is reused (a rollback);
	// Created: the plan creates it.
	Exists           bool   `json:"exists"`
	Reused           bool   `json:"reused"`
	Created          bool   `json:"created"`
	PreviousRevision int64  `json:"previousRevision,omitempty"`
	RevisionHistory  string `json:"revisionHistory,omitempty"`
	CollisionCount   *int32 `json:"collisionCount,omitempty"`
}

// PlanReplicaSet is one ReplicaSet with its replicas and available pods before and after.
type PlanReplicaSet struct {
	Name             string `json:"name"`
	Revision         int64  `json:"revision"`
	New              bool   `json:"new"`
	InitialReplicas  int32  `json:"initialReplicas"`
	InitialAvailable int32  `json:"initialAvailable"`
	FinalReplicas    int32  `json:"finalReplicas"`
	FinalAvailable   int32  `json:"finalAvailable"`
}

// PlanStep is one write: ReplicaSet replicaSet goes from -> to.
type PlanStep struct {
	// Step numbers the writes from 1.
	Step       int    `json:"step"`
	ReplicaSet string `json:"replicaSet"`
	From       int32  `json:"from"`
	To         int32  `json:"to"`
	Create     bool   `json:"create,omitempty"`
	// Decision is the controller function making the write (e.g. ScaleUpNewReplicaSet).
	Decision string `json:"decision"`
	// Wait: "" (none), PodsAvailable or OldPodsTerminated.
	Wait string `json:"wait,omitempty"`
	// Sync numbers the controller sync (from 1) that makes the write.
	Sync int `json:"sync"`
	// ReplicaSets maps every ReplicaSet's name to its replicas after the step.
	ReplicaSets map[string]int32 `json:"replicaSets"`
	Total       int32            `json:"total"`
	Available   int32            `json:"available"`
	// At is, under readiness timed, when the controller makes the write, from the change (a
	// Go duration); absent under the other models.
	At *metav1.Duration `json:"at,omitempty"`
}

// PlanCleanup is an old ReplicaSet that revisionHistoryLimit deletes.
type PlanCleanup struct {
	Name     string `json:"name"`
	Revision int64  `json:"revision"`
	// RollbackTarget: the revision `kubectl rollout undo` would return to.
	RollbackTarget bool `json:"rollbackTarget"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RolloutPlanList is what `preview -o json|yaml` prints when it plans more than one
// Deployment (several names, -l, --all, -A, a manifest set): the RolloutPlans, one per
// Deployment, in the order the Deployments were selected (a LIST's order: namespace, then
// name; names in the order given), in the shape of kubectl's own lists (apiVersion
// rollplan.dev/v1alpha1, kind RolloutPlanList, metadata, items). Each item is a whole
// RolloutPlan with its own apiVersion and kind, exactly as `preview -o json` of that one
// Deployment prints it. A Deployment that could not be planned has no item: its error is on
// stderr and the command exits 1. One Deployment prints a RolloutPlan, not a list of one.
// Fields are added, never renamed or removed, within v1alpha1.
type RolloutPlanList struct {
	metav1.TypeMeta `json:",inline"`
	// ListMeta is empty today (no resourceVersion: the list is computed, not stored).
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the plans, never null (an empty selection prints "items: []").
	Items []RolloutPlan `json:"items"`
}

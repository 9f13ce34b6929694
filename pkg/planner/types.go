package planner

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ControllerVersion is the kube-controller-manager release whose Deployment controller the
// planner reproduces.
const ControllerVersion = "v1.36.3"

// Readiness is the assumption the planner makes about when pods become available. The
// controller only reacts to availability; the planner cannot know it, so the user chooses.
type Readiness string

const (
	// ReadinessBatched: the controller keeps syncing until a sync writes nothing; then every
	// pod becomes available; repeat. This is what `kubectl get rs -w` shows for a real app.
	ReadinessBatched Readiness = "batched"
	// ReadinessInstant: after every sync that wrote, every pod becomes available before the
	// next sync.
	ReadinessInstant Readiness = "instant"
	// ReadinessNever: pods created by the rollout never become available. Pods that exist
	// already keep the availability the live status shows. The plan ends Stalled unless the
	// rollout needs no new pod.
	ReadinessNever Readiness = "never"
	// ReadinessTimed: every pod becomes Ready a given time after it is created
	// (Input.Timing) and available spec.minReadySeconds later; the controller syncs at every
	// write and at every change of a ReplicaSet's ready or available pods, so pods that
	// become available one by one give the controller's real, finer sequence of writes.
	// Steps carry their time (Step.At), the plan its Duration and ProgressDeadlineAt.
	ReadinessTimed Readiness = "timed"
)

// Readinesses lists the valid Readiness values, in the order help texts show them.
var Readinesses = []Readiness{ReadinessBatched, ReadinessInstant, ReadinessNever, ReadinessTimed}

// ParseReadiness returns the Readiness named s, or an error naming the valid values.
func ParseReadiness(s string) (Readiness, error) {
	for _, r := range Readinesses {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown readiness model %q: use one of batched, instant, never, timed", s)
}

// Timing is the time model of ReadinessTimed: when each pod becomes Ready. A pod becomes
// available spec.minReadySeconds after it is Ready (the Deployment's value for every pod).
type Timing struct {
	// ReadyAfter is how long a pod takes from its creation to Ready. The k-th pod that takes
	// a value from it (k from 0) takes ReadyAfter[k % len(ReadyAfter)]: first the pods that
	// exist at the start without being available and without a Pending entry (ReplicaSets
	// oldest first), then the pods the plan creates, in the order the ReplicaSet controller
	// creates them. At least one value, none negative (Simulate returns an error otherwise).
	// pkg/estimate builds it from a flag or from the Deployment's own pods.
	ReadyAfter []time.Duration
	// Pending gives, by name of an existing ReplicaSet, when its pods that are not available
	// at the start become Ready, one offset from the plan's start per such pod (negative: Ready
	// already, waiting out minReadySeconds). Extra values are ignored; missing ones are
	// taken from ReadyAfter as if the pod were created at the start. Optional.
	Pending map[string][]time.Duration
	// SyncLatency is the controllers' reaction time per write: the pods a ReplicaSet write
	// asks for are created this long after it (so Ready SyncLatency + ReadyAfter after it).
	// It stands for every delay of the chain the model leaves out: the ReplicaSet
	// controller creating the pods, the ReplicaSet's and the Deployment's status updates,
	// the Deployment controller's next sync. 0 (the upstream controller in the conformance
	// harness, which reacts at once) keeps the model exact; not negative (Simulate returns
	// an error). pkg/estimate fits it to the Deployment's last rollout.
	SyncLatency time.Duration
}

// Input is the state the planner starts from.
type Input struct {
	// Deployment is the desired Deployment, after the change (template, replicas, strategy,
	// paused), with the server's defaults applied and its live status (status.collisionCount,
	// status.replicas) kept. Required.
	Deployment *appsv1.Deployment
	// ReplicaSets are the ReplicaSets the controller claims: those the Deployment owns
	// (controller ownerRef) and the orphans whose labels match the selector, which the
	// controller adopts before it decides anything (cluster.State.ReplicaSets). Spec,
	// annotations and status as read from the API server; they are not modified.
	ReplicaSets []*appsv1.ReplicaSet
	// Readiness is the availability assumption; empty means ReadinessBatched.
	Readiness Readiness
	// Now is the creation time the new ReplicaSet would get (second precision, as the API
	// server stores it). Zero means "later than every existing ReplicaSet".
	Now metav1.Time
	// MaxSyncs bounds the number of controller syncs simulated; 0 means no bound but the
	// built-in guard against a controller that never settles (it returns ErrNoFixedPoint).
	MaxSyncs int
	// Timing is the time model; required for ReadinessTimed, ignored by the other models.
	Timing *Timing
	// PodCap, when set, caps the pods that can become available, for a cluster that refuses
	// or cannot schedule some of them (pkg/feasibility: quota, node capacity). Each time the
	// readiness model makes pods available, the planner calls it with every ReplicaSet's name
	// and spec.replicas (Plan.ReplicaSets order; 0 for a ReplicaSet not created yet or
	// deleted) and it returns, in the same order, how many pods of each can be available;
	// pods available already stay available. The function may keep state between calls
	// (the calls follow the plan's writes in order). nil: no cap. Batched and instant only
	// (Simulate returns an error under ReadinessTimed; under ReadinessNever new pods never
	// become available anyway).
	PodCap func(names []string, replicas []int32) []int32
}

// Outcome is how a plan ends.
type Outcome string

const (
	// OutcomeComplete: the new ReplicaSet has spec.replicas available pods and no old pod is left.
	OutcomeComplete Outcome = "Complete"
	// OutcomeStalled: the controller stops writing before the rollout is complete (under
	// ReadinessNever, or because pods that exist already stay unavailable). After
	// progressDeadlineSeconds without progress the controller reports ProgressDeadlineExceeded.
	OutcomeStalled Outcome = "Stalled"
	// OutcomeNoChange: the Deployment is complete and the controller makes no ReplicaSet
	// write at all. Precedence of the outcomes: complete without a write is NoChange;
	// complete is Complete; otherwise Paused for a paused Deployment, else Stalled (a
	// stuck rollout without a write is Stalled, not NoChange).
	OutcomeNoChange Outcome = "NoChange"
	// OutcomePaused: the Deployment is paused; the paused controller's writes (proportional
	// scaling) are the steps, and a pending template change is not rolled out until resumed.
	OutcomePaused Outcome = "Paused"
)

// Wait says what a step waits for before the controller makes it.
type Wait string

const (
	// WaitNone: the step follows the previous one in the same burst of syncs.
	WaitNone Wait = ""
	// WaitPodsAvailable: the step is made only once the pods of earlier steps are available.
	WaitPodsAvailable Wait = "PodsAvailable"
	// WaitOldPodsTerminated: Recreate creates or scales up the new ReplicaSet only once every
	// old pod is gone.
	WaitOldPodsTerminated Wait = "OldPodsTerminated"
)

// Decision names the controller function that makes a write; it is the planner's explanation
// of a step, in the controller's own vocabulary.
type Decision string

const (
	// DecisionCreateNewRS: getNewReplicaSet creates the new ReplicaSet with NewRSNewReplicas pods.
	DecisionCreateNewRS Decision = "CreateNewReplicaSet"
	// DecisionScaleUpNewRS: reconcileNewReplicaSet scales the new ReplicaSet up (NewRSNewReplicas).
	DecisionScaleUpNewRS Decision = "ScaleUpNewReplicaSet"
	// DecisionScaleDownNewRS: reconcileNewReplicaSet scales a new ReplicaSet above spec.replicas down.
	DecisionScaleDownNewRS Decision = "ScaleDownNewReplicaSet"
	// DecisionCleanupUnhealthy: cleanupUnhealthyReplicas removes unavailable old replicas.
	DecisionCleanupUnhealthy Decision = "CleanupUnhealthyReplicas"
	// DecisionScaleDownOldRS: scaleDownOldReplicaSetsForRollingUpdate, oldest first.
	DecisionScaleDownOldRS Decision = "ScaleDownOldReplicaSets"
	// DecisionRecreateScaleDown: scaleDownOldReplicaSetsForRecreate scales every old RS to 0.
	DecisionRecreateScaleDown Decision = "RecreateScaleDownOld"
	// DecisionRecreateScaleUp: scaleUpNewReplicaSetForRecreate scales the new RS to spec.replicas.
	DecisionRecreateScaleUp Decision = "RecreateScaleUpNew"
	// DecisionScaleActiveOrLatest: scale() on a scaling event or paused Deployment with at
	// most one active ReplicaSet sets it to spec.replicas.
	DecisionScaleActiveOrLatest Decision = "ScaleActiveOrLatest"
	// DecisionScaleDownSaturated: scale() with a saturated new ReplicaSet scales old ones to 0.
	DecisionScaleDownSaturated Decision = "ScaleDownOldOfSaturated"
	// DecisionProportional: scale() distributes replicas+maxSurge proportionally.
	DecisionProportional Decision = "ProportionalScaling"
)

// Plan is the planner's result: every ReplicaSet write the controller makes, in order.
type Plan struct {
	// Namespace and Name of the Deployment.
	Namespace, Name string
	// Replicas is the desired spec.replicas.
	Replicas int32
	// Strategy is the resolved strategy.
	Strategy Strategy
	// Paused is spec.paused.
	Paused bool
	// Readiness is the assumption the plan was made under.
	Readiness Readiness
	// ProgressDeadlineSeconds is spec.progressDeadlineSeconds (nil: not set).
	ProgressDeadlineSeconds *int32
	// MinReadySeconds is spec.minReadySeconds: under ReadinessTimed a pod is available this
	// long after it is Ready.
	MinReadySeconds int32
	// RevisionHistoryLimit is spec.revisionHistoryLimit (nil: keep all).
	RevisionHistoryLimit *int32

	// NewReplicaSet describes the ReplicaSet the Deployment's template maps to.
	NewReplicaSet NewReplicaSet
	// ReplicaSets lists every ReplicaSet in the plan (the existing ones, then the new one if
	// the plan creates it), oldest first as the controller orders them (creation time, then
	// name). Step.Replicas is indexed like this slice.
	ReplicaSets []ReplicaSetInfo
	// Initial holds the replicas of every ReplicaSet before the first step (indexed like
	// ReplicaSets; a ReplicaSet the plan creates starts at 0).
	Initial []int32
	// InitialAvailable holds the available pods of every ReplicaSet at the start.
	InitialAvailable []int32
	// Steps are the controller's replica writes in order.
	Steps []Step
	// Final holds every ReplicaSet's replicas at the end, and FinalAvailable their available
	// pods under the readiness model.
	Final, FinalAvailable []int32
	// Outcome is how the plan ends.
	Outcome Outcome
	// StalledReason says, for OutcomeStalled, what the controller waits for.
	StalledReason string
	// Cleanup lists the old ReplicaSets cleanupDeployment deletes under revisionHistoryLimit
	// once the rollout is complete (or, for a paused Deployment, at its next sync), in the
	// order it deletes them.
	Cleanup []CleanupEntry
	// Syncs is the number of controller syncs simulated.
	Syncs int

	// Duration is, under ReadinessTimed, how long the rollout takes from the plan's start:
	// until the Deployment's status is complete (DeploymentComplete) for Complete and
	// NoChange, and until the last change the controller makes or waits for otherwise
	// (a write, or a pod becoming Ready or available). 0 under the other models.
	Duration time.Duration
	// ProgressDeadlineAt is, under ReadinessTimed, the moment (from the plan's start) at
	// which the controller sets Progressing=False with reason ProgressDeadlineExceeded:
	// progressDeadlineSeconds after the Progressing condition's lastUpdateTime (the last
	// progress, as DeploymentProgressing computes it), when no progress comes before. The
	// controller notices it at its next resync, within a second. nil: never (the rollout
	// progresses often enough, no deadline is set, or the Deployment is paused or stuck in
	// a scaling event, whose syncs never check it). A Complete rollout can carry it too:
	// the deadline passed while pods were slow, and `kubectl rollout status` failed then.
	ProgressDeadlineAt *time.Duration
}

// Strategy is the Deployment strategy with the fenceposts resolved to pods.
type Strategy struct {
	// Type is RollingUpdate or Recreate.
	Type appsv1.DeploymentStrategyType
	// MaxSurge and MaxUnavailable as written in the spec (for example "25%"); empty for Recreate.
	MaxSurgeSpec, MaxUnavailableSpec string
	// MaxSurge and MaxUnavailable in pods after ResolveFenceposts (surge rounds up,
	// unavailable down, both 0 makes unavailable 1, unavailable capped at replicas).
	MaxSurge, MaxUnavailable int32
}

// NewReplicaSet describes the ReplicaSet that the Deployment's pod template maps to.
type NewReplicaSet struct {
	// Name is <deployment>-<pod-template-hash>, truncated as generateReplicaSetName does.
	Name string
	// PodTemplateHash is controller.ComputeHash of the template with the collision count.
	// For an existing ReplicaSet it is that ReplicaSet's pod-template-hash label.
	PodTemplateHash string
	// Revision is the revision the new ReplicaSet carries once the controller has synced.
	Revision int64
	// PreviousRevision is an existing ReplicaSet's revision before the sync (0 when created).
	PreviousRevision int64
	// RevisionHistory is the deployment.kubernetes.io/revision-history annotation it will carry.
	RevisionHistory string
	// Exists: the ReplicaSet exists already (the rollout is in flight, or it is reused).
	Exists bool
	// Reused: an existing ReplicaSet with an older revision is reused, as by a rollback.
	Reused bool
	// CollisionCount is the status.collisionCount the hash is computed with.
	CollisionCount *int32
	// Created: the plan creates this ReplicaSet.
	Created bool
}

// ReplicaSetInfo identifies one ReplicaSet of a plan.
type ReplicaSetInfo struct {
	Name string
	// Revision is the deployment.kubernetes.io/revision annotation (0 if absent or invalid);
	// for the new ReplicaSet, the revision it will carry.
	Revision int64
	// New marks the Deployment's new ReplicaSet.
	New bool
}

// Step is one ReplicaSet write of the controller that changes spec.replicas (or creates the
// ReplicaSet).
type Step struct {
	// ReplicaSet indexes Plan.ReplicaSets.
	ReplicaSet int
	// From and To are spec.replicas before and after the write (From is 0 for a create).
	From, To int32
	// Create marks the write that creates the new ReplicaSet.
	Create bool
	// Decision is the controller function that makes the write.
	Decision Decision
	// Wait says what the controller waits for before making the write.
	Wait Wait
	// Sync numbers the simulated controller sync (from 1) that makes the write. It orders
	// and groups writes (writes of one sync happen together); it is not the count of the
	// controller's real syncs, which also include syncs that only update the Deployment's
	// status (under batched the controller may need one more before pods become available).
	Sync int
	// Replicas holds spec.replicas of every ReplicaSet after the write, indexed like
	// Plan.ReplicaSets.
	Replicas []int32
	// Total is the sum of Replicas; Available is the number of available pods right after
	// the write (under the readiness model; a scale-down removes unavailable pods first).
	Total, Available int32
	// At is when the controller makes the write, from the plan's start (the first sync),
	// under ReadinessTimed; 0 under the other models, which have no time.
	At time.Duration
}

// CleanupEntry is an old ReplicaSet that cleanupDeployment will delete.
type CleanupEntry struct {
	// Name and Revision of the ReplicaSet.
	Name     string
	Revision int64
	// RollbackTarget marks the revision `kubectl rollout undo` (without --to-revision) would
	// return to after this rollout: deleting it removes the one-step rollback.
	RollbackTarget bool
}

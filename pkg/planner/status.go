package planner

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// deploymentStatus is the part of an apps/v1 DeploymentStatus that calculateStatus fills
// and DeploymentComplete and DeploymentProgressing read (observedGeneration is always the
// Deployment's generation after a sync, so it is left out).
type deploymentStatus struct {
	replicas, updated, ready, available int32
}

// calculateStatus is the status the controller computes at the end of a sync: status.replicas
// of every ReplicaSet (Replicas), of the new one (UpdatedReplicas), and their ready and
// available pods. Under the models without time a pod is ready when it is available.
//
// Mirrors calculateStatus, pkg/controller/deployment/sync.go, v1.36.3.
func (s *simulation) calculateStatus() deploymentStatus {
	var st deploymentStatus
	for _, rs := range s.live() {
		st.replicas += rs.statusReplicas
		st.available += rs.available
		st.ready += rs.readyCount(s.readiness)
	}
	if newRS := s.existingNewRS(); newRS != nil {
		st.updated = newRS.statusReplicas
	}
	return st
}

// deploymentComplete mirrors DeploymentComplete, pkg/controller/deployment/util, v1.36.3:
// every pod is updated and available and no other pod is left.
func (s *simulation) deploymentComplete(st deploymentStatus) bool {
	return st.updated == s.replicas && st.replicas == s.replicas && st.available == s.replicas
}

// deploymentProgressing mirrors DeploymentProgressing, pkg/controller/deployment/util,
// v1.36.3: against the status last written (old), new pods were added, old pods went, or
// more pods are ready or available.
func deploymentProgressing(old, cur deploymentStatus) bool {
	return cur.updated > old.updated ||
		cur.replicas-cur.updated < old.replicas-old.updated ||
		cur.ready > old.ready ||
		cur.available > old.available
}

// Reasons of the Deployment's Progressing condition (deploymentutil's constants).
const (
	reasonNewRSAvailable = "NewReplicaSetAvailable"
	reasonRSUpdated      = "ReplicaSetUpdated"
	reasonNewRS          = "NewReplicaSetCreated"
	reasonFoundNewRS     = "FoundNewReplicaSet"
	reasonTimedOut       = "ProgressDeadlineExceeded"
	reasonPaused         = "DeploymentPaused"
	reasonResumed        = "DeploymentResumed"
)

// progressCondition is the Deployment's Progressing condition as far as the deadline needs
// it: whether it is there, its status and reason, and its lastUpdateTime as an offset from
// the plan's start.
type progressCondition struct {
	set        bool
	status     corev1.ConditionStatus
	reason     string
	lastUpdate time.Duration
}

// progressState follows the Deployment's stored status and Progressing condition through a
// timed simulation, to find when ProgressDeadlineExceeded is set.
type progressState struct {
	hasDeadline bool
	deadline    time.Duration // progressDeadlineSeconds
	stored      deploymentStatus
	cond        progressCondition
	// rolloutPath: the last sync went through rolloutRolling/rolloutRecreate, which check
	// the deadline (syncRolloutStatus); sync() (paused, scaling event) never does.
	rolloutPath bool
}

// newProgressState reads the Deployment's status and Progressing condition as given; a
// condition's lastUpdateTime counts from now (Input.Now), or as the plan's start when now
// is zero.
func newProgressState(d *appsv1.Deployment, now time.Time) progressState {
	ps := progressState{
		stored: deploymentStatus{replicas: d.Status.Replicas, updated: d.Status.UpdatedReplicas,
			ready: d.Status.ReadyReplicas, available: d.Status.AvailableReplicas},
	}
	if pds := d.Spec.ProgressDeadlineSeconds; pds != nil && *pds != 1<<31-1 {
		ps.hasDeadline = true
		ps.deadline = time.Duration(*pds) * time.Second
	}
	for _, c := range d.Status.Conditions {
		if c.Type != appsv1.DeploymentProgressing {
			continue
		}
		ps.cond = progressCondition{set: true, status: c.Status, reason: c.Reason}
		if !now.IsZero() && !c.LastUpdateTime.IsZero() {
			ps.cond.lastUpdate = c.LastUpdateTime.Sub(now)
		}
	}
	return ps
}

// setCondition mirrors deploymentutil.SetDeploymentCondition for the Progressing condition:
// nothing changes when the status and reason are the same.
func (ps *progressState) setCondition(status corev1.ConditionStatus, reason string, now time.Duration) {
	if ps.cond.set && ps.cond.status == status && ps.cond.reason == reason {
		return
	}
	ps.cond = progressCondition{set: true, status: status, reason: reason, lastUpdate: now}
}

// checkPausedConditions mirrors DeploymentController.checkPausedConditions (sync.go), at the
// start of every sync.
func (ps *progressState) checkPausedConditions(paused bool, now time.Duration) {
	if !ps.hasDeadline || (ps.cond.set && ps.cond.reason == reasonTimedOut) {
		return
	}
	pausedCond := ps.cond.set && ps.cond.reason == reasonPaused
	switch {
	case paused && !pausedCond:
		ps.setCondition(corev1.ConditionUnknown, reasonPaused, now)
	case !paused && pausedCond:
		ps.setCondition(corev1.ConditionUnknown, reasonResumed, now)
	}
}

// syncRolloutStatus mirrors the Progressing part of DeploymentController.syncRolloutStatus
// (progress.go): complete -> NewReplicaSetAvailable; progress -> ReplicaSetUpdated with
// lastUpdateTime now; otherwise the deadline is checked (timedOut reports whether it passed).
func (ps *progressState) syncRolloutStatus(cur deploymentStatus, complete bool, now time.Duration) {
	defer func() { ps.stored = cur }()
	if !ps.hasDeadline {
		ps.cond = progressCondition{}
		return
	}
	if cur.replicas == cur.updated && ps.cond.set && ps.cond.reason == reasonNewRSAvailable {
		return
	}
	switch {
	case complete:
		ps.setCondition(corev1.ConditionTrue, reasonNewRSAvailable, now)
	case deploymentProgressing(ps.stored, cur):
		ps.cond = progressCondition{set: true, status: corev1.ConditionTrue, reason: reasonRSUpdated, lastUpdate: now}
	case ps.timedOut(now):
		ps.setCondition(corev1.ConditionFalse, reasonTimedOut, now)
	}
}

// timedOut mirrors deploymentutil.DeploymentTimedOut: the condition's lastUpdateTime plus
// progressDeadlineSeconds is before now.
func (ps *progressState) timedOut(now time.Duration) bool {
	if !ps.hasDeadline || !ps.cond.set || ps.cond.reason == reasonNewRSAvailable {
		return false
	}
	return ps.cond.reason == reasonTimedOut || ps.cond.lastUpdate+ps.deadline < now
}

// pendingDeadline returns the moment the deadline passes if the controller would notice it
// (requeueStuckDeployment: the last sync checked progress, the rollout is neither complete
// nor timed out already).
func (ps *progressState) pendingDeadline() (time.Duration, bool) {
	if !ps.rolloutPath || !ps.hasDeadline || !ps.cond.set {
		return 0, false
	}
	switch ps.cond.reason {
	case reasonNewRSAvailable, reasonTimedOut:
		return 0, false
	}
	return ps.cond.lastUpdate + ps.deadline, true
}

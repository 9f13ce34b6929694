package drive

import (
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// Annotation is the Deployment annotation that marks a Deployment held by drive and keeps
// the drive's state (a JSON State). The Deployment controller copies Deployment annotations
// to the new ReplicaSet; drive removes the copy after it hands back.
const Annotation = "rollplan.dev/drive"

// StateVersion is the version of the State schema this package writes and reads.
const StateVersion = 1

// Phase is what a held Deployment is being walked to.
type Phase string

const (
	// PhaseForward: walking to the target template (drive).
	PhaseForward Phase = "Forward"
	// PhaseAbort: walking back to the previous ReplicaSet (abort); the hand-back restores
	// the previous template.
	PhaseAbort Phase = "Abort"
)

// State is the drive's state, kept as JSON in the Annotation of the Deployment it holds.
// With the ReplicaSets themselves it is all a driver needs to continue from any machine.
type State struct {
	// Version is StateVersion.
	Version int `json:"version"`
	// PlanID identifies one drive, from takeover to hand-back.
	PlanID string `json:"planID"`
	// Phase is Forward or Abort.
	Phase Phase `json:"phase"`

	// OriginalStrategy and OriginalPaused are spec.strategy and spec.paused before the
	// takeover; the hand-back restores them.
	OriginalStrategy appsv1.DeploymentStrategy `json:"originalStrategy"`
	OriginalPaused   bool                      `json:"originalPaused"`

	// TargetHash is the pod-template-hash of the template being rolled out and
	// NewReplicaSet its ReplicaSet's name.
	TargetHash    string `json:"targetHash"`
	NewReplicaSet string `json:"newReplicaSet"`
	// PreviousReplicaSet is the ReplicaSet of the template before the takeover (what abort
	// walks back to); empty if it had none.
	PreviousReplicaSet string `json:"previousReplicaSet,omitempty"`
	// Revision is the revision the new ReplicaSet carries.
	Revision int64 `json:"revision,omitempty"`

	// Replicas is spec.replicas the plan was made for; MaxSurge and MaxUnavailable the
	// original strategy's fenceposts resolved at Replicas.
	Replicas       int32 `json:"replicas"`
	MaxSurge       int32 `json:"maxSurge"`
	MaxUnavailable int32 `json:"maxUnavailable"`
	// PendingReplicas: the change sets spec.replicas to Replicas, which drive writes once
	// the new ReplicaSet exists (the paused controller would scale a lone ReplicaSet).
	PendingReplicas bool `json:"pendingReplicas,omitempty"`
	// Step counts the steps done; Steps is Step plus the steps left when last planned.
	Step  int `json:"step"`
	Steps int `json:"steps"`
	// Generation is metadata.generation after the driver's last spec write: a higher one
	// means someone else changed the spec.
	Generation int64 `json:"generation"`

	// Holder identifies the running driver ("user@host pid N/random"); empty when no driver
	// runs. LeaseExpires is when another driver may take over without --force.
	Holder       string     `json:"holder,omitempty"`
	LeaseExpires *time.Time `json:"leaseExpires,omitempty"`
	// LastHolder is the last driver that held the lease.
	LastHolder string `json:"lastHolder,omitempty"`

	// StartedAt is the takeover time; UpdatedAt the last write of the state.
	StartedAt time.Time `json:"startedAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// HeldSince and HeldReason say since when and why no driver runs (a hold, a timeout, an
	// edit), when one stopped on purpose.
	HeldSince  *time.Time `json:"heldSince,omitempty"`
	HeldReason string     `json:"heldReason,omitempty"`
	// Adopted: the drive took over a rollout it did not start (--adopt).
	Adopted bool `json:"adopted,omitempty"`
}

// Bounds returns the bounds the state was planned with.
func (s *State) Bounds() Bounds {
	return Bounds{Replicas: s.Replicas, MaxSurge: s.MaxSurge, MaxUnavailable: s.MaxUnavailable}
}

// LeaseValid reports whether a driver holds the lease at now.
func (s *State) LeaseValid(now time.Time) bool {
	return s.Holder != "" && s.LeaseExpires != nil && now.Before(*s.LeaseExpires)
}

// Encode returns the annotation value.
func (s *State) Encode() (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("encode drive state: %w", err)
	}
	return string(b), nil
}

// IsHeld reports whether d is held by drive: it carries the Annotation.
func IsHeld(d *appsv1.Deployment) bool {
	if d == nil {
		return false
	}
	_, ok := d.Annotations[Annotation]
	return ok
}

// ReadState returns the drive state of d, nil if d is not held.
//
// Errors: an annotation that is not a State of a version this package reads, naming the
// Deployment and what to do.
func ReadState(d *appsv1.Deployment) (*State, error) {
	v, ok := d.Annotations[Annotation]
	if !ok {
		return nil, nil
	}
	var s State
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return nil, fmt.Errorf("deployment %s/%s: annotation %s is not a drive state (%v): it was edited by hand; `kubectl rollplan resume` can still hand the Deployment back", d.Namespace, d.Name, Annotation, err)
	}
	if s.Version != StateVersion {
		return nil, fmt.Errorf("deployment %s/%s: annotation %s has state version %d, this kubectl-rollplan reads version %d: use the kubectl-rollplan that started the drive", d.Namespace, d.Name, Annotation, s.Version, StateVersion)
	}
	return &s, nil
}

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PlanConfig is reload's part of a RolloutPlan: what the Deployment's pods see of
// ConfigMaps and Secrets and what reload does about it. Names, keys, states and times only:
// never a value or a checksum. Fields are added, never renamed or removed, within v1alpha1.
type PlanConfig struct {
	// References are the ConfigMaps and Secrets the pod template references (containers and
	// initContainers: env keyRefs, envFrom, configMap, secret and projected volumes), in the
	// template's order. Never null: a Deployment without references has references: [].
	References []PlanConfigReference `json:"references"`
	// Decision is what reload does: restart (the template annotation
	// rollplan.dev/config-checksums is written: a rollout), adopt (the checksums are recorded
	// on the Deployment, no rollout), refuse (a non-optional reference is missing, or the
	// Deployment is paused: nothing is written) or none.
	Decision string `json:"decision"`
	// Reason says why, in one line: the changed references, the first-sight evidence, the
	// refusal (with what to do), or why nothing is done.
	Reason string `json:"reason"`
	// RecordedIn is where the checksums compared with were recorded: template (the last
	// restart's annotation), adopted (`reload --adopt`'s annotation on the Deployment), or
	// absent (first sight: none recorded).
	RecordedIn string `json:"recordedIn,omitempty"`
	// PossiblyStaleSince is, at first sight, the earliest config data write after the oldest
	// pod of the current ReplicaSet was created (RFC 3339, seconds); absent otherwise.
	PossiblyStaleSince *metav1.Time `json:"possiblyStaleSince,omitempty"`
}

// PlanConfigReference is one ConfigMap or Secret the pods see, with exactly the keys they
// see, and its state.
type PlanConfigReference struct {
	// Kind is ConfigMap or Secret.
	Kind string `json:"kind"`
	// Name is the object's name (in the Deployment's namespace).
	Name string `json:"name"`
	// AllKeys: the pods see every key (envFrom, a volume without items); Keys is then absent.
	AllKeys bool `json:"allKeys"`
	// Keys are the keys the pods see (sorted) when AllKeys is false.
	Keys []string `json:"keys,omitempty"`
	// Optional: every reference to it is optional: true, so pods start without it.
	Optional bool `json:"optional"`
	// State is current (the pods see this content), changed (changed since the last
	// restart or adoption recorded it), missing (it does not exist), possibly-stale (first
	// sight: its data was written after the current pods were created; Evidence says when)
	// or unrecorded (first sight, no such evidence).
	State string `json:"state"`
	// Evidence is, for possibly-stale, the write and the pods compared.
	Evidence *PlanConfigEvidence `json:"evidence,omitempty"`
}

// PlanConfigEvidence is why a reference is possibly stale at first sight: its data was last
// written (its managedFields entry owning data, binaryData or stringData) after the oldest
// pod of the Deployment's current ReplicaSet was created.
type PlanConfigEvidence struct {
	// DataWrittenAt is the managedFields entry's time (RFC 3339, seconds).
	DataWrittenAt metav1.Time `json:"dataWrittenAt"`
	// WrittenBy is that entry's field manager (kubectl-edit, kubectl-client-side-apply, ...).
	WrittenBy string `json:"writtenBy"`
	// ReplicaSet is the current ReplicaSet and OldestPodCreatedAt its oldest pod's creation.
	ReplicaSet         string      `json:"replicaSet"`
	OldestPodCreatedAt metav1.Time `json:"oldestPodCreatedAt"`
}

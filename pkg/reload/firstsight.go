package reload

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DataWrite is when a ConfigMap's or Secret's data was last written, and by which field
// manager, as its managedFields record it.
type DataWrite struct {
	// Time is the managedFields entry's time (seconds, as the API server stores it).
	Time time.Time
	// Manager is the entry's field manager ("kubectl-edit", "kubectl-client-side-apply", ...).
	Manager string
}

// dataFields are the top-level fields of a ConfigMap or Secret whose write changes what a
// pod sees (a Secret's stringData is written into data; managedFields may record either).
var dataFields = []string{"f:data", "f:binaryData", "f:stringData"}

// LastDataWrite returns the latest entry of fields (an object's metadata.managedFields)
// whose FieldsV1 owns data, binaryData or stringData, and true; false when none does (the
// object's managedFields were stripped, or it has no data). The API server updates an
// entry's time when its manager changes a field it owns, so the time is an upper bound of
// the last change of data by that manager, not proof that data changed then (the same
// manager may have changed only a label). Ties on time keep the first entry.
func LastDataWrite(fields []metav1.ManagedFieldsEntry) (DataWrite, bool) {
	var last DataWrite
	found := false
	for _, e := range fields {
		if e.Time == nil || e.FieldsV1 == nil || !ownsData(e.FieldsV1.Raw) {
			continue
		}
		if !found || e.Time.After(last.Time) {
			last, found = DataWrite{Time: e.Time.UTC(), Manager: e.Manager}, true
		}
	}
	return last, found
}

func ownsData(raw []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	for _, f := range dataFields {
		if _, ok := top[f]; ok {
			return true
		}
	}
	return false
}

// Pods says which pods run the Deployment's current template: its ReplicaSet and the
// creation time of the oldest of them (zero: no pod).
type Pods struct {
	ReplicaSet    string
	OldestCreated time.Time
}

// OldestPodOf is Pods of the ReplicaSet named rs from pods (a LIST of the Deployment's
// pods, say): the creation time of the oldest pod whose controller is a ReplicaSet of that
// name and that is not being deleted (zero OldestCreated: none). The watch mode finds the
// current ReplicaSet's name from the Deployment's template hash, as it has no ReplicaSets
// in its cache.
func OldestPodOf(rs string, pods []*corev1.Pod) Pods {
	out := Pods{ReplicaSet: rs}
	for _, p := range pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil || ref.Kind != "ReplicaSet" || ref.Name != rs || p.DeletionTimestamp != nil {
			continue
		}
		if t := p.CreationTimestamp.Time; out.OldestCreated.IsZero() || t.Before(out.OldestCreated) {
			out.OldestCreated = t
		}
	}
	return out
}

// Evidence is why one unrecorded reference is possibly stale: its data was written after
// the oldest pod of the current ReplicaSet was created.
type Evidence struct {
	// Ref is the reference's AnnotationKey ("configmap/app").
	Ref     string
	Written DataWrite
	Pods    Pods
}

// String is one line naming the reference, the write and the pods (names and times, never
// a value).
func (e Evidence) String() string {
	return fmt.Sprintf("%s data written %s by %s, after the oldest pod of replicaset %s was created %s",
		e.Ref, e.Written.Time.UTC().Format(time.RFC3339), e.Written.Manager, e.Pods.ReplicaSet,
		e.Pods.OldestCreated.UTC().Format(time.RFC3339))
}

// Assessment is the first-sight judgement of a Deployment whose references are (some of
// them) Unrecorded.
type Assessment struct {
	// PossiblyStale: some unrecorded reference's data was written after the oldest pod of
	// the current ReplicaSet was created, so that pod may run with older content.
	PossiblyStale bool
	// Since is the earliest such write: the pods are possibly stale since then.
	Since time.Time
	// Evidence holds one entry per such reference, in Decision.Refs order.
	Evidence []Evidence
	// Unknown names the unrecorded references (AnnotationKey) whose last data write is not
	// known (no managedFields entry owns data); they are not counted as stale.
	Unknown []string
}

// Summary is "possibly stale since T: EVIDENCE; ..." or "no evidence of stale pods", plus
// the references whose write time is unknown.
func (a Assessment) Summary() string {
	var parts []string
	if a.PossiblyStale {
		var ev []string
		for _, e := range a.Evidence {
			ev = append(ev, e.String())
		}
		parts = append(parts, fmt.Sprintf("possibly stale since %s: %s", a.Since.UTC().Format(time.RFC3339), strings.Join(ev, "; ")))
	} else {
		parts = append(parts, "no evidence of stale pods (their config was last written before they were created)")
	}
	if len(a.Unknown) > 0 {
		parts = append(parts, "last write unknown (no managedFields) for "+strings.Join(a.Unknown, ", "))
	}
	return strings.Join(parts, "; ")
}

// AssessFirstSight judges d's Unrecorded references from evidence, as no checksum says
// what the pods saw: writes holds each reference's last data write (LastDataWrite of the
// object, keyed by AnnotationKey; an absent key is unknown), pods the current ReplicaSet's
// pods. A write strictly after pods.OldestCreated makes the Deployment possibly stale (the
// kubelet reads env values when a container starts, after its pod is created, so a write
// in the same second is taken as seen). No pods (zero OldestCreated): nothing runs, not
// stale. Recorded and missing references are Decide's business and are not looked at.
func AssessFirstSight(d Decision, pods Pods, writes map[string]DataWrite) Assessment {
	var a Assessment
	for _, s := range d.Refs {
		if s.State != Unrecorded {
			continue
		}
		key := s.Ref.AnnotationKey()
		w, ok := writes[key]
		if !ok {
			a.Unknown = append(a.Unknown, key)
			continue
		}
		if pods.OldestCreated.IsZero() || !w.Time.After(pods.OldestCreated) {
			continue
		}
		a.Evidence = append(a.Evidence, Evidence{Ref: key, Written: w, Pods: pods})
		if !a.PossiblyStale || w.Time.Before(a.Since) {
			a.Since = w.Time
		}
		a.PossiblyStale = true
	}
	slices.Sort(a.Unknown)
	return a
}

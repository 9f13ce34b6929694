package reload

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
)

// ObjectKey names a ConfigMap or Secret: a pod references objects in its own namespace.
type ObjectKey struct {
	Namespace string
	Kind      Kind
	Name      string
}

// KeyOf is o's key in namespace.
func KeyOf(namespace string, o Object) ObjectKey {
	return ObjectKey{Namespace: namespace, Kind: o.Kind, Name: o.Name}
}

// State is what a reference looks like beside the checksum its Deployment last recorded.
type State string

// The states of a reference.
const (
	// Current: the checksum equals the recorded one; the pods see this content.
	Current State = "current"
	// Changed: the content the pods see changed since the last restart recorded it.
	Changed State = "changed"
	// Missing: the object does not exist (RefStatus.Ref.Optional says whether pods start
	// without it).
	Missing State = "missing"
	// Unrecorded: no checksum recorded yet (no annotation, a malformed one, or a
	// reference added since the last restart): first sight, no evidence either way.
	Unrecorded State = "unrecorded"
)

// ErrMissingReference is matched (errors.Is) by Decision.Refusal.
var ErrMissingReference = errors.New("a non-optional reference is missing")

// RefStatus is one reference of a Deployment and its state.
type RefStatus struct {
	Ref   Ref
	State State
	// Recorded is the checksum the annotation holds for Ref ("" for none).
	Recorded string
	// Checksum is the current checksum (AbsentChecksum for a missing object).
	Checksum string
}

// Decision says, for one Deployment, whether its pods run with outdated config and what a
// restart writes. It holds names, states and checksums (HMACs for Secrets), never a value.
type Decision struct {
	// Deployment is "namespace/name".
	Deployment string
	// Refs is one status per References of the pod template, in that order.
	Refs []RefStatus
	// Stale: some reference Changed, or an optional one recorded present is now Missing.
	Stale bool
	// Refusal is non-nil (matching ErrMissingReference) when a non-optional reference is
	// missing: the new pods would not start, so nothing may be written.
	Refusal error
	// AnnotationErr is non-nil when ChecksumsAnnotation or AdoptedAnnotation is present but
	// malformed; its checksums are not used (the references it would record are Unrecorded)
	// and a restart rewrites the template's.
	AnnotationErr error
	// Checksums is the ChecksumsAnnotation a restart writes (EncodeChecksums of it), every
	// reference's current checksum; nil when refused.
	Checksums map[string]string
	// RecordedIn says where the recorded checksums were read: RecordedInTemplate,
	// RecordedByAdopt, or RecordedNowhere (first sight).
	RecordedIn Record
}

// Record is where a Deployment's recorded checksums live.
type Record string

// Where recorded checksums are read from, in Decide's order.
const (
	// RecordedInTemplate: the pod template's ChecksumsAnnotation (a restart wrote it).
	RecordedInTemplate Record = "template"
	// RecordedByAdopt: the Deployment's AdoptedAnnotation (`reload --adopt` wrote it).
	RecordedByAdopt Record = "adopted"
	// RecordedNowhere: neither annotation: first sight.
	RecordedNowhere Record = ""
)

// FirstSight reports whether some reference is Unrecorded (no checksum recorded for it):
// staleness can then only be judged from evidence (see AssessFirstSight).
func (d Decision) FirstSight() bool {
	for _, s := range d.Refs {
		if s.State == Unrecorded {
			return true
		}
	}
	return false
}

// AbsentChecksum is the recorded checksum of an optional object that did not exist: its
// later creation is then a change.
const AbsentChecksum = "absent"

// Annotation is the ChecksumsAnnotation value a restart writes (EncodeChecksums of
// Checksums), or "" when refused.
func (d Decision) Annotation() string {
	if d.Refused() {
		return ""
	}
	return EncodeChecksums(d.Checksums)
}

// Refused reports whether a restart must not be made (Refusal is set).
func (d Decision) Refused() bool { return d.Refusal != nil }

// Decide compares the current checksum of every reference of dep's pod template, computed
// from objects (keyed by ObjectKey in dep's namespace; an absent key is a missing object),
// with the checksums its ChecksumsAnnotation recorded at the last restart (or, without it,
// those AdoptedAnnotation recorded on the Deployment by `reload --adopt`). XING's
// kubernetes-deployment-restart-controller keeps its checksums on the Deployment the same
// way, so a decision needs no memory of earlier events: a watcher started after a change
// finds the Deployment stale. Unlike Stakater Reloader and XING, only the keys a pod sees
// count. Nil dep: the zero Decision.
func Decide(dep *appsv1.Deployment, objects map[ObjectKey]Object) Decision {
	if dep == nil {
		return Decision{}
	}
	d := Decision{Deployment: dep.Namespace + "/" + dep.Name, Checksums: map[string]string{}}
	recorded := d.recorded(dep)
	var missing []string
	for _, ref := range References(&dep.Spec.Template) {
		s := RefStatus{Ref: ref, Recorded: recorded[ref.AnnotationKey()]}
		obj, ok := objects[ObjectKey{Namespace: dep.Namespace, Kind: ref.Kind, Name: ref.Name}]
		switch {
		case !ok:
			s.State, s.Checksum = Missing, AbsentChecksum
			if !ref.Optional {
				missing = append(missing, ref.AnnotationKey())
			}
			d.Stale = d.Stale || (ref.Optional && s.Recorded != "" && s.Recorded != AbsentChecksum)
		case s.Recorded == "":
			s.State, s.Checksum = Unrecorded, obj.Checksum(ref)
		default:
			s.Checksum = obj.Checksum(ref)
			s.State = Current
			if s.Checksum != s.Recorded {
				s.State, d.Stale = Changed, true
			}
		}
		d.Checksums[ref.AnnotationKey()] = s.Checksum
		d.Refs = append(d.Refs, s)
	}
	if len(missing) > 0 {
		d.Refusal = refusal(dep, missing)
		d.Checksums = nil
	}
	return d
}

// recorded returns the checksums recorded for dep, per key: the template's
// ChecksumsAnnotation, and for a key it lacks the Deployment's AdoptedAnnotation (a
// reference adopted after the last restart). It sets RecordedIn and AnnotationErr.
func (d *Decision) recorded(dep *appsv1.Deployment) map[string]string {
	tmpl, hasTmpl := dep.Spec.Template.Annotations[ChecksumsAnnotation]
	adopted, hasAdopted := dep.Annotations[AdoptedAnnotation]
	out := map[string]string{}
	if hasAdopted {
		d.RecordedIn = RecordedByAdopt
		m, err := decodeChecksums(AdoptedAnnotation, adopted)
		d.AnnotationErr = err
		maps.Copy(out, m)
	}
	if hasTmpl {
		d.RecordedIn = RecordedInTemplate
		m, err := DecodeChecksums(tmpl)
		if err != nil {
			d.AnnotationErr = err
			return map[string]string{}
		}
		maps.Copy(out, m)
	}
	return out
}

// refusal names the missing objects and what to do.
func refusal(dep *appsv1.Deployment, missing []string) error {
	return fmt.Errorf("restart of deployment %s/%s refused: %w: %s not found in namespace %s; "+
		"new pods would not start (CreateContainerConfigError for env, FailedMount for a volume): "+
		"create it, or mark the reference optional: true",
		dep.Namespace, dep.Name, ErrMissingReference, strings.Join(missing, ", "), dep.Namespace)
}

// String is one line: the Deployment, stale or not (refused, malformed annotation), then
// each reference and its state. Names only, never a value or checksum.
func (d Decision) String() string {
	var b strings.Builder
	b.WriteString("deployment " + d.Deployment)
	switch {
	case d.Refused():
		b.WriteString(": refused")
	case d.Stale:
		b.WriteString(": stale")
	default:
		b.WriteString(": not stale")
	}
	if d.AnnotationErr != nil {
		b.WriteString(" (malformed " + d.recordAnnotation() + ")")
	}
	for _, s := range d.Refs {
		fmt.Fprintf(&b, "; %s: %s", s.Ref, s.State)
	}
	return b.String()
}

// recordAnnotation names the annotation RecordedIn reads.
func (d Decision) recordAnnotation() string {
	if d.RecordedIn == RecordedByAdopt {
		return AdoptedAnnotation
	}
	return ChecksumsAnnotation
}

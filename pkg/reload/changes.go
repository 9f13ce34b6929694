package reload

import (
	"cmp"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Restarted returns a copy of dep as RestartPatch(dep, checksums) leaves it: its pod
// template's ChecksumsAnnotation set to EncodeChecksums(checksums), nothing else changed.
// It is the Deployment the planner simulates for the restart's rollout plan. Nil dep: nil.
func Restarted(dep *appsv1.Deployment, checksums map[string]string) *appsv1.Deployment {
	if dep == nil {
		return nil
	}
	out := dep.DeepCopy()
	if _, has := out.Spec.Template.Annotations[ChecksumsAnnotation]; has && adoptedEqual(out.Annotations, checksums) {
		delete(out.Spec.Template.Annotations, ChecksumsAnnotation)
		return out
	}
	if out.Spec.Template.Annotations == nil {
		out.Spec.Template.Annotations = map[string]string{}
	}
	out.Spec.Template.Annotations[ChecksumsAnnotation] = EncodeChecksums(checksums)
	return out
}

// Change is how one reference's recorded checksum differs between two pod templates.
type Change struct {
	// Ref is the AnnotationKey ("configmap/app").
	Ref string
	// How is ChangeModified, ChangeAdded (recorded only in the later template) or
	// ChangeRemoved (only in the earlier one).
	How string
}

// The ways a recorded reference changes between two templates.
const (
	ChangeModified = "changed"
	ChangeAdded    = "added"
	ChangeRemoved  = "removed"
)

// String is "configmap/app", "+configmap/app" (added) or "-configmap/app" (removed).
func (c Change) String() string {
	switch c.How {
	case ChangeAdded:
		return "+" + c.Ref
	case ChangeRemoved:
		return "-" + c.Ref
	}
	return c.Ref
}

// ConfigChanges names what changed in the config of a revision: the references whose
// checksum in cur's ChecksumsAnnotation differs from prev's (prev nil: the first
// revision, every recorded reference is added), sorted by AnnotationKey. A template
// without the annotation records nothing (no change from it or to it is claimed): nil, as
// for a malformed annotation (ok false then).
func ConfigChanges(prev, cur *corev1.PodTemplateSpec) (changes []Change, ok bool) {
	curSums, curOK := templateChecksums(cur)
	prevSums, prevOK := templateChecksums(prev)
	if !curOK || !prevOK {
		return nil, false
	}
	if curSums == nil {
		return nil, true
	}
	for _, k := range slices.Sorted(maps.Keys(curSums)) {
		before, had := prevSums[k]
		switch {
		case !had:
			changes = append(changes, Change{Ref: k, How: ChangeAdded})
		case before != curSums[k]:
			changes = append(changes, Change{Ref: k, How: ChangeModified})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(prevSums)) {
		if _, has := curSums[k]; !has {
			changes = append(changes, Change{Ref: k, How: ChangeRemoved})
		}
	}
	slices.SortStableFunc(changes, func(a, b Change) int { return cmp.Compare(a.Ref, b.Ref) })
	return changes, true
}

// templateChecksums decodes tmpl's ChecksumsAnnotation: nil and true without one (or a nil
// tmpl), false when malformed.
func templateChecksums(tmpl *corev1.PodTemplateSpec) (map[string]string, bool) {
	if tmpl == nil {
		return nil, true
	}
	v, has := tmpl.Annotations[ChecksumsAnnotation]
	if !has {
		return nil, true
	}
	m, err := DecodeChecksums(v)
	return m, err == nil
}

// Sees returns the reference of dep's pod template to the object kind/name (the merged Ref
// of References) and whether dep's pods see it at all.
func Sees(dep *appsv1.Deployment, kind Kind, name string) (Ref, bool) {
	if dep == nil {
		return Ref{}, false
	}
	for _, r := range References(&dep.Spec.Template) {
		if r.Kind == kind && r.Name == name {
			return r, true
		}
	}
	return Ref{}, false
}

// ChangesFor reports whether dep's pods would see a change when the object before (nil:
// it does not exist) becomes after (nil: deleted): true when dep references the object and
// the checksum over the keys it sees differs (a missing object checksums as
// AbsentChecksum). ref is the reference (zero when dep does not see the object). before
// and after must be the same kind and name (after's, or before's when after is nil, name
// the object).
func ChangesFor(dep *appsv1.Deployment, before, after *Object) (ref Ref, changed bool) {
	id := after
	if id == nil {
		id = before
	}
	if id == nil {
		return Ref{}, false
	}
	ref, ok := Sees(dep, id.Kind, id.Name)
	if !ok {
		return Ref{}, false
	}
	return ref, sumOrAbsent(before, ref) != sumOrAbsent(after, ref)
}

func sumOrAbsent(o *Object, ref Ref) string {
	if o == nil {
		return AbsentChecksum
	}
	return o.Checksum(ref)
}

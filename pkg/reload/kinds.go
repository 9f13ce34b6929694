package reload

import (
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// asDeployment is the Deployment-shaped view of w the Deployment decisions read: w's
// metadata (annotations: opt-in and AdoptedAnnotation) and pod template, nothing else.
func asDeployment(w workload.Workload) *appsv1.Deployment {
	m := w.Meta()
	dep := &appsv1.Deployment{}
	dep.Name, dep.Namespace, dep.UID = m.GetName(), m.GetNamespace(), m.GetUID()
	dep.Generation, dep.ResourceVersion = m.GetGeneration(), m.GetResourceVersion()
	dep.Annotations = m.GetAnnotations()
	dep.Spec.Template = *w.Template()
	return dep
}

// kindName is "statefulset" or "daemonset", as kubectl names the resource in messages.
func kindName(w workload.Workload) string { return strings.ToLower(string(w.Kind())) }

// DecideWorkload is Decide for a StatefulSet or DaemonSet: the same references (env,
// envFrom, volumes, projected), the same ChecksumsAnnotation on the pod template and
// AdoptedAnnotation on the object. Decision.Deployment names "namespace/name"; a refusal
// names the workload's kind. A zero Workload: the zero Decision.
func DecideWorkload(w workload.Workload, objects map[ObjectKey]Object) Decision {
	if w.StatefulSet == nil && w.DaemonSet == nil {
		return Decision{}
	}
	dep := asDeployment(w)
	d := Decide(dep, objects)
	if d.Refusal != nil {
		d.Refusal = fmt.Errorf("%s", strings.Replace(d.Refusal.Error(), "deployment "+dep.Namespace+"/"+dep.Name, kindName(w)+" "+dep.Namespace+"/"+dep.Name, 1))
	}
	return d
}

// OptedInWorkload is OptedIn for a StatefulSet or DaemonSet (the same three annotations).
func OptedInWorkload(w workload.Workload) bool {
	if w.StatefulSet == nil && w.DaemonSet == nil {
		return false
	}
	return OptedIn(asDeployment(w))
}

// ChangesForWorkload is ChangesFor for a StatefulSet or DaemonSet's pod template.
func ChangesForWorkload(w workload.Workload, before, after *Object) (Ref, bool) {
	if w.StatefulSet == nil && w.DaemonSet == nil {
		return Ref{}, false
	}
	return ChangesFor(asDeployment(w), before, after)
}

// WorkloadRestartPatch is RestartPatch for a StatefulSet or DaemonSet: the same RFC 6902
// patch (types.JSONPatchType) with the same guards (test /metadata/uid and
// /metadata/generation, then set only /spec/template/metadata/annotations'
// ChecksumsAnnotation). Both kinds keep their pod template at /spec/template, and a new
// template makes their controllers roll out a new ControllerRevision as `kubectl rollout
// restart` does with its restartedAt annotation (workload.RestartPatch); identical
// checksums give an identical template, so restoring old config reuses the old revision.
// Errors: a zero Workload, checksums nil, or no UID or generation.
func WorkloadRestartPatch(w workload.Workload, checksums map[string]string) ([]byte, error) {
	if w.StatefulSet == nil && w.DaemonSet == nil {
		return nil, fmt.Errorf("restart patch: no statefulset or daemonset")
	}
	m := w.Meta()
	id := kindName(w) + " " + m.GetNamespace() + "/" + m.GetName()
	if checksums == nil {
		return nil, fmt.Errorf("restart patch for %s: no checksums (a refused restart writes nothing)", id)
	}
	if m.GetUID() == "" || m.GetGeneration() == 0 {
		return nil, fmt.Errorf("restart patch for %s: metadata.uid or metadata.generation unset: read the %s from the API server", id, kindName(w))
	}
	tmpl := w.Template()
	value := EncodeChecksums(checksums)
	path := templateAnnotations + "/" + jsonpatch.EscapeToken(ChecksumsAnnotation)
	ops := []jsonpatch.Op{
		jsonpatch.Test("/metadata/uid", string(m.GetUID())),
		jsonpatch.Test("/metadata/generation", m.GetGeneration()),
	}
	current, has := tmpl.Annotations[ChecksumsAnnotation]
	switch {
	case has && adoptedEqual(m.GetAnnotations(), checksums):
		ops = append(ops, jsonpatch.Test(path, current), jsonpatch.Remove(path))
	case has:
		ops = append(ops, jsonpatch.Test(path, current), jsonpatch.Replace(path, value))
	case tmpl.Annotations == nil:
		ops = append(ops, jsonpatch.Add(templateAnnotations, map[string]string{ChecksumsAnnotation: value}))
	default:
		ops = append(ops, jsonpatch.Add(path, value))
	}
	return json.Marshal(ops)
}

// WorkloadAdoptPatch is AdoptPatch for a StatefulSet or DaemonSet: it records checksums as
// the object's AdoptedAnnotation (metadata, not the template: no restart), guarded by its
// UID and resourceVersion. Errors: as AdoptPatch.
func WorkloadAdoptPatch(w workload.Workload, checksums map[string]string) ([]byte, error) {
	if w.StatefulSet == nil && w.DaemonSet == nil {
		return nil, fmt.Errorf("adopt patch: no statefulset or daemonset")
	}
	return AdoptPatch(asDeployment(w), checksums)
}

// RestartedWorkload is Restarted for a StatefulSet or DaemonSet: a deep copy of w whose pod
// template is as WorkloadRestartPatch(w, checksums) leaves it (ChecksumsAnnotation set, or
// removed when checksums equal the adopted record, giving back the adopted template). It is
// what the revision resolvers read to tell whether the restart reuses a ControllerRevision.
// A zero Workload: the zero Workload.
func RestartedWorkload(w workload.Workload, checksums map[string]string) workload.Workload {
	if w.StatefulSet == nil && w.DaemonSet == nil {
		return workload.Workload{}
	}
	tmpl := Restarted(asDeployment(w), checksums).Spec.Template
	if w.StatefulSet != nil {
		s := w.StatefulSet.DeepCopy()
		s.Spec.Template = tmpl
		return workload.Workload{StatefulSet: s}
	}
	d := w.DaemonSet.DeepCopy()
	d.Spec.Template = tmpl
	return workload.Workload{DaemonSet: d}
}

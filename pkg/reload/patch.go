package reload

import (
	"encoding/json"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
)

const templateAnnotations = "/spec/template/metadata/annotations"

// RestartPatch returns the RFC 6902 JSON patch (types.JSONPatchType; pkg/kube sends it,
// under its field manager) that restarts dep's pods by setting only the pod template's
// ChecksumsAnnotation to EncodeChecksums(checksums), normally Decision.Checksums. The new
// template makes the Deployment controller roll out a new ReplicaSet, as `kubectl rollout
// restart` does with its restartedAt annotation and as Pusher's Wave does with its hash;
// identical checksums give an identical template, so restoring old config reuses the old
// ReplicaSet.
//
// Guards, so a concurrent restart is not doubled and nothing else is overwritten:
//   - test /metadata/uid: the same Deployment, not one recreated under its name;
//   - test /metadata/generation: any spec write since dep was read (another restart
//     included) bumps it, while status writes do not; RFC 6902 has no test of absence, so
//     this is what proves the annotation (or the annotations map) is still absent;
//   - test of the annotation's current value when dep has one, then replace; otherwise add
//     (the whole annotations map when the template has none).
//
// Errors: nil dep, checksums nil (a refused Decision), or dep without a UID or generation
// (not read from the API server).
func RestartPatch(dep *appsv1.Deployment, checksums map[string]string) ([]byte, error) {
	if dep == nil {
		return nil, fmt.Errorf("restart patch: no deployment")
	}
	if checksums == nil {
		return nil, fmt.Errorf("restart patch for deployment %s/%s: no checksums (a refused restart writes nothing)", dep.Namespace, dep.Name)
	}
	if dep.UID == "" || dep.Generation == 0 {
		return nil, fmt.Errorf("restart patch for deployment %s/%s: metadata.uid or metadata.generation unset: read the deployment from the API server", dep.Namespace, dep.Name)
	}
	value := EncodeChecksums(checksums)
	path := templateAnnotations + "/" + jsonpatch.EscapeToken(ChecksumsAnnotation)
	ops := []jsonpatch.Op{
		jsonpatch.Test("/metadata/uid", string(dep.UID)),
		jsonpatch.Test("/metadata/generation", dep.Generation),
	}
	current, has := dep.Spec.Template.Annotations[ChecksumsAnnotation]
	switch {
	case has && adoptedEqual(dep.Annotations, checksums):
		// Back to the config as adopted: give back the adopted template, so the controller
		// reuses that revision.
		ops = append(ops, jsonpatch.Test(path, current), jsonpatch.Remove(path))
	case has:
		ops = append(ops, jsonpatch.Test(path, current), jsonpatch.Replace(path, value))
	case dep.Spec.Template.Annotations == nil:
		ops = append(ops, jsonpatch.Add(templateAnnotations, map[string]string{ChecksumsAnnotation: value}))
	default:
		ops = append(ops, jsonpatch.Add(path, value))
	}
	return json.Marshal(ops)
}

// AdoptPatch returns the RFC 6902 JSON patch that records checksums (normally
// Decision.Checksums) as the Deployment's AdoptedAnnotation, in its metadata: `reload
// --adopt` takes the running pods to see the current content without restarting them (a
// pod template change would). Guards: test /metadata/uid and /metadata/resourceVersion,
// then add or replace the annotation (the whole annotations map when dep has none). The
// generation would not do as the guard: the API server bumps it for a spec or an
// annotation write (so this patch bumps it too) but not for a label write
// (PrepareForUpdate, pkg/registry/apps/deployment/strategy.go, v1.36.3); only the
// resourceVersion proves the whole object is as read (pkg/kube renews it when only the
// status moved).
//
// Errors: nil dep, checksums nil (a refused Decision), or dep without a UID or
// resourceVersion (not read from the API server).
func AdoptPatch(dep *appsv1.Deployment, checksums map[string]string) ([]byte, error) {
	if dep == nil {
		return nil, fmt.Errorf("adopt patch: no deployment")
	}
	if checksums == nil {
		return nil, fmt.Errorf("adopt patch for deployment %s/%s: no checksums (a refused decision records nothing)", dep.Namespace, dep.Name)
	}
	if dep.UID == "" || dep.ResourceVersion == "" {
		return nil, fmt.Errorf("adopt patch for deployment %s/%s: metadata.uid or metadata.resourceVersion unset: read the deployment from the API server", dep.Namespace, dep.Name)
	}
	return AdoptPatchAt(dep, checksums, dep.ResourceVersion)
}

// AdoptPatchAt is AdoptPatch guarded by resourceVersion rv instead of dep's (for
// kube.GuardedPatch.Renew).
func AdoptPatchAt(dep *appsv1.Deployment, checksums map[string]string, rv string) ([]byte, error) {
	value := EncodeChecksums(checksums)
	ops := []jsonpatch.Op{
		jsonpatch.Test("/metadata/uid", string(dep.UID)),
		jsonpatch.Test("/metadata/resourceVersion", rv),
	}
	if dep.Annotations == nil {
		ops = append(ops, jsonpatch.Add("/metadata/annotations", map[string]string{AdoptedAnnotation: value}))
	} else {
		ops = append(ops, jsonpatch.Add("/metadata/annotations/"+jsonpatch.EscapeToken(AdoptedAnnotation), value))
	}
	return json.Marshal(ops)
}

// adoptedEqual reports whether annotations record AdoptedAnnotation checksums equal to
// checksums (a restart back to the config as it was at adoption).
func adoptedEqual(annotations, checksums map[string]string) bool {
	v, ok := annotations[AdoptedAnnotation]
	if !ok {
		return false
	}
	m, err := decodeChecksums(AdoptedAnnotation, v)
	return err == nil && maps.Equal(m, checksums)
}

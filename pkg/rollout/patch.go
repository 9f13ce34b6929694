package rollout

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kubectl/pkg/scheme"

	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
)

// Patch is a patch for a Deployment, as kubectl would send it, and the guarded form rollplan
// sends.
type Patch struct {
	// Type is the patch type: JSON patch for undo, strategic merge patch for pause, resume
	// and restart (the types kubectl uses).
	Type types.PatchType
	// Kubectl is the body kubectl v0.36.3 sends for the same command, byte for byte.
	Kubectl []byte
	// Guarded is Kubectl with a precondition on metadata.resourceVersion (see GuardJSONPatch
	// and GuardMergePatch): the body rollplan sends.
	Guarded []byte
	// ResourceVersion is the resourceVersion the guard holds the Deployment to.
	ResourceVersion string
}

// RollbackPatch returns the JSON patch `kubectl rollout undo` sends to restore template and
// annotations: `[{"op":"replace","path":"/spec/template","value":TEMPLATE},
// {"op":"replace","path":"/metadata/annotations","value":ANNOTATIONS}]`. template must
// already be without the pod-template-hash label; annotations must not be nil (kubectl always
// sends an object, `{}` when empty).
//
// Mirrors getDeploymentPatch, k8s.io/kubectl/pkg/polymorphichelpers/rollback.go, v0.36.3,
// including its encoder (k8s.io/apimachinery/pkg/util/json.Marshal).
func RollbackPatch(template *corev1.PodTemplateSpec, annotations map[string]string) ([]byte, error) {
	return utiljson.Marshal([]interface{}{
		map[string]interface{}{
			"op":    "replace",
			"path":  "/spec/template",
			"value": template,
		},
		map[string]interface{}{
			"op":    "replace",
			"path":  "/metadata/annotations",
			"value": annotations,
		},
	})
}

// GuardJSONPatch prepends to a JSON patch (a JSON array of operations) the operation
// `{"op":"test","path":"/metadata/resourceVersion","value":RV}`: the API server applies the
// patch only if the Deployment still has that resourceVersion, and otherwise answers 422
// with "testing value /metadata/resourceVersion failed". The operations of patch follow
// unchanged (same bytes).
func GuardJSONPatch(patch []byte, resourceVersion string) ([]byte, error) {
	if resourceVersion == "" {
		return nil, fmt.Errorf("guard patch: the Deployment has no resourceVersion (was it read from a cluster?)")
	}
	if len(patch) < 2 || patch[0] != '[' || patch[len(patch)-1] != ']' {
		return nil, fmt.Errorf("guard patch: not a JSON patch array: %.40q", patch)
	}
	test, err := utiljson.Marshal(jsonpatch.Test("/metadata/resourceVersion", resourceVersion))
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(patch)+len(test)+2)
	out = append(out, '[')
	out = append(out, test...)
	if rest := patch[1:]; string(rest) != "]" {
		out = append(out, ',')
		out = append(out, rest...)
	} else {
		out = append(out, ']')
	}
	return out, nil
}

// GuardMergePatch adds `"metadata":{"resourceVersion":RV}` to a strategic merge patch: the
// API server then uses RV as the precondition of the update and answers 409 Conflict if the
// Deployment has changed since. Keys come out sorted (encoding/json), so
// `{"spec":{"paused":true}}` becomes `{"metadata":{"resourceVersion":"42"},"spec":{"paused":true}}`.
func GuardMergePatch(patch []byte, resourceVersion string) ([]byte, error) {
	if resourceVersion == "" {
		return nil, fmt.Errorf("guard patch: the Deployment has no resourceVersion (was it read from a cluster?)")
	}
	m := map[string]interface{}{}
	if err := json.Unmarshal(patch, &m); err != nil {
		return nil, fmt.Errorf("guard patch: %w", err)
	}
	meta, _ := m["metadata"].(map[string]interface{})
	if meta == nil {
		meta = map[string]interface{}{}
	}
	meta["resourceVersion"] = resourceVersion
	m["metadata"] = meta
	return json.Marshal(m)
}

// MergePatch returns the strategic merge patch kubectl's rollout pause, resume and restart
// send to turn before into after: both are encoded as kubectl encodes them (before with
// scheme.DefaultJSONEncoder, after with the apps/v1 legacy codec) and diffed with
// strategicpatch.CreateTwoWayMergePatch. For pause this is `{"spec":{"paused":true}}`.
//
// Mirrors set.CalculatePatch (k8s.io/kubectl/pkg/cmd/set/helper.go) with the encoders of
// defaultObjectPauser (polymorphichelpers/objectpauser.go), v0.36.3.
func MergePatch(before, after *appsv1.Deployment) ([]byte, error) {
	b, err := runtime.Encode(scheme.DefaultJSONEncoder(), before)
	if err != nil {
		return nil, fmt.Errorf("encode deployment %s/%s: %w", before.Namespace, before.Name, err)
	}
	a, err := runtime.Encode(scheme.Codecs.LegacyCodec(appsv1.SchemeGroupVersion), after)
	if err != nil {
		return nil, fmt.Errorf("encode deployment %s/%s: %w", after.Namespace, after.Name, err)
	}
	p, err := strategicpatch.CreateTwoWayMergePatch(b, a, before)
	if err != nil {
		return nil, fmt.Errorf("patch for deployment %s/%s: %w", before.Namespace, before.Name, err)
	}
	return p, nil
}

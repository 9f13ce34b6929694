package workload

import (
	"bytes"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kubectl/pkg/scheme"
)

// RestartedAtAnnotation is the pod template annotation kubectl rollout restart sets.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

var appsCodec = scheme.Codecs.LegacyCodec(appsv1.SchemeGroupVersion)

// TemplatePatch returns the strategic merge patch that restores w's pod template,
// `{"spec":{"template":{...,"$patch":"replace"}}}`: what the controllers store as a
// ControllerRevision's data and what kubectl compares a revision with.
//
// Mirrors getStatefulSetPatch (the object encoded with the apps/v1 legacy codec) and
// getDaemonSetPatch (encoded with json.Marshal), k8s.io/kubectl/pkg/polymorphichelpers/
// rollback.go, v0.36.3.
func TemplatePatch(w Workload) ([]byte, error) {
	raw, err := encodeAsKubectl(w)
	if err != nil {
		return nil, err
	}
	var obj map[string]interface{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	spec := obj["spec"].(map[string]interface{})
	template := spec["template"].(map[string]interface{})
	template["$patch"] = "replace"
	return json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"template": template}})
}

// encodeAsKubectl encodes w's object as kubectl's rollbackers do before they patch or compare
// it: a StatefulSet with the apps/v1 legacy codec (getStatefulSetPatch, applyRevision), a
// DaemonSet with json.Marshal (getDaemonSetPatch, applyDaemonSetHistory).
func encodeAsKubectl(w Workload) ([]byte, error) {
	if w.StatefulSet != nil {
		return runtime.Encode(appsCodec, w.StatefulSet)
	}
	return json.Marshal(w.DaemonSet)
}

// Matches reports whether rev holds w's current pod template (kubectl's statefulsetMatch and
// daemonSetMatch: the bytes of TemplatePatch equal the revision's data).
func Matches(w Workload, rev *appsv1.ControllerRevision) (bool, error) {
	p, err := TemplatePatch(w)
	if err != nil {
		return false, err
	}
	return bytes.Equal(p, rev.Data.Raw), nil
}

// RevisionTemplate returns the pod template w would have with rev applied (kubectl's
// applyRevision for StatefulSets, applyDaemonSetHistory for DaemonSets: a strategic merge of
// the revision's data onto the object).
func RevisionTemplate(w Workload, rev *appsv1.ControllerRevision) (*corev1.PodTemplateSpec, error) {
	raw, err := encodeAsKubectl(w)
	if err != nil {
		return nil, err
	}
	patched, err := strategicpatch.StrategicMergePatch(raw, rev.Data.Raw, w.Object())
	if err != nil {
		return nil, fmt.Errorf("revision %d (%s): %w", rev.Revision, rev.Name, err)
	}
	if w.StatefulSet != nil {
		out := &appsv1.StatefulSet{}
		if err := json.Unmarshal(patched, out); err != nil {
			return nil, err
		}
		return &out.Spec.Template, nil
	}
	out := &appsv1.DaemonSet{}
	if err := json.Unmarshal(patched, out); err != nil {
		return nil, err
	}
	return &out.Spec.Template, nil
}

// RestartPatch returns the strategic merge patch `kubectl rollout restart` sends for w at now:
// the pod template annotation kubectl.kubernetes.io/restartedAt set to now in RFC 3339
// (second precision, now's location), `{"spec":{"template":{"metadata":{"annotations":
// {"kubectl.kubernetes.io/restartedAt":"..."}}}}}`. Empty (`{}`) when the template already
// has that value: kubectl then refuses ("if restart has already been triggered within the
// past second").
//
// Mirrors defaultObjectRestarter (polymorphichelpers/objectrestarter.go) and
// set.CalculatePatch (the original encoded with scheme.DefaultJSONEncoder, the result with
// the apps/v1 legacy codec, diffed by strategicpatch.CreateTwoWayMergePatch), v0.36.3.
func RestartPatch(w Workload, now time.Time) ([]byte, error) {
	// kubectl's objects come from the resource builder, with apiVersion and kind set.
	orig := w.Object().DeepCopyObject()
	orig.GetObjectKind().SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind(string(w.Kind())))
	before, err := runtime.Encode(scheme.DefaultJSONEncoder(), orig)
	if err != nil {
		return nil, err
	}
	obj := orig.DeepCopyObject()
	after, _ := Of(obj)
	t := after.Template()
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	t.Annotations[RestartedAtAnnotation] = now.Format(time.RFC3339)
	a, err := runtime.Encode(appsCodec, obj)
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(before, a, w.Object())
}

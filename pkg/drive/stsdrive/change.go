package stsdrive

import (
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// Change is the template change a drive starts with: container images (kubectl set image's
// CONTAINER=IMAGE pairs, *=IMAGE for all) and/or a restart (kubectl rollout restart's
// annotation).
type Change struct {
	Images  []string
	Restart bool
}

// Any reports whether c changes anything.
func (c Change) Any() bool { return len(c.Images) > 0 || c.Restart }

// StartPatch is the strategic merge patch of the drive's first write (pure): strategy
// RollingUpdate with the partition at spec.replicas (no pod is replaced yet) and c applied to
// the pod template (each container whose image changes, merged by name; the restart
// annotation kubectl.kubernetes.io/restartedAt, RFC 3339 at now, as kubectl rollout restart).
//
// Errors: change.SetImages's (a malformed pair, a container the template does not have: one
// line naming it and the containers there are).
func StartPatch(sts *appsv1.StatefulSet, c Change, now time.Time) ([]byte, error) {
	spec := map[string]any{
		"updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": replicasOf(sts)}},
	}
	tpl := map[string]any{}
	if len(c.Images) > 0 {
		// change.SetImages works on a Deployment's template: lend it the StatefulSet's.
		d, err := change.SetImages(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: sts.Spec.Template}}, c.Images)
		if err != nil {
			return nil, fmt.Errorf("statefulset %s/%s: %w", sts.Namespace, sts.Name, err)
		}
		podSpec := map[string]any{}
		if cs := changedImages(sts.Spec.Template.Spec.Containers, d.Spec.Template.Spec.Containers); cs != nil {
			podSpec["containers"] = cs
		}
		if cs := changedImages(sts.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.InitContainers); cs != nil {
			podSpec["initContainers"] = cs
		}
		if len(podSpec) > 0 {
			tpl["spec"] = podSpec
		}
	}
	if c.Restart {
		tpl["metadata"] = map[string]any{"annotations": map[string]any{workload.RestartedAtAnnotation: now.Format(time.RFC3339)}}
	}
	if len(tpl) > 0 {
		spec["template"] = tpl
	}
	return json.Marshal(map[string]any{"spec": spec})
}

// changedImages lists {name, image} for each container of after whose image differs in before.
func changedImages(before, after []corev1.Container) []map[string]any {
	var out []map[string]any
	for i := range after {
		if after[i].Image != before[i].Image {
			out = append(out, map[string]any{"name": after[i].Name, "image": after[i].Image})
		}
	}
	return out
}

// AbortPatch is the strategic merge patch of drive abort (pure): kubectl's StatefulSet
// rollback patch, the ControllerRevision's data (`{"spec":{"template":{...,"$patch":
// "replace"}}}`, statefulSetRollbacker in k8s.io/kubectl/pkg/polymorphichelpers/rollback.go,
// v0.36.3), with spec.updateStrategy.rollingUpdate.partition 0 in the same write.
func AbortPatch(rev *appsv1.ControllerRevision) ([]byte, error) {
	var obj map[string]any
	if err := json.Unmarshal(rev.Data.Raw, &obj); err != nil {
		return nil, fmt.Errorf("controllerrevision %s: %w", rev.Name, err)
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return nil, fmt.Errorf("controllerrevision %s has no spec.template to restore", rev.Name)
	}
	spec["updateStrategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": 0}}
	return json.Marshal(obj)
}

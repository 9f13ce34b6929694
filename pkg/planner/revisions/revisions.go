package revisions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Patch returns the data a ControllerRevision of a StatefulSet or DaemonSet with template
// holds: the JSON strategic merge patch {"spec":{"template":{...,"$patch":"replace"}}}, keys
// sorted, numbers passed through float64 as the controllers' map round trip does.
//
// The template must be the server-defaulted one (as stored in the object), or the bytes, and
// so the hash and the match, differ from the controller's.
//
// Mirrors getPatch, pkg/controller/statefulset/stateful_set_utils.go and
// pkg/controller/daemon/update.go, v1.36.3 (both encode only spec.template).
func Patch(template *corev1.PodTemplateSpec) ([]byte, error) {
	data, err := json.Marshal(template)
	if err != nil {
		return nil, fmt.Errorf("encode pod template: %w", err)
	}
	var raw map[string]interface{}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("decode pod template: %w", err)
	}
	raw["$patch"] = "replace"
	return json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"template": raw}})
}

// Template decodes the pod template a revision's patch data holds (the inverse of Patch, up to
// the "$patch" directive). It returns an error when data is not such a patch.
//
// Mirrors the template part of ApplyRevision, pkg/controller/statefulset, v1.36.3 (the
// replace directive makes the patched template the stored one).
func Template(data []byte) (*corev1.PodTemplateSpec, error) {
	var patch struct {
		Spec struct {
			Template *corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(data, &patch); err != nil {
		return nil, fmt.Errorf("decode revision data: %w", err)
	}
	if patch.Spec.Template == nil {
		return nil, fmt.Errorf("revision data holds no spec.template")
	}
	return patch.Spec.Template, nil
}

// Hash returns the hash a StatefulSet's ControllerRevision with data is named with: 32-bit
// FNV-1 over data, then, if collisionCount is set, its decimal text, encoded with
// rand.SafeEncodeString.
//
// Mirrors history.HashControllerRevision, pkg/controller/history, v1.36.3 (for Raw data).
func Hash(data []byte, collisionCount *int32) string {
	hf := fnv.New32()
	hf.Write(data)
	if collisionCount != nil {
		hf.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	return rand.SafeEncodeString(fmt.Sprint(hf.Sum32()))
}

// Name returns a StatefulSet ControllerRevision's name: "<prefix>-<hash>", prefix truncated
// to 223 bytes.
//
// Mirrors history.ControllerRevisionName, pkg/controller/history, v1.36.3.
func Name(prefix, hash string) string {
	if len(prefix) > 223 {
		prefix = prefix[:223]
	}
	return prefix + "-" + hash
}

// DaemonSetHash returns the hash a DaemonSet's ControllerRevision is named and labelled
// with: the pod-template hash of template with the collision count (not the patch's hash).
//
// Mirrors snapshot, pkg/controller/daemon/update.go, v1.36.3 (controller.ComputeHash).
func DaemonSetHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	return planner.ComputeHash(template, collisionCount)
}

// DaemonSetName returns a DaemonSet ControllerRevision's name: "<daemonset>-<hash>", never
// truncated. Mirrors snapshot, pkg/controller/daemon/update.go, v1.36.3.
func DaemonSetName(daemonSet, hash string) string {
	return daemonSet + "-" + hash
}

// Equal reports whether two revisions hold the same data (both nil counts as equal).
//
// Mirrors history.EqualRevision, pkg/controller/history, v1.36.3, for Raw data; it is also
// the DaemonSet controller's Match when one side is a fresh Patch.
func Equal(a, b *appsv1.ControllerRevision) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.Data.Raw, b.Data.Raw)
}

// Sort orders revisions by Revision, then creation time, then name, stably, in place.
//
// Mirrors history.SortControllerRevisions, pkg/controller/history, v1.36.3.
func Sort(revisions []*appsv1.ControllerRevision) {
	sort.SliceStable(revisions, func(i, j int) bool {
		a, b := revisions[i], revisions[j]
		if a.Revision == b.Revision {
			if b.CreationTimestamp.Equal(&a.CreationTimestamp) {
				return a.Name < b.Name
			}
			return b.CreationTimestamp.After(a.CreationTimestamp.Time)
		}
		return a.Revision < b.Revision
	})
}

// Next returns the number a new revision gets: 1 with no revisions, else the last one's
// Revision + 1. revisions must be sorted (Sort).
//
// Mirrors nextRevision, pkg/controller/statefulset, v1.36.3.
func Next(revisions []*appsv1.ControllerRevision) int64 {
	if len(revisions) == 0 {
		return 1
	}
	return revisions[len(revisions)-1].Revision + 1
}

package reload

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
)

// ChecksumsAnnotation is the pod template annotation a restart writes: a JSON object from
// each reference's AnnotationKey ("configmap/NAME", "secret/NAME") to its checksum.
const ChecksumsAnnotation = "rollplan.dev/config-checksums"

// AdoptedAnnotation is the Deployment annotation (its metadata, not its pod template) that
// `reload --adopt` writes: the checksums the running pods are taken to see, in
// ChecksumsAnnotation's format, recorded without a restart (a template change would roll
// out new pods). Decide reads it only when the template has no ChecksumsAnnotation: the
// first restart writes the template annotation, which then wins.
const AdoptedAnnotation = "rollplan.dev/adopted-config-checksums"

// Opt-in annotations on a Deployment (its metadata, not its pod template), with the value
// each needs.
const (
	ReloadAnnotation       = "rollplan.dev/reload"         // "true"
	StakaterAutoAnnotation = "reloader.stakater.com/auto"  // "true", Stakater Reloader's
	XingRestartAnnotation  = "com.xing.deployment-restart" // "enabled", XING's controller's
)

// OptedIn reports whether dep asks for config-change restarts (for `--all`, `-l` and the
// watch mode): rollplan.dev/reload: "true", or, for teams migrating, Stakater Reloader's
// reloader.stakater.com/auto: "true" or XING's com.xing.deployment-restart: enabled. Values
// are compared exactly. Nil dep: false.
func OptedIn(dep *appsv1.Deployment) bool {
	if dep == nil {
		return false
	}
	a := dep.Annotations
	return a[ReloadAnnotation] == "true" || a[StakaterAutoAnnotation] == "true" || a[XingRestartAnnotation] == "enabled"
}

// EncodeChecksums returns the ChecksumsAnnotation value of checksums: compact JSON with the
// keys sorted (encoding/json sorts map keys), so equal checksums give equal templates and
// restoring old config reuses the old ReplicaSet. It never fails for a map of strings.
func EncodeChecksums(checksums map[string]string) string {
	if checksums == nil {
		checksums = map[string]string{}
	}
	b, err := json.Marshal(checksums)
	if err != nil {
		panic(err) // unreachable: a map[string]string always marshals
	}
	return string(b)
}

// DecodeChecksums parses a ChecksumsAnnotation value. Errors, each naming the annotation: not
// a JSON object of strings, a key that is not "configmap/NAME" or "secret/NAME", or an
// empty checksum.
func DecodeChecksums(value string) (map[string]string, error) {
	return decodeChecksums(ChecksumsAnnotation, value)
}

// decodeChecksums is DecodeChecksums with errors naming annotation.
func decodeChecksums(annotation, value string) (map[string]string, error) {
	var m map[string]string
	if err := json.Unmarshal([]byte(value), &m); err != nil {
		return nil, fmt.Errorf("annotation %s: not a JSON object of strings: %w", annotation, err)
	}
	if m == nil {
		return nil, fmt.Errorf("annotation %s: null, want a JSON object", annotation)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		kind, name, ok := strings.Cut(k, "/")
		if !ok || name == "" || (kind != "configmap" && kind != "secret") {
			return nil, fmt.Errorf("annotation %s: key %q is not configmap/NAME or secret/NAME", annotation, k)
		}
		if v == "" {
			return nil, fmt.Errorf("annotation %s: key %q has an empty checksum", annotation, k)
		}
	}
	return m, nil
}

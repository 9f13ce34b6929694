package workload

import (
	"fmt"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// RestartAgainError is kubectl rollout restart's error when the patch is empty (a restart in
// the same second): "failed to create patch for NAME: if restart has already been triggered
// within the past second, please wait before attempting to trigger another".
func RestartAgainError(name string) error {
	return fmt.Errorf("failed to create patch for %v: if restart has already been triggered within the past second, please wait before attempting to trigger another", name)
}

// Refuse returns kubectl's error for pause or resume (verb "pause", "resume") of a
// StatefulSet or DaemonSet: `statefulsets.apps "db" pausing is not supported` (the text of
// `kubectl rollout pause`, from defaultObjectPauser and defaultObjectResumer,
// polymorphichelpers v0.36.3, after kubectl's "error: RESOURCE NAME" prefix), followed by
// what to do.
func Refuse(verb string, ref target.KindRef) error {
	ing := strings.TrimSuffix(verb, "e") + "ing"
	return fmt.Errorf("%s.apps %q %s is not supported: only Deployments can be %sd", ref.Kind.Resource(), ref.Name, ing, verb)
}

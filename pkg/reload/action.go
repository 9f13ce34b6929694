package reload

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
)

// Action is what a one-shot reload does with one Deployment.
type Action string

// The actions of Choose.
const (
	// ActionNone: nothing to write (current, or first sight without evidence).
	ActionNone Action = "none"
	// ActionRestart: restart the pods (RestartPatch).
	ActionRestart Action = "restart"
	// ActionAdopt: record the checksums without a restart (AdoptPatch).
	ActionAdopt Action = "adopt"
	// ActionRefuse: a non-optional reference is missing: nothing may be written.
	ActionRefuse Action = "refuse"
)

// Choose decides what a one-shot reload does with d (first its Decide, a its
// AssessFirstSight, adopt the --adopt flag):
//   - refused (a non-optional reference missing): ActionRefuse, whatever else holds, since
//     new pods would not start and a record would claim content the pods never saw;
//   - adopt: ActionAdopt when some reference is Unrecorded (the running pods are taken to
//     see the current content), else ActionNone: --adopt never restarts;
//   - stale (a recorded checksum changed) or possibly stale at first sight: ActionRestart;
//   - otherwise ActionNone.
func Choose(d Decision, a Assessment, adopt bool) Action {
	switch {
	case d.Refused():
		return ActionRefuse
	case adopt && d.FirstSight():
		return ActionAdopt
	case adopt:
		return ActionNone
	case d.Stale || a.PossiblyStale:
		return ActionRestart
	}
	return ActionNone
}

// PausedRefusal is why a restart of dep may not be written, or nil: dep is paused, and
// the Deployment controller does not roll a paused Deployment out until it is resumed
// (kubectl rollout restart refuses it too). The message names dep as namespace/name and
// says what to run. Both the one-shot command (reloadoneshot.Target.Refusal) and the --watch
// controller use it.
func PausedRefusal(dep *appsv1.Deployment) error {
	if dep == nil || !dep.Spec.Paused {
		return nil
	}
	return fmt.Errorf("restart of deployment %s/%s refused: it is paused, so the controller would not roll it out: run `kubectl rollplan resume deploy/%s` first", dep.Namespace, dep.Name, dep.Name)
}

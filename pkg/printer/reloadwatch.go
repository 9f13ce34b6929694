package printer

import (
	"fmt"
	"io"
)

// ReloadRestarted writes the watch mode's line for a restart:
// `deployment.apps/NAME restarted (namespace NS): MSG` with the message of the controller's Event.
func ReloadRestarted(w io.Writer, namespace, name, msg string) {
	fmt.Fprintf(w, "deployment.apps/%s restarted (namespace %s): %s\n", name, namespace, msg)
}

// ReloadRefused writes the watch mode's line for a refused restart (the refusal, one line).
func ReloadRefused(w io.Writer, refusal string) {
	fmt.Fprintf(w, "refused: %s\n", refusal)
}

// ReloadRolloutFailed writes the watch mode's line for a restart whose rollout did not
// complete.
func ReloadRolloutFailed(w io.Writer, namespace, name, msg string) {
	fmt.Fprintf(w, "deployment.apps/%s (namespace %s): %s\n", name, namespace, msg)
}

// ReloadAdopted writes the watch mode's line for an adoption.
func ReloadAdopted(w io.Writer, namespace, name, msg string) {
	fmt.Fprintf(w, "deployment.apps/%s adopted (namespace %s): %s\n", name, namespace, msg)
}

// ReloadOutcome writes the watch mode's line for one of the controller's outcomes
// (pkg/reloadcontroller.Outcome; outcome is its Type: Restarted, Adopted, Refused,
// RolloutFailed or GaveUp, whose name is the queue key namespace/name). An unknown type
// writes nothing.
func ReloadOutcome(w io.Writer, outcome, namespace, name, msg string) {
	switch outcome {
	case "Restarted":
		ReloadRestarted(w, namespace, name, msg)
	case "Adopted":
		ReloadAdopted(w, namespace, name, msg)
	case "Refused":
		ReloadRefused(w, msg)
	case "RolloutFailed":
		ReloadRolloutFailed(w, namespace, name, msg)
	case "GaveUp":
		fmt.Fprintf(w, "deployment %s: %s\n", name, msg)
	}
}

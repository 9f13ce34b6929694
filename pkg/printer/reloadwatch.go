package printer

import (
	"fmt"
	"io"
	"strings"
)

// ReloadRefused writes the watch mode's line for a refused restart (the refusal, one line).
func ReloadRefused(w io.Writer, refusal string) {
	fmt.Fprintf(w, "refused: %s\n", refusal)
}

// ReloadOutcome writes the watch mode's line for one of the controller's outcomes on a
// Deployment: ReloadWorkloadOutcome with resource "".
func ReloadOutcome(w io.Writer, outcome, namespace, name, msg string) {
	ReloadWorkloadOutcome(w, outcome, "", namespace, name, msg)
}

// ReloadWorkloadOutcome writes the watch mode's line for one of the controller's outcomes
// (pkg/reloadcontroller.Outcome; outcome is its Type: Restarted, Adopted, Refused,
// RolloutFailed or GaveUp, whose name is the queue key namespace/name) on an object of
// resource ("" or "deployment.apps", "statefulset.apps", "daemonset.apps"):
// `statefulset.apps/db restarted (namespace shop): MSG`. An unknown type writes nothing.
func ReloadWorkloadOutcome(w io.Writer, outcome, resource, namespace, name, msg string) {
	if resource == "" {
		resource = "deployment.apps"
	}
	switch outcome {
	case "Restarted":
		fmt.Fprintf(w, "%s/%s restarted (namespace %s): %s\n", resource, name, namespace, msg)
	case "Adopted":
		fmt.Fprintf(w, "%s/%s adopted (namespace %s): %s\n", resource, name, namespace, msg)
	case "Refused":
		ReloadRefused(w, msg)
	case "RolloutFailed":
		fmt.Fprintf(w, "%s/%s (namespace %s): %s\n", resource, name, namespace, msg)
	case "GaveUp":
		fmt.Fprintf(w, "%s %s: %s\n", strings.TrimSuffix(resource, ".apps"), name, msg)
	}
}

package printer

import (
	"fmt"
	"io"
	"strings"
)

// ReloadRestartMessage is the message of the Event a config restart records on its
// Deployment, naming what changed: `restarted for changed config: ConfigMap/app [a b],
// Secret/db [*]` (reload.Ref.String of each: kind, name, keys; never a value).
func ReloadRestartMessage(changed []string) string {
	if len(changed) == 0 {
		return "restarted for changed config"
	}
	return "restarted for changed config: " + strings.Join(changed, ", ")
}

// ReloadRestarted writes the watch mode's line for a restart:
// `deployment.apps/NAME restarted (namespace NS): MSG` with MSG from ReloadRestartMessage.
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

// ReloadAdoptMessage is the message of the Event of an adoption (checksums recorded at first
// sight, no restart), naming the references recorded.
func ReloadAdoptMessage(recorded []string) string {
	return "recorded the config checksums without a restart (first sight): " + strings.Join(recorded, ", ")
}

// ReloadAdopted writes the watch mode's line for an adoption.
func ReloadAdopted(w io.Writer, namespace, name, msg string) {
	fmt.Fprintf(w, "deployment.apps/%s adopted (namespace %s): %s\n", name, namespace, msg)
}

// ReloadFirstSightRestartMessage is the message of the Event of a restart at first sight
// (no checksum recorded yet, config data written after the current pods were created):
// `restarted at first sight: possibly stale since T: EVIDENCE` with the evidence of
// reload.Assessment.Summary (names and times, never a value).
func ReloadFirstSightRestartMessage(summary string) string {
	return "restarted at first sight: " + summary
}

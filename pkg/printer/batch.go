package printer

import (
	"fmt"
	"io"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// PrintFailure writes the line naming one Deployment a verb over many failed for, to
// stderr: "error: deployment.apps/NAME: MESSAGE\n" (kubectl prints a failed object of its
// rollout loops as one "error: ..." line too, RunRestart, pkg/cmd/rollout, v0.36.3).
func PrintFailure(w io.Writer, r rollout.Result) {
	fmt.Fprintf(w, "error: %s: %v\n", r.Object, r.Err)
}

// ConfirmPrompt is the one question a verb over many Deployments asks before writing:
// `restart 3 Deployments in namespace "shop" as previewed above? [y/N]: `, with
// "(1 more failed above and is left out)" when some previews failed. ready is at least 1.
func ConfirmPrompt(verb string, ready []rollout.Object, failed int) string {
	noun := "Deployments"
	if len(ready) == 1 {
		noun = "Deployment"
	}
	left := ""
	switch {
	case failed == 1:
		left = " (1 more failed above and is left out)"
	case failed > 1:
		left = fmt.Sprintf(" (%d more failed above and are left out)", failed)
	}
	return fmt.Sprintf("%s %d %s in namespace %q as previewed above%s? [y/N]: ", verb, len(ready), noun, ready[0].Namespace, left)
}

// PrintDeclined writes what a declined confirmation left: "nothing was changed".
func PrintDeclined(w io.Writer, verb string) {
	fmt.Fprintf(w, "%s: declined, nothing was changed\n", verb)
}

// PrintNoneSelected writes kubectl rollout's line for a selection that matched nothing:
// "No resources found in NAMESPACE namespace." (RunRestart, pkg/cmd/rollout, v0.36.3).
func PrintNoneSelected(w io.Writer, namespace string) {
	fmt.Fprintf(w, "No resources found in %s namespace.\n", namespace)
}

package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Failure is one Deployment that a command over many failed for: what its "error: ..." line
// names and says.
type Failure struct {
	Namespace, Name string
	// WithNamespace names the namespace too: the selection spans namespaces (-A, or a
	// manifest set whose Deployments are in several).
	WithNamespace bool
	// Source is the file the Deployment came from (a manifest set), or empty.
	Source string
	Err    error
}

// DeploymentName is how every line about one of many Deployments names it: kubectl's
// resource/name, "deployment.apps/NAME" (as its result lines, "deployment.apps/web
// restarted", name it), with " (namespace NS)" when withNamespace.
func DeploymentName(namespace, name string, withNamespace bool) string {
	return target.DeploymentName(namespace, name, withNamespace)
}

// PrintFailure writes the line naming one Deployment a command over many failed for, to
// stderr: "error: deployment.apps/NAME: MESSAGE\n", the name as DeploymentName gives it and
// the file in parentheses when there is one ("error: deployment.apps/web (namespace shop,
// a.yaml): ..."). MESSAGE is the error's first line, so that each Deployment takes one line.
// kubectl prints a failed object of its rollout loops as one "error: ..." line too
// (RunRestart, pkg/cmd/rollout, v0.36.3). Every verb over many Deployments prints its
// failures here: preview, history, drive status, undo, pause, resume, restart.
func PrintFailure(w io.Writer, f Failure) {
	var in []string
	if f.WithNamespace {
		in = append(in, "namespace "+f.Namespace)
	}
	if f.Source != "" {
		in = append(in, f.Source)
	}
	name := DeploymentName(f.Namespace, f.Name, false)
	if len(in) > 0 {
		name += " (" + strings.Join(in, ", ") + ")"
	}
	fmt.Fprintf(w, "error: %s: %s\n", name, oneLine(f.Err.Error()))
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

// PrintContextFailure writes the one line of a kubeconfig context that could not be read as
// a whole (unreachable, credentials refused, namespace missing) in a command across several:
// "error: context NAME: REASON" (its first line).
func PrintContextFailure(w io.Writer, context string, err error) {
	fmt.Fprintf(w, "error: context %s: %s\n", context, oneLine(err.Error()))
}

package printer

import (
	"io"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// PrintFailures writes each failed member of a selection on w as one line naming it
// (PrintFailure: "error: deployment.apps/web: ...", with its namespace when withNamespace, as
// under -A) and returns the names of the failed ones, in order, as DeploymentName gives them
// (pipeline.FleetExit's failed).
func PrintFailures(w io.Writer, failed []pipeline.Member, withNamespace bool) []string {
	var names []string
	for _, m := range failed {
		PrintFailure(w, Failure{Namespace: m.Namespace, Name: m.Name, WithNamespace: withNamespace, Err: m.Err})
		names = append(names, DeploymentName(m.Namespace, m.Name, withNamespace))
	}
	return names
}

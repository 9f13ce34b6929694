package printer

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
)

// PrintDriveStatusList prints drive status of many Deployments: with p (-o) one v1 List of
// the DriveStatus objects, without p the status lines (PrintDriveStatusLines; nothing when
// there is none).
func PrintDriveStatusList(out io.Writer, p printers.ResourcePrinter, statuses []*v1alpha1.DriveStatus) error {
	if p == nil {
		if len(statuses) == 0 {
			return nil
		}
		return PrintDriveStatusLines(out, statuses)
	}
	objs := make([]runtime.Object, 0, len(statuses))
	for _, s := range statuses {
		objs = append(objs, s)
	}
	l, err := NewList(objs)
	if err != nil {
		return err
	}
	return p.PrintObj(l, out)
}

// PrintDriveStatusContexts prints drive status over several contexts (r, contexts[i] the
// name of r.ContextErrs[i]): on errOut one line per Deployment that failed, naming its
// context ("error: deployment.apps/web (context B): ..."), one line per context that could
// not be read ("error: context NAME: REASON"), and none's line when nothing was selected
// anywhere; then the statuses on out (PrintDriveStatusList: a CONTEXT column, or -o items
// carrying their context). It returns the failed Deployments' names, "NAME (context C)".
func PrintDriveStatusContexts(out, errOut io.Writer, p printers.ResourcePrinter, r *driverun.ContextsResult, contexts []string, withNamespace bool, none string) ([]string, error) {
	var names []string
	for _, m := range r.Failed {
		PrintFailure(errOut, Failure{Namespace: m.Namespace, Name: m.Name, WithNamespace: withNamespace, Source: "context " + m.Source, Err: m.Err})
		names = append(names, DeploymentName(m.Namespace, m.Name, withNamespace)+" (context "+m.Source+")")
	}
	for i, err := range r.ContextErrs {
		if err != nil {
			PrintContextFailure(errOut, contexts[i], err)
		}
	}
	if !r.Found && r.FailedContexts() == 0 {
		fmt.Fprintln(errOut, none)
	}
	return names, PrintDriveStatusList(out, p, r.Statuses)
}

package cmd

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// readOnlyFleet are the selection flags of the read-only commands over many Deployments
// (preview, history, drive status): several names, -l, --all, -A, --chunk-size.
var readOnlyFleet = target.Choices{Many: true, AllNamespaces: true}

// fleetMember is one selected Deployment with its state, or the error that kept it from one.
type fleetMember = pipeline.Member

// fleetClient is pipeline.FleetClient: QPS 50, protobuf.
func fleetClient(f cmdutil.Factory) func() (kubernetes.Interface, error) {
	return pipeline.FleetClient(f)
}

// fleetTune is pipeline.FleetTune.
func fleetTune(cfg *rest.Config) { pipeline.FleetTune(cfg) }

// completeFleet is Targets.complete for a read-only command with a --state-file flag
// (pipeline.CompleteFleet), with the fleet's client.
func (t *Targets) completeFleet(f cmdutil.Factory, args []string, stateFile string) (err error) {
	t.Selection, err = pipeline.CompleteFleet(f, t.Select, args, stateFile)
	t.Client = pipeline.FleetClient(f)
	return err
}

// many reports whether the command was given more than one Deployment's worth of selection
// (several names, -l, --all, -A): it then prints per Deployment, and a list for -o.
func (t *Targets) many() bool { return t.Selection != nil && !t.Selection.One() }

// load reads the selected Deployments (pipeline.SelectFrom: Live of t's client, or File).
func (t *Targets) load(ctx context.Context, stateFile string) ([]fleetMember, error) {
	return pipeline.SelectFrom(ctx, t.Selection, t.Client, stateFile)
}

// failures prints each failed Deployment's error on w and returns their names
// (printer.PrintFailures; with namespaces under -A).
func (t *Targets) failures(w io.Writer, failed []fleetMember) []string {
	return printer.PrintFailures(w, failed, t.Selection != nil && t.Selection.AllNamespaces)
}

// fleetExit is the exit of a command over many Deployments (pipeline.FleetExit).
func fleetExit(failed []string, stalled int, failOnStall bool) error {
	return exitDecision(pipeline.FleetExit(failed, stalled, failOnStall))
}

// newList is printer.NewList: kubectl's v1 List of objects.
func newList(objs []runtime.Object) (*corev1.List, error) { return printer.NewList(objs) }

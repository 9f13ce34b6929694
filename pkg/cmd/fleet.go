package cmd

import (
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// readOnlyFleet are the selection flags of the read-only commands over many Deployments
// (preview, history, drive status): several names, -l, --all, -A, --chunk-size.
var readOnlyFleet = target.Choices{Many: true, AllNamespaces: true}

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

// fleetExit is the exit of a command over many Deployments (pipeline.FleetExit).
func fleetExit(failed []string, stalled int, failOnStall bool) error {
	return exitDecision(pipeline.FleetExit(failed, stalled, failOnStall))
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

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

// fleetMember is one selected Deployment with its state, or the error that kept it from one
// (the pipeline's Member: Source is "" for one context).
type fleetMember = pipeline.Member

// fleetClient returns the clientset of reads over many Deployments (fleetTune).
func fleetClient(f cmdutil.Factory) func() (kubernetes.Interface, error) {
	return func() (kubernetes.Interface, error) {
		cfg, err := f.ToRESTConfig()
		if err != nil {
			return nil, err
		}
		fleetTune(cfg)
		return kubernetes.NewForConfig(cfg)
	}
}

// fleetTune is the REST config of reads over many Deployments: protobuf, as the controllers
// read, and a client-side rate limit (QPS 50, burst 100) that does not delay the pages of a
// paginated LIST (the default 5 per second added seconds to a 20-page read).
func fleetTune(cfg *rest.Config) {
	cfg.QPS, cfg.Burst = 50, 100
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
}

// completeFleet is Targets.complete for a read-only command with a --state-file flag: -l,
// --all and -A list a cluster, so with a state file the Deployments are named.
func (t *Targets) completeFleet(f cmdutil.Factory, args []string, stateFile string) error {
	if err := t.complete(f, args, stateFile, fleetClient(f)); err != nil {
		return err
	}
	if stateFile != "" && t.Selection.Bulk() {
		return errors.New("-l, --all and -A list a cluster: with --state-file, name the Deployments (deploy/a deploy/b)")
	}
	return nil
}

// many reports whether the command was given more than one Deployment's worth of selection
// (several names, -l, --all, -A): it then prints per Deployment, and a list for -o.
func (t *Targets) many() bool {
	return t.Selection != nil && !t.Selection.One()
}

// load reads the selected Deployments through the pipeline's one Select
// (pipeline.SelectFrom: Live of t's client, or File of stateFile). Errors: SelectFrom's.
func (t *Targets) load(ctx context.Context, stateFile string) ([]fleetMember, error) {
	return pipeline.SelectFrom(ctx, t.Selection, t.Client, stateFile)
}

// failures prints each failed Deployment's error on w as one line naming it
// (printer.PrintFailure: "error: deployment.apps/web: ...", with its namespace under -A) and
// returns the names of the failed ones, in order, in the same form.
func (t *Targets) failures(w io.Writer, failed []fleetMember) []string {
	withNS := t.Selection != nil && t.Selection.AllNamespaces
	var names []string
	for _, m := range failed {
		printer.PrintFailure(w, printer.Failure{Namespace: m.Namespace, Name: m.Name, WithNamespace: withNS, Err: m.Err})
		names = append(names, printer.DeploymentName(m.Namespace, m.Name, withNS))
	}
	return names
}

// fleetExit is the exit of a command over many Deployments, once every result is printed:
// ExitError (1) with one line naming the failed Deployments when any failed, else ExitStalled
// (3, nothing more printed, as for one plan) when failOnStall and any plan stalled, else nil.
// A failure wins over a stall: a Deployment that could not be planned may stall too.
func fleetExit(failed []string, stalled int, failOnStall bool) error {
	switch {
	case len(failed) > 0:
		return NewExitError(ExitError, fmt.Sprintf("%d Deployment(s) failed: %s", len(failed), strings.Join(failed, ", ")))
	case failOnStall && stalled > 0:
		return NewExitError(ExitStalled, "")
	}
	return nil
}

// newList is printer.NewList: kubectl's v1 List of objects.
func newList(objs []runtime.Object) (*corev1.List, error) { return printer.NewList(objs) }

package cmd

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reloadoneshot"
)

// ChangeConfigRestart marks, in PlanManifest.Change, the plan of a live Deployment that a
// manifest set's ConfigMaps or Secrets would restart (printer.ChangeConfigRestart).
const ChangeConfigRestart = printer.ChangeConfigRestart

// setConfig is the config-restart part of a manifest set (reloadoneshot.SetPreview).
type setConfig = reloadoneshot.SetPreview

// manifests reports whether -f or -k was given: preview plans a manifest set.
func (o *PreviewOptions) manifests() bool {
	return len(o.Filenames.Filenames) > 0 || o.Filenames.Kustomize != ""
}

// completeSet resolves what a preview of a manifest set without a name needs: the namespace
// of -n or the kubeconfig ("default" without either; offline without -n, none: a manifest
// Deployment without a namespace matches the state file's of its name), whether -n was given
// (an object of another namespace is then refused, as by kubectl apply), and the client.
func (o *PreviewOptions) completeSet(f cmdutil.Factory) error {
	ns, explicit, err := f.ToRawKubeConfigLoader().Namespace()
	if err != nil && o.StateFile == "" {
		return err
	}
	switch {
	case o.StateFile != "" && !explicit:
		ns = ""
	case ns == "":
		ns = metav1.NamespaceDefault
	}
	o.Namespace, o.enforceNamespace = ns, explicit
	o.Client = fleetClient(f) // the reads and dry runs of many Deployments: QPS 50, protobuf
	return nil
}

// runSet previews a manifest set (-f/-k), routed by pipeline.SetRead.Read. With a name, or
// with exactly one Deployment in the set, it is today's preview of that Deployment (its
// manifest applied, then the other change flags). Otherwise every Deployment is planned
// (pipeline.PlanSet), and the restarts its ConfigMaps and Secrets would cause are previewed
// below (setConfigRestarts; a set of one Deployment and such objects is previewed as a set).
// Files that could not be read, and Deployments that could not be planned, are each one line
// on stderr after the plans, and the exit code is 1.
func (o *PreviewOptions) runSet(ctx context.Context) error {
	set, route, err := o.setRead().Read()
	if err != nil {
		return err
	}
	switch route {
	case pipeline.SetKinds:
		return o.runSetKinds(ctx, set, kindManifests(set))
	case pipeline.SetConfigOnly:
		return o.runConfig(ctx, set, pipeline.ConfigObjects(set))
	case pipeline.SetPickOne:
		return o.runPicked(ctx, set)
	}
	results, err := pipeline.PlanSet(ctx, set, o.setConfig())
	if err != nil {
		return err
	}
	sc, err := o.setConfigRestarts(ctx, set, results)
	if err != nil {
		return err
	}
	return o.printSet(set, results, sc)
}

// setRead is how the flags read the manifest set.
func (o *PreviewOptions) setRead() pipeline.SetRead {
	return pipeline.SetRead{Filenames: o.Filenames, Namespace: o.Namespace, EnforceNamespace: o.enforceNamespace, Ref: o.Ref, In: o.In, Offline: o.StateFile != ""}
}

// runPicked previews the one Deployment of the set (the named one) as runOne does.
func (o *PreviewOptions) runPicked(ctx context.Context, set *pipeline.ManifestSet) error {
	ref, obj, err := o.setRead().Pick(set)
	if err != nil {
		return err
	}
	o.Ref, o.Change.Manifest = ref, obj
	if err := o.runOne(ctx); err != nil {
		return err
	}
	return o.reportErrors(set.Errors)
}

// reportErrors writes each error as kubectl's "error: ..." line and returns exit code 1 when
// there is one.
func (o *PreviewOptions) reportErrors(errs []error) error {
	for _, err := range errs {
		fmt.Fprintln(o.ErrOut, "error: "+err.Error())
	}
	if len(errs) > 0 {
		return NewExitError(ExitError, "")
	}
	return nil
}

// setConfig is the I/O a set is planned with: the cluster's (a LIST of Deployments and of
// ReplicaSets per namespace, server-side dry runs) or the state file's
// (pipeline.Preview.SetConfig).
func (o *PreviewOptions) setConfig() pipeline.SetPlanConfig {
	p := o.preview()
	return p.SetConfig(p.Source(o.Client), o.readFleet)
}

// setConfigRestarts previews the restarts of the set's ConfigMaps and Secrets
// (reloadoneshot.PreviewFlags.Set: nil when it holds none, or offline).
func (o *PreviewOptions) setConfigRestarts(ctx context.Context, set *pipeline.ManifestSet, results []pipeline.SetResult) (*setConfig, error) {
	return o.restartFlags().Set(ctx, set, results)
}

// restartFlags are the flags a preview of ConfigMaps and Secrets reads.
func (o *PreviewOptions) restartFlags() reloadoneshot.PreviewFlags {
	return reloadoneshot.PreviewFlags{Client: o.Client, Readiness: o.Readiness, Checks: o.Checks, Offline: o.StateFile != "", Read: o.readFleet}
}

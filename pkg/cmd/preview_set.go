package cmd

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

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

// runSet previews a manifest set (-f/-k). With a name, or with exactly one Deployment in the
// set, it is today's preview of that Deployment (its manifest applied, then the other change
// flags). Otherwise every Deployment is planned (manifest.PlanSet), and the restarts its
// ConfigMaps and Secrets would cause are previewed below (setConfigRestarts; a set of one
// Deployment and such objects is previewed as a set). Files that could not be
// read, and Deployments that could not be planned, are each one line on stderr after the
// plans, and the exit code is 1.
func (o *PreviewOptions) runSet(ctx context.Context) error {
	named := o.Name != ""
	opts := manifest.Options{Filenames: o.Filenames, Namespace: o.Namespace, EnforceNamespace: o.enforceNamespace && !named, In: o.In}
	if named {
		opts.Namespace = "" // Pick checks the namespace, with today's error
	}
	set, err := manifest.Read(opts)
	if err != nil {
		return err
	}
	if kinds := kindManifests(set); len(kinds) > 0 && !named {
		return o.runSetKinds(ctx, set, kinds)
	}
	if objs := pipeline.ConfigObjects(set); len(set.Deployments) == 0 && len(objs) > 0 && !named {
		return o.runConfig(ctx, set, objs)
	}
	switch {
	case named || (len(set.Deployments) == 1 && (len(pipeline.ConfigObjects(set)) == 0 || o.StateFile != "")):
		return o.runPicked(ctx, set)
	case len(set.Deployments) == 0 && len(set.Errors) > 0:
		return utilerrors.NewAggregate(set.Errors)
	case len(set.Deployments) == 0:
		return set.NoDeployment()
	}
	results, err := manifest.PlanSet(ctx, set, o.setConfig())
	if err != nil {
		return err
	}
	sc, err := o.setConfigRestarts(ctx, set, results)
	if err != nil {
		return err
	}
	return o.printSet(set, results, sc)
}

// runPicked previews the one Deployment of the set (the named one) as runOne does.
func (o *PreviewOptions) runPicked(ctx context.Context, set *manifest.Set) error {
	ref := o.Ref
	if ref.Name == "" {
		ref = set.Deployments[0].Ref()
	}
	obj, err := set.Pick(ref)
	if err != nil {
		if len(set.Errors) > 0 {
			return utilerrors.NewAggregate(set.Errors)
		}
		return fmt.Errorf("%s: %w", o.filenamesWord(), err)
	}
	o.Ref, o.Change.Manifest = ref, obj.Object
	if err := o.runOne(ctx); err != nil {
		return err
	}
	return o.reportErrors(set.Errors)
}

// filenamesWord names the manifests in an error: the -f values, or the -k directory.
func (o *PreviewOptions) filenamesWord() string {
	if o.Filenames.Kustomize != "" {
		return o.Filenames.Kustomize
	}
	return strings.Join(o.Filenames.Filenames, ",")
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

// setConfig is the I/O manifest.PlanSet is given: the cluster's (a LIST of Deployments and
// of ReplicaSets per namespace, server-side dry runs) or the state file's
// (pipeline.Preview.SetConfig).
func (o *PreviewOptions) setConfig() manifest.Config {
	return o.preview().SetConfig(o.preview().Source(o.Client), o.readFleet)
}

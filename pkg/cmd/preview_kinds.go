package cmd

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// completePreview reads preview's change flags for StatefulSets and DaemonSets (issue 21;
// parsed by pipeline.KindPreviewFlags.Parse).
func (o *KindsOptions) completePreview(fl *pflag.FlagSet) error {
	if fl.Changed("filename") || fl.Changed("kustomize") {
		return errors.New("-f/-k plan the manifests' objects: give sts/NAME or ds/NAME with --image, --restart, --to-revision, --replicas or --partition, or -f alone")
	}
	f := pipeline.KindPreviewFlags{Restart: flagBool(fl, "restart"), Undo: fl.Changed("to-revision"), ToRevision: o.ToRevision,
		Readiness: flagString(fl, "readiness"), Checks: flagString(fl, "checks"),
		PodReadyAfter: flagString(fl, "pod-ready-after"), SyncLatency: flagString(fl, "sync-latency")}
	f.Images, _ = fl.GetStringArray("image")
	if fl.Changed("replicas") {
		n, _ := fl.GetInt32("replicas")
		f.Replicas = &n
	}
	if fl.Changed("partition") {
		n, _ := fl.GetInt32("partition")
		f.Partition = &n
	}
	var err error
	if o.Change, o.Readiness, o.Checks, err = f.Parse(); err != nil {
		return err
	}
	o.FailOnStall, o.StateFile, o.ExplicitNamespace = flagBool(fl, "fail-on-stall"), flagString(fl, "state-file"), fl.Changed("namespace")
	if o.StateFile != "" && o.Contexts != nil && o.Contexts.given() {
		return errors.New("--state-file is one cluster's state: drop --contexts/--all-contexts, or --state-file")
	}
	return nil
}

// previewKinds plans every StatefulSet or DaemonSet selected from each Source (the state
// file, the current context, or each of --contexts; pipeline.KindsVerb.Preview) and prints
// them (printer.PrintKindsPreview): one object as its plan; several as the summary table then
// each plan, or one RolloutPlanList with -o.
func (o *KindsOptions) previewKinds(cmd *cobra.Command) error {
	var lives []*pipeline.Live
	var errs []error
	if o.Contexts != nil && o.Contexts.given() && o.StateFile == "" {
		if err := o.Contexts.resolve(cmd); err != nil {
			return err
		}
		if o.Contexts.many() {
			lives, errs = o.Contexts.sources()
		}
	}
	srcs, srcErrs := o.KindSources(lives, errs)
	p, err := o.Preview(cmd.Context(), srcs, srcErrs)
	if err != nil {
		return err
	}
	if err := printer.PrintKindsPreview(o.Out, o.ErrOut, o.KindsVerb, p, o.Contexts != nil && o.Contexts.many()); err != nil {
		return err
	}
	if p.Err != nil {
		return p.Err
	}
	return kindsExit(p.Exit, "")
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/resource"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/previewrun"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

var (
	previewLong = templates.LongDesc(`
		Preview every ReplicaSet write the Deployment controller will make for a change, in
		order, and how the rollout ends, before you make the change.

		The plan reproduces the Kubernetes v1.36.3 controller: maxSurge and maxUnavailable,
		the new ReplicaSet (its name, pod-template-hash and revision, or the old one a rollback
		reuses), proportional scaling, Recreate, and the old ReplicaSets revisionHistoryLimit
		deletes at the end. When pods become available is an assumption (--readiness).

		Without a change flag it previews the rest of a rollout already in flight. With
		--state-file it reads 'kubectl get deploy,rs -o yaml' output instead of a cluster.

		Several names, -l, --all or (without a change flag) -A preview many Deployments,
		read with one paginated LIST of Deployments and one of ReplicaSets (--chunk-size):
		a summary table, then each plan (--summary: the table only); -o prints a
		RolloutPlanList. Change flags other than -f apply to each Deployment.
		Nothing is changed in the cluster: the exact new template comes from a server-side
		dry run.`)

	previewExample = templates.Examples(`
		# What will an image change do?
		kubectl rollplan preview deploy/web --image web=nginx:1.19

		# Preview applying a manifest, as a CI gate: JSON out, exit code 3 if it would stall
		kubectl rollplan preview web -f web.yaml --readiness never --fail-on-stall -o json

		# What does a rollback to revision 2 roll out?
		kubectl rollplan preview deploy/web --to-revision 2

		# How long will it take? Pods' readiness measured on the Deployment's own pods,
		# or given: every pod Ready 1 to 4 s after it is created
		kubectl rollplan preview deploy/web --image web=nginx:1.19 --readiness timed
		kubectl rollplan preview deploy/web --image web=nginx:1.19 --readiness timed --pod-ready-after 1s..4s

		# Every rollout in flight in the namespace, or in the cluster: one table
		kubectl rollplan preview --all --summary
		kubectl rollplan preview -A --summary

		# The same image change on every Deployment labelled app=shop
		kubectl rollplan preview -l app=shop --image '*=registry/shop:2.1'

		# Offline, from a saved state
		kubectl get deploy,rs -n shop -o yaml > state.yaml
		kubectl rollplan preview web --state-file state.yaml --replicas 20`)
)

// PreviewOptions holds the flags and dependencies of "kubectl rollplan preview".
type PreviewOptions struct {
	Change ChangeFlags
	// Partition is --partition: StatefulSets only (preview_kinds.go); a Deployment refuses it.
	Partition int32
	// Filenames are -f/-R/-k: a manifest set, every Deployment in it planned (previewrun).
	Filenames   resource.FilenameOptions
	Readiness   string
	Timing      pipeline.Timing
	StateFile   string
	FailOnStall bool
	// Checks is --checks: the feasibility checks run on every plan.
	Checks   string
	MaxSteps int
	Summary  bool
	Output   *printer.OutputFlags

	Target
	// Fleet is the selection of many Deployments (several names, -l, --all, -A); when it
	// selects one by name, Target is that one and preview prints as it always has.
	Fleet Targets
	// enforceNamespace: -n was given (a manifest set's object of another namespace is refused).
	enforceNamespace bool
	// Now is the clock.
	Now func() time.Time
	// Contexts are --contexts and --all-contexts (preview_contexts.go).
	Contexts ContextFlags

	genericiooptions.IOStreams
}

// NewPreviewOptions returns PreviewOptions with defaults.
func NewPreviewOptions(streams genericiooptions.IOStreams) *PreviewOptions {
	return &PreviewOptions{
		Readiness: pipeline.DefaultReadiness,
		MaxSteps:  40,
		Output:    printer.NewOutputFlags(),
		Fleet:     newTargets(readOnlyFleet),
		Now:       time.Now,
		IOStreams: streams,
	}
}

// NewCmdPreview returns "kubectl rollplan preview" (without --contexts: it needs the root's
// connection flags, newCmdPreview).
func NewCmdPreview(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdPreview(f, nil, streams)
}

// newCmdPreview is NewCmdPreview whose --contexts reach the contexts of kc.
func newCmdPreview(f cmdutil.Factory, kc *pipeline.Kubeconfig, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewPreviewOptions(streams)
	o.Contexts.Kubeconfig = kc
	cmd := &cobra.Command{
		Use:                   "preview (deploy/NAME | NAME) [NAME ...] [-l SELECTOR | --all | -A] [--image CONTAINER=IMAGE] [-f FILE] [--replicas N] [--to-revision N] [--restart] [--summary]",
		DisableFlagsInUseLine: true,
		Short:                 "Preview the ReplicaSet writes a Deployment change makes",
		Long:                  previewLong,
		Example:               previewExample,
		RunE:                  kindsRunEContexts(f, streams, "preview", runE(f, o), &o.Contexts),
	}
	o.Change.addFlags(cmd)
	cmd.Flags().Int32Var(&o.Partition, "partition", 0, "StatefulSets (sts/NAME): change spec.updateStrategy.rollingUpdate.partition; ordinals below it keep their revision.")
	cmdutil.AddFilenameOptionFlags(cmd, &o.Filenames, "holding the Deployments to plan: every Deployment is planned as applying it would roll it out ('-' reads standard input).")
	addReadinessFlag(cmd, &o.Readiness)
	addTimingFlags(cmd, &o.Timing)
	cmd.Flags().StringVar(&o.StateFile, "state-file", "", "Read the Deployment and ReplicaSets from this file ('kubectl get deploy,rs -o yaml|json') instead of the cluster.")
	cmd.Flags().BoolVar(&o.FailOnStall, "fail-on-stall", false, fmt.Sprintf("Exit with code %d when the plan ends Stalled.", ExitStalled))
	cmd.Flags().StringVar(&o.Checks, "checks", "all", "Feasibility checks run on every plan: a comma-separated list of quota, capacity, pdb, hpa, or all, or none.")
	cmd.Flags().IntVar(&o.MaxSteps, "max-steps", o.MaxSteps, "Rows of the step table in the human output; the middle of a longer plan is elided (0: all).")
	cmd.Flags().BoolVar(&o.Summary, "summary", false, "Print the summary table only (one row per Deployment), not each plan in full.")
	o.Output.AddFlags(cmd)
	o.Fleet.Select.AddFlags(cmd)
	o.Contexts.addFlags(cmd,
		"Preview in each of these contexts of the kubeconfig (comma-separated, in this order), read at the same time: a CONTEXT column leads the summary and each plan of -o carries its context. A context that cannot be read is one error line; the others are still printed (exit code 1).",
		"Preview in every context of the kubeconfig, as --contexts does.")
	_ = cmd.MarkFlagFilename("state-file", "yaml", "yml", "json")
	return cmd
}

// Complete resolves the contexts, the namespace, the selection (one Deployment's name, or
// many; across contexts, no request) and the client.
func (o *PreviewOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	if cmd.Flags().Changed("partition") {
		return errors.New("--partition is a StatefulSet field: preview sts/NAME --partition N, or drop it for Deployments")
	}
	if o.Contexts.given() && o.StateFile != "" {
		return errors.New("--state-file is one cluster's state: drop --contexts/--all-contexts, or --state-file")
	}
	if err := o.Contexts.resolve(cmd); err != nil {
		return err
	}
	// One Deployment's preview pages through every pod of the cluster too (the capacity
	// check): pipeline.FleetTune's QPS and protobuf, not the default 5 per second, which held the 11th
	// and 12th pages of 5,000 pods back 0.35 s (make bench-feasibility). Across contexts, no
	// client: each context has its own.
	many, client := o.Contexts.many(), pipeline.FleetClient(f)
	if many {
		client = nil
	}
	if o.manifests() && len(args) == 0 {
		return o.completeSet(f)
	}
	if err := o.Fleet.complete(f, args, o.StateFile, client); err != nil { // a state file takes -l, --all, -A too
		return err
	}
	if (many && !o.manifests()) || (!many && o.Fleet.many()) {
		return nil
	}
	return o.Target.complete(f, args, o.StateFile, client)
}

// Validate checks the flags (pure).
func (o *PreviewOptions) Validate() error {
	if err := pipeline.ValidateReadiness(o.Readiness, true); err != nil {
		return err
	}
	if err := o.Timing.Validate(o.Readiness, o.StateFile); err != nil {
		return err
	}
	switch many := o.Fleet.many() || o.Fleet.Select.Selector != "" || o.Fleet.Select.All || o.Fleet.Select.AllNamespaces; {
	case o.Summary && !o.Output.Human():
		return errors.New("--summary prints the human table: drop -o")
	case o.manifests() && many:
		return errors.New("-f/-k give the Deployments of a manifest set: they do not go with several names, -l, --all or -A; name one Deployment of the set, or none to plan them all")
	case o.Fleet.many() && o.Fleet.Selection.AllNamespaces && o.Change.Any():
		return errors.New("-A/--all-namespaces previews the rollouts in flight: drop the change flag, or give the namespace with -n")
	}
	if _, err := feasibility.ParseChecks(o.Checks); err != nil {
		return err
	}
	if !o.Output.Human() {
		if _, err := o.Output.ToPrinter(); err != nil {
			return err
		}
	}
	return o.Change.Validate()
}

// Run previews what the flags select and prints it (previewrun.Config.Run); its Exit is the
// command's exit code.
func (o *PreviewOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	err := o.config().Run(ctx)
	if e := (*previewrun.Exit)(nil); errors.As(err, &e) {
		return NewExitError(e.Code, e.Message)
	}
	return err
}

// config is the preview of the flags: the pipeline's config (its change o.Change; a manifest
// set's Deployment its manifest, ManifestChange), how it prints, and what it reads.
func (o *PreviewOptions) config() *previewrun.Config {
	p := &pipeline.Preview{
		Readiness: o.Readiness, Timing: o.Timing, StateFile: o.StateFile, Checks: o.Checks,
		FromManifest: o.Change.HasManifest(), DryRun: pipeline.DesiredDryRun, In: o.In, Now: o.Now,
		ManifestChange: func(obj *unstructured.Unstructured) pipeline.Changer {
			c := o.Change
			c.Manifest, c.Filename = obj, ""
			return &c
		},
	}
	if o.Change.Any() {
		p.Change = &o.Change
	}
	return &previewrun.Config{
		Preview: p, FailOnStall: o.FailOnStall, Filenames: o.Filenames,
		View: printer.PreviewView{Output: o.Output, MaxSteps: o.MaxSteps, Summary: o.Summary, Change: o.Change.DeploymentChange.Words()},
		Ref:  o.Ref, Namespace: o.Namespace, EnforceNamespace: o.enforceNamespace, Client: o.Client,
		Selection: o.Fleet.Selection, FleetClient: o.Fleet.Client, ChunkSize: o.Fleet.Select.ChunkSize,
		Contexts: o.Contexts.resolved, Sources: o.Contexts.sources, Out: o.Out, ErrOut: o.ErrOut,
	}
}

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
	o.Client = pipeline.FleetClient(f) // the reads and dry runs of many Deployments: QPS 50, protobuf
	return nil
}

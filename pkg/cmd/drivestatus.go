package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// DriveStatusOptions holds the flags of "kubectl rollplan drive status".
type DriveStatusOptions struct {
	// Output is -o: the human form, or the DriveStatus object through cli-runtime's printers.
	Output *printer.OutputFlags
	Target
	// Fleet is the selection of many Deployments (several names, -l, --all, -A): one line
	// each; when it selects one by name, Target is that one.
	Fleet Targets
	// Contexts are --contexts and --all-contexts (drivestatus_contexts.go).
	Contexts ContextFlags
	// sts is the StatefulSet of `drive status sts/NAME` (nil: Deployments).
	sts *target.KindRef
	Now func() time.Time
	genericiooptions.IOStreams
}

// NewDriveStatusOptions returns DriveStatusOptions printing the human form.
func NewDriveStatusOptions(streams genericiooptions.IOStreams) *DriveStatusOptions {
	return &DriveStatusOptions{Output: printer.NewOutputFlags(), Fleet: newTargets(readOnlyFleet), Now: time.Now, IOStreams: streams}
}

// NewCmdDriveStatus returns "kubectl rollplan drive status" (without --contexts: it needs
// the root's connection flags).
func NewCmdDriveStatus(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCmdDriveStatus(f, nil, streams)
}

// newCmdDriveStatus is NewCmdDriveStatus whose --contexts reach the contexts of kc.
func newCmdDriveStatus(f cmdutil.Factory, kc *pipeline.Kubeconfig, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewDriveStatusOptions(streams)
	o.Contexts.Kubeconfig = kc
	cmd := &cobra.Command{
		Use:                   "status (deploy/NAME | NAME) [NAME ...] [-l SELECTOR | --all | -A] | status sts/NAME [-o json|yaml|jsonpath=...|go-template=...]",
		DisableFlagsInUseLine: true,
		Short:                 "Show whether drive holds a Deployment, by whom, at which step, with every ReplicaSet's counts (sts/NAME: the lease and the partition walk)",
		Example: templates.Examples(`
			kubectl rollplan drive status deploy/web
			kubectl rollplan drive status web -o json
			kubectl rollplan drive status web -o jsonpath='{.state.step}'
			kubectl rollplan drive status -A
			kubectl rollplan drive status sts/db -o jsonpath='{.statefulSet.holder}'`),
		RunE: runE(f, o),
	}
	o.Output.HumanForm = "the human-readable status"
	o.Output.AddFlags(cmd)
	o.Fleet.Select.AddFlags(cmd)
	if kc != nil {
		o.Contexts.addFlags(cmd,
			"Show the drive status in each of these contexts of the kubeconfig (comma-separated, in this order), read at the same time: a CONTEXT column leads the table and each item of -o carries its context. A context that cannot be read is one error line; the others are still printed (exit code 1).",
			"Show the drive status in every context of the kubeconfig, as --contexts does.")
	}
	return cmd
}

// Complete resolves the contexts (--contexts, before any request), the namespace, the
// selection (one Deployment's name, or many) and the client.
func (o *DriveStatusOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	if err := o.Contexts.resolve(cmd); err != nil {
		return err
	}
	if ref, ok, err := driverun.StsArg(args, "drive status"); ok || err != nil {
		if err == nil && o.Contexts.many() {
			err = fmt.Errorf("drive status sts/%s reads one context: drop --contexts/--all-contexts", ref.Name)
		}
		if err == nil {
			ref.Namespace, _, err = f.ToRawKubeConfigLoader().Namespace()
		}
		o.sts = &ref
		o.Target.Client = driveClient(f)
		return err
	}
	if err := o.Fleet.completeFleet(f, args, ""); err != nil {
		return err
	}
	if o.Fleet.many() {
		return nil
	}
	return o.Target.complete(f, args, "", nil)
}

// Validate checks -o (pure): a format cli-runtime's printers know.
func (o *DriveStatusOptions) Validate() error {
	_, err := o.Output.ObjectPrinter()
	return err
}

// Run reads the drive status (driverun: one Deployment, a fleet, every context; stsdrive: a
// StatefulSet's lease and walk) and prints it: the human form, or the DriveStatus object
// (kind DriveStatus, apiVersion rollplan.dev/v1alpha1; a v1 List of them for many) with -o.
// Exit 1 when a Deployment or a context could not be read (the others are printed).
func (o *DriveStatusOptions) Run(ctx context.Context) error {
	p, err := o.Output.ObjectPrinter()
	if err != nil {
		return err
	}
	in := driverun.StatusInput{Client: o.Target.Client, Sts: o.sts, Namespace: o.Namespace, Name: o.Name, Selection: o.Fleet.Selection, Many: o.Fleet.many(), Now: o.Now()}
	if in.Many {
		in.Client = o.Fleet.Client
	}
	if o.Contexts.many() {
		in.Contexts = o.Contexts.resolved
		in.Sources, in.SourceErrs = o.Contexts.sources()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := driverun.ReadStatus(ctx, in)
	if err != nil {
		return err
	}
	if err := printer.PrintDriveStatusResult(o.Out, o.ErrOut, p, r, in.Now); err != nil {
		return err
	}
	return exitCode(r.Exit())
}

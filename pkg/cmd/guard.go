package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

// NewCmdGuard returns "kubectl rollplan guard install|uninstall|print".
func NewCmdGuard(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "guard (install | uninstall | print)",
		Short: "Install the admission policy that keeps a held Deployment from being unpaused",
		Long: templates.LongDesc(`
			While drive holds a Deployment it is paused with strategy Recreate. Unpausing it then
			(kubectl rollout resume, an edit) makes the controller scale every old ReplicaSet to
			0 at once. The guard is a ValidatingAdmissionPolicy and its binding
			(admissionregistration.k8s.io/v1, Kubernetes 1.30 or later) named ` + drive.GuardName + ` that
			refuses that edit; the hand-back (kubectl rollplan resume, or the end of a drive)
			restores the strategy in the same write and passes.`),
		Example: templates.Examples(`
			kubectl rollplan guard install
			kubectl rollplan guard print | kubectl apply -f -`),
	}
	// action is install or uninstall: do with the clientset, then say what was done.
	action := func(use, short string, do func(context.Context, kubernetes.Interface) error, done string) *cobra.Command {
		return &cobra.Command{
			Use:   use,
			Short: short,
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				ctx := cmd.Context()
				if ctx == nil {
					ctx = context.Background()
				}
				cs, err := f.KubernetesClientSet()
				if err != nil {
					return err
				}
				if err := do(ctx, cs); err != nil {
					return err
				}
				return printer.PrintGuardResult(streams.Out, drive.GuardName, done)
			},
		}
	}
	cmd.AddCommand(action("install", "Create (or update) the guard policy and binding", drive.InstallGuard, "installed"))
	cmd.AddCommand(action("uninstall", "Delete the guard policy and binding", drive.UninstallGuard, "deleted"))
	cmd.AddCommand(&cobra.Command{
		Use:   "print",
		Short: "Print the guard policy and binding as YAML (for kubectl apply -f -)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			b, err := drive.GuardYAML()
			if err != nil {
				return err
			}
			_, err = streams.Out.Write(b)
			return err
		},
	})
	return cmd
}

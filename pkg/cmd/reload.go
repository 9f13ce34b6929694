package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/util/templates"
)

var (
	reloadLong = templates.LongDesc(`
		Restart Deployments whose pods run with outdated ConfigMaps or Secrets.

		With --watch, run as a controller until interrupted (from a laptop, or as a
		Deployment in the cluster: deploy/reload): every opted-in Deployment (annotation
		rollplan.dev/reload: "true"; also reloader.stakater.com/auto: "true" and
		com.xing.deployment-restart: enabled) of the namespace (-A: of every namespace; -l
		narrows) is restarted when the content of a ConfigMap or Secret key its pods see
		changes, --grace-period after the first change of a burst, --max-concurrent rollouts
		at a time, each waited for (--timeout). A restart is one guarded JSON patch of the pod
		template annotation rollplan.dev/config-checksums; an Event on the Deployment names
		what changed.`)

	reloadExample = templates.Examples(`
		# Restart opted-in Deployments of the namespace shop when their config changes
		kubectl rollplan reload --watch -n shop

		# Every namespace, one of several replicas acting, metrics on :8080
		kubectl rollplan reload --watch -A --leader-elect --metrics-bind-address :8080`)
)

// ReloadOptions holds the flags and dependencies of "kubectl rollplan reload".
type ReloadOptions struct {
	Selector      string
	AllNamespaces bool
	MaxConcurrent int
	Timeout       time.Duration
	Watch         ReloadWatchOptions

	Names     []string
	Namespace string
	Client    func() (kubernetes.Interface, error)
	cmd       *cobra.Command

	genericiooptions.IOStreams
}

// NewReloadOptions returns ReloadOptions with defaults.
func NewReloadOptions(streams genericiooptions.IOStreams) *ReloadOptions {
	return &ReloadOptions{MaxConcurrent: 1, Timeout: 10 * time.Minute, IOStreams: streams}
}

// NewCmdReload returns "kubectl rollplan reload".
func NewCmdReload(f cmdutil.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewReloadOptions(streams)
	cmd := &cobra.Command{
		Use:                   "reload --watch [-n NS | -A] [-l SELECTOR] [--grace-period D] [--max-concurrent N] [--leader-elect] [--metrics-bind-address ADDR]",
		DisableFlagsInUseLine: true,
		Short:                 "Restart Deployments whose pods run with changed ConfigMaps or Secrets (--watch: as a controller)",
		Long:                  reloadLong,
		Example:               reloadExample,
		RunE:                  runE(f, o),
	}
	fl := cmd.Flags()
	cmdutil.AddLabelSelectorFlagVar(cmd, &o.Selector)
	fl.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Watch opted-in Deployments across all namespaces.")
	fl.IntVar(&o.MaxConcurrent, "max-concurrent", o.MaxConcurrent, "How many restarts roll out at once; each is waited for until complete before the next starts.")
	fl.DurationVar(&o.Timeout, "timeout", o.Timeout, "How long to wait for one restart's rollout to complete.")
	addReloadWatchFlags(cmd, &o.Watch)
	return cmd
}

// Complete resolves the namespace, the names and the client.
func (o *ReloadOptions) Complete(f cmdutil.Factory, cmd *cobra.Command, args []string) error {
	var err error
	if o.Namespace, _, err = f.ToRawKubeConfigLoader().Namespace(); err != nil {
		return err
	}
	o.Names, o.cmd = args, cmd
	if o.Client == nil {
		o.Client = driveClient(f)
	}
	return nil
}

// Validate checks the flags alone.
func (o *ReloadOptions) Validate() error {
	if !o.Watch.Watch {
		return errors.New("reload without --watch is not available yet: give --watch")
	}
	switch {
	case o.MaxConcurrent < 1:
		return fmt.Errorf("--max-concurrent=%d: must be 1 or more", o.MaxConcurrent)
	case o.Timeout <= 0:
		return fmt.Errorf("--timeout=%s: must be more than 0", o.Timeout)
	}
	return o.Watch.validate(o.cmd, o.Names)
}

// Run runs the watch mode until interrupted.
func (o *ReloadOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cs, err := o.Client()
	if err != nil {
		return err
	}
	return runReloadWatch(ctx, o.Watch, reloadWatchRun{
		Client: cs, Namespace: o.Namespace, AllNamespaces: o.AllNamespaces, Selector: o.Selector,
		MaxConcurrent: o.MaxConcurrent, Timeout: o.Timeout,
	}, o.Out, o.ErrOut)
}

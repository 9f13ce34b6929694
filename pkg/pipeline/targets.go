package pipeline

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// CompleteOne resolves the arguments of a command that acts on one Deployment ("deploy/NAME",
// "NAME" or "deployment NAME", see target.ParseArgs) with the namespace of -n or the
// kubeconfig (CompleteSelection). Online the arguments go through target.Selection's
// resource.Builder (no request is made); with a stateFile they are parsed alone, the namespace
// is the one -n names, or empty ("as the file says"), and a kubeconfig is optional. Errors:
// the selection's, or "one Deployment at a time: N selected".
func CompleteOne(f cmdutil.Factory, args []string, stateFile string) (target.Ref, error) {
	sel := &target.Selection{Args: args}
	if err := sel.Validate(); err != nil {
		return target.Ref{}, err
	}
	if err := CompleteSelection(f, sel, stateFile); err != nil {
		return target.Ref{}, err
	}
	refs, err := sel.Resolve(context.Background()) // names: no request
	if err != nil {
		return target.Ref{}, err
	}
	if len(refs) != 1 {
		return target.Ref{}, fmt.Errorf("one Deployment at a time: %d selected", len(refs))
	}
	return refs[0], nil
}

// CompleteMany builds and validates the Selection of args and the selection flags (one line
// naming what is wrong and what to do; nothing asked), with the namespace and builder of
// CompleteSelection.
func CompleteMany(f cmdutil.Factory, flags *target.Flags, args []string, stateFile string) (*target.Selection, error) {
	sel, err := flags.Selection(args, "", false, nil)
	if err != nil {
		return nil, err
	}
	if err := sel.Validate(); err != nil {
		return nil, err
	}
	if err := CompleteSelection(f, sel, stateFile); err != nil {
		return nil, err
	}
	return sel, nil
}

// CompleteFleet is CompleteMany for a read-only command with a --state-file flag: -l, --all
// and -A list a cluster, so with a state file the Deployments are named (an error otherwise,
// returned with the selection).
func CompleteFleet(f cmdutil.Factory, flags *target.Flags, args []string, stateFile string) (*target.Selection, error) {
	sel, err := CompleteMany(f, flags, args, stateFile)
	if err == nil && stateFile != "" && sel.Bulk() {
		err = errors.New("-l, --all and -A list a cluster: with --state-file, name the Deployments (deploy/a deploy/b)")
	}
	return sel, err
}

// CompleteSelection fills sel's namespace (of -n or the kubeconfig; offline without -n:
// empty, "as the file says") and, online, its builder (target.NewBuilder over f). Errors: the
// kubeconfig's, online only.
func CompleteSelection(f cmdutil.Factory, sel *target.Selection, stateFile string) error {
	ns, explicit, err := f.ToRawKubeConfigLoader().Namespace()
	if err != nil && stateFile == "" {
		return err
	}
	sel.Namespace, sel.EnforceNamespace = ns, explicit
	if stateFile != "" && !explicit {
		sel.Namespace = ""
	}
	if stateFile == "" {
		sel.Builder = target.NewBuilder(f)
	}
	return nil
}

// ClientsetOf returns client, or f's clientset (built when called) when client is nil.
func ClientsetOf(f cmdutil.Factory, client func() (kubernetes.Interface, error)) func() (kubernetes.Interface, error) {
	if client != nil {
		return client
	}
	return func() (kubernetes.Interface, error) { return f.KubernetesClientSet() }
}

// LoadOne returns the client and the live state of the Deployment namespace/name (LoadState:
// one GET, one LIST, sent again through transient failures). Errors: the client's, or
// LoadLive's (one line naming the object).
func LoadOne(ctx context.Context, client func() (kubernetes.Interface, error), namespace, name string) (kubernetes.Interface, *cluster.State, error) {
	cs, err := client()
	if err != nil {
		return nil, nil, err
	}
	state, err := LoadState(ctx, func() (kubernetes.Interface, error) { return cs, nil }, "", namespace, name, false)
	if err != nil {
		return nil, nil, err
	}
	return cs, state, nil
}

// FleetClient returns the clientset of reads over many Deployments: f's REST config tuned by
// FleetTune. Errors (when called): the kubeconfig's.
func FleetClient(f cmdutil.Factory) func() (kubernetes.Interface, error) {
	return func() (kubernetes.Interface, error) {
		cfg, err := f.ToRESTConfig()
		if err != nil {
			return nil, err
		}
		FleetTune(cfg)
		return kubernetes.NewForConfig(cfg)
	}
}

// FleetTune is the REST config of reads over many Deployments: protobuf, as the controllers
// read, and a client-side rate limit (QPS 50, burst 100) that does not delay the pages of a
// paginated LIST (the default 5 per second added seconds to a 20-page read).
func FleetTune(cfg *rest.Config) {
	cfg.QPS, cfg.Burst = 50, 100
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
}

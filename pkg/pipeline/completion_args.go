package pipeline

import (
	"context"
	"maps"
	"slices"
	"strings"

	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Completer decides what shell completion offers for a command line (its arguments so far
// and the word being completed), and lists it through Connect: pkg/cmd binds its methods to
// cobra (ValidArgsFunction, RegisterFlagCompletionFunc) and bounds ctx. Every method returns
// the candidates and the first error; nothing (and no error) when the arguments take no
// completion.
type Completer struct {
	// Connect returns the client and the namespace the command line selects (-n, --context,
	// --kubeconfig). Errors: one line, "resolve namespace: ..." or "build client: ...".
	Connect func() (kubernetes.Interface, string, error)
}

// DeploymentName completes a command's first argument, a Deployment (NAME or TYPE/NAME, the
// forms of target.ParseName): the names of the Deployments of the namespace
// (CompleteDeploymentNames), keeping a typed "deploy/" (or "deployments.v1.apps/" ...)
// prefix; after a bare type ("deployment <TAB>", kubectl's TYPE NAME) plain names. Later
// arguments, and TYPE TYPE/NAME, complete nothing.
func (c Completer) DeploymentName(ctx context.Context, args []string, toComplete string) ([]string, error) {
	if len(args) > 1 || len(args) == 1 && !target.IsDeploymentType(args[0]) {
		return nil, nil
	}
	if len(args) == 1 && strings.Contains(toComplete, "/") {
		return nil, nil // TYPE TYPE/NAME is refused
	}
	client, ns, err := c.Connect()
	if err != nil {
		return nil, err
	}
	return CompleteDeploymentNames(ctx, client, ns, toComplete)
}

// DeploymentNames is DeploymentName for a command that takes several names (preview,
// history, undo, pause, resume, restart): every argument completes, not only the first,
// leaving out the names already on the line; after a bare type ("deployment a <TAB>") plain
// names. diff (history --diff: its later arguments are revisions) completes only the first
// argument.
func (c Completer) DeploymentNames(ctx context.Context, args []string, toComplete string, diff bool) ([]string, error) {
	if len(args) == 0 || len(args) == 1 && target.IsDeploymentType(args[0]) {
		return c.DeploymentName(ctx, args, toComplete)
	}
	if diff {
		return nil, nil
	}
	typed := args
	bareType := target.IsDeploymentType(args[0])
	if bareType {
		typed = args[1:]
		if strings.Contains(toComplete, "/") {
			return nil, nil // TYPE TYPE/NAME is refused
		}
	}
	given := map[string]bool{}
	for _, a := range typed {
		if name, err := target.ParseName(a); err == nil {
			given[name] = true
		}
	}
	comps, err := c.DeploymentName(ctx, nil, toComplete)
	var out []string
	for _, c := range comps {
		if name, err := target.ParseName(c); err == nil && given[name] {
			continue
		}
		out = append(out, c)
	}
	return out, err
}

// Revisions completes --to-revision and --revision: the revisions of the Deployment the
// leading arguments name (deploymentArg), newest first, each described by its images
// (CompleteRevisions: "3<TAB>nginx:1.27 (current)"). Without a Deployment argument nothing.
// listed says the revisions were asked for (the client was built): only then is their order
// the shell's to keep.
func (c Completer) Revisions(ctx context.Context, args []string, toComplete string) (comps []string, listed bool, err error) {
	if len(args) == 0 {
		return nil, false, nil
	}
	name, err := deploymentArg(args)
	if err != nil {
		return nil, false, nil
	}
	client, ns, err := c.Connect()
	if err != nil {
		return nil, false, err
	}
	comps, err = CompleteRevisions(ctx, client, ns, name, toComplete)
	return comps, true, err
}

// deploymentArg returns the Deployment the leading arguments name, as target.ParseArgs reads
// them: TYPE NAME when the first is a bare Deployment type and a second follows, else the first
// alone (later arguments are --diff's revisions).
func deploymentArg(args []string) (string, error) {
	if len(args) > 1 && target.IsDeploymentType(args[0]) {
		return target.ParseArgs(args[:2])
	}
	return target.ParseName(args[0])
}

// CompleteNamespaces returns the cluster's namespaces that start with toComplete, sorted
// (NamespaceNames: one LIST).
func CompleteNamespaces(ctx context.Context, client kubernetes.Interface, toComplete string) ([]string, error) {
	names, err := NamespaceNames(ctx, client)
	if err != nil {
		return nil, err
	}
	return WithPrefix(names, toComplete), nil
}

// KubeconfigNames returns the names of cfg's entries a connection flag takes ("context":
// contexts, "cluster": clusters, "user": users; anything else: none) that start with
// toComplete, sorted.
func KubeconfigNames(cfg clientcmdapi.Config, flag, toComplete string) []string {
	var names []string
	switch flag {
	case "context":
		names = slices.Collect(maps.Keys(cfg.Contexts))
	case "cluster":
		names = slices.Collect(maps.Keys(cfg.Clusters))
	case "user":
		names = slices.Collect(maps.Keys(cfg.AuthInfos))
	}
	return WithPrefix(names, toComplete)
}

// WithPrefix returns the sorted names that start with prefix.
func WithPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

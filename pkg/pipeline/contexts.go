package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Kubeconfig is the kubeconfig the connection flags select (--kubeconfig, KUBECONFIG) and
// how a client of one of its contexts is built: the same ConfigFlags (--as, --token,
// --request-timeout ... apply to every context) with --context set to it.
type Kubeconfig struct {
	Flags *genericclioptions.ConfigFlags
	// Tune adjusts each context's REST config before its clientset is built (nil: as is).
	Tune func(*rest.Config)
	// NewClient builds a context's clientset (nil: kubernetes.NewForConfig); tests give fakes.
	NewClient func(context string, cfg *rest.Config) (kubernetes.Interface, error)
}

// Contexts returns the names of the kubeconfig's contexts, sorted. Errors: the kubeconfig's
// (unreadable, invalid); no request is sent.
func (k *Kubeconfig) Contexts() ([]string, error) {
	raw, err := k.forContext(k.Flags.Context).ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig: %w", err)
	}
	names := make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// Resolve returns the contexts of --contexts (names, in the order given, duplicates dropped)
// or --all-contexts (all: every context, sorted). Pure but for reading the kubeconfig: no
// request is sent. Errors: an unknown name, naming the kubeconfig's contexts; a kubeconfig
// without contexts.
func (k *Kubeconfig) Resolve(names []string, all bool) ([]string, error) {
	known, err := k.Contexts()
	if err != nil {
		return nil, err
	}
	return ResolveContexts(known, names, all)
}

// ResolveContexts is Resolve over the known context names (pure).
func ResolveContexts(known, names []string, all bool) ([]string, error) {
	if all {
		if len(known) == 0 {
			return nil, fmt.Errorf("--all-contexts: the kubeconfig has no context")
		}
		return known, nil
	}
	var out []string
	for _, n := range names {
		switch {
		case n == "":
			return nil, fmt.Errorf("--contexts: an empty context name: give names separated by commas (A,B)")
		case !slices.Contains(known, n):
			return nil, fmt.Errorf("--contexts: context %q is not in the kubeconfig; its contexts are: %s", n, strings.Join(known, ", "))
		case !slices.Contains(out, n):
			out = append(out, n)
		}
	}
	return out, nil
}

// Source returns the Live Source of the context name. Its namespace is -n or the context's;
// its clientset is built on first use. Errors (on use): the context's REST config (missing
// credentials, an invalid server), or the clientset's.
func (k *Kubeconfig) Source(name string) (*Live, error) {
	cf := k.forContext(&name)
	ns, _, err := cf.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, fmt.Errorf("context %s: %w", name, err)
	}
	return NewLive(name, ns, func() (kubernetes.Interface, error) {
		cfg, err := cf.ToRESTConfig()
		if err != nil {
			return nil, err
		}
		if k.Tune != nil {
			k.Tune(cfg)
		}
		if k.NewClient != nil {
			return k.NewClient(name, cfg)
		}
		return kubernetes.NewForConfig(cfg)
	}), nil
}

// forContext returns a copy of the connection flags with --context name (a fresh
// ConfigFlags: the original caches its client config once read, with the context it had).
func (k *Kubeconfig) forContext(name *string) *genericclioptions.ConfigFlags {
	b := k.Flags
	cf := genericclioptions.NewConfigFlags(true)
	cf.CacheDir, cf.KubeConfig = b.CacheDir, b.KubeConfig
	cf.ClusterName, cf.AuthInfoName, cf.Namespace = b.ClusterName, b.AuthInfoName, b.Namespace
	cf.APIServer, cf.TLSServerName, cf.Insecure = b.APIServer, b.TLSServerName, b.Insecure
	cf.CertFile, cf.KeyFile, cf.CAFile, cf.BearerToken = b.CertFile, b.KeyFile, b.CAFile, b.BearerToken
	cf.Impersonate, cf.ImpersonateUID = b.Impersonate, b.ImpersonateUID
	cf.ImpersonateGroup, cf.ImpersonateUserExtra = b.ImpersonateGroup, b.ImpersonateUserExtra
	cf.Username, cf.Password, cf.Timeout = b.Username, b.Password, b.Timeout
	cf.DisableCompression, cf.WrapConfigFn = b.DisableCompression, b.WrapConfigFn
	cf.Context = name
	return cf
}

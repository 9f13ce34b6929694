package target

import (
	"context"
	"net/http"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/rest"
)

// RESTMapper returns a static mapper that knows apps/v1 Deployments alone (resource
// "deployments", singular "deployment", namespaced): the arguments rollplan accepts are
// normalised to deployments.v1.apps before mapping, so no discovery request is needed, online
// or offline. Any other resource is a meta.NoKindMatchError.
func RESTMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{appsv1.SchemeGroupVersion})
	m.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
	return m
}

// Builder returns a fresh resource.Builder whose requests end when ctx ends (one attempt's
// context of kube.Read: its per-attempt timeout and its caller's cancellation reach the
// builder's LISTs, which resource.Builder itself takes no context for).
type Builder func(ctx context.Context) *resource.Builder

// NewBuilder returns a Selection.Builder: cli-runtime's resource.NewBuilder over getter (a
// cmdutil.Factory, or genericclioptions.ConfigFlags), its REST mapper replaced by RESTMapper
// and its REST config's transport bound to the context given (boundTransport). The REST
// config and discovery of getter are still used for what needs a server (a -l list);
// resolving names asks nothing.
func NewBuilder(getter resource.RESTClientGetter) Builder {
	return func(ctx context.Context) *resource.Builder {
		return resource.NewBuilder(deploymentsOnly{RESTClientGetter: getter, ctx: ctx})
	}
}

// deploymentsOnly is a RESTClientGetter whose REST mapper is RESTMapper and whose REST
// config sends every request under ctx.
type deploymentsOnly struct {
	resource.RESTClientGetter
	ctx context.Context
}

func (deploymentsOnly) ToRESTMapper() (meta.RESTMapper, error) { return RESTMapper(), nil }

func (d deploymentsOnly) ToRESTConfig() (*rest.Config, error) {
	cfg, err := d.RESTClientGetter.ToRESTConfig()
	if err != nil || d.ctx == nil {
		return cfg, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return boundTransport{ctx: d.ctx, next: rt} })
	return cfg, nil
}

// boundTransport sends each request under a context that ends when either the request's own
// or ctx ends. The merged context is not cancelled when RoundTrip returns (the body is still
// to be read): it ends with ctx, the attempt's, which kube.Retry cancels after the attempt.
type boundTransport struct {
	ctx  context.Context
	next http.RoundTripper
}

func (b boundTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(b.ctx, cancel)
	resp, err := b.next.RoundTrip(req.WithContext(rctx))
	if err != nil {
		stop()
		cancel()
	}
	return resp, err
}

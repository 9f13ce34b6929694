package target

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
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

// NewBuilder returns a Selection.Builder: cli-runtime's resource.NewBuilder over getter (a
// cmdutil.Factory, or genericclioptions.ConfigFlags), its REST mapper replaced by RESTMapper.
// The REST config and discovery of getter are still used for what needs a server (a -l list,
// later); resolving names asks nothing.
func NewBuilder(getter resource.RESTClientGetter) func() *resource.Builder {
	g := deploymentsOnly{getter}
	return func() *resource.Builder { return resource.NewBuilder(g) }
}

// deploymentsOnly is a RESTClientGetter whose REST mapper is RESTMapper.
type deploymentsOnly struct{ resource.RESTClientGetter }

func (deploymentsOnly) ToRESTMapper() (meta.RESTMapper, error) { return RESTMapper(), nil }

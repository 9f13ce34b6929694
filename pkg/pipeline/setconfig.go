package pipeline

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
)

// ConfigObjects returns the v1 ConfigMaps and Secrets of a manifest set, in order (pure).
func ConfigObjects(set *manifest.Set) []*unstructured.Unstructured {
	objs, _ := ConfigObjectsWithSources(set)
	return objs
}

// ConfigObjectsWithSources is ConfigObjects with the file each object was read from (the
// two slices are parallel).
func ConfigObjectsWithSources(set *manifest.Set) ([]*unstructured.Unstructured, []string) {
	var out []*unstructured.Unstructured
	var sources []string
	for _, o := range set.Others {
		gvk := o.Object.GroupVersionKind()
		if gvk.Group == "" && gvk.Version == "v1" && (gvk.Kind == "ConfigMap" || gvk.Kind == "Secret") {
			out = append(out, o.Object)
			sources = append(sources, o.Source)
		}
	}
	return out, sources
}

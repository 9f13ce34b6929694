package change

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	kubectlutil "k8s.io/kubectl/pkg/util"
)

// FromManifest returns the Deployment that `kubectl apply -f` of manifest would leave, with
// the client-side defaults of ApplyDefaults: the fallback for kube.DryRunUpdate, whose server
// answer is exact.
//
// manifest is YAML or JSON, one document or several (a v1 List is flattened); exactly one
// apps/v1 Deployment must be the target and other kinds are ignored. With live set, the
// target is the Deployment named live.Name (and, if the manifest sets a namespace, in
// live.Namespace); it is merged into live as client-side apply does: a three-way strategic
// merge patch from the kubectl.kubernetes.io/last-applied-configuration annotation of live,
// the manifest and live (kubectl's Patcher.patchSimple with the built-in apps/v1 patch meta),
// so fields the manifest leaves out keep their live values unless the last apply set them
// (for example, spec.replicas owned by an autoscaler stays). The result keeps live's
// metadata (uid, resourceVersion) and status, and carries the new last-applied annotation.
// With live nil, the manifest's only Deployment is the target: the result is the manifest
// with the last-applied annotation and defaults, and its namespace as the manifest says
// (empty if it says none: the caller sets the command's namespace).
//
// Unknown fields are errors, as the API server's strict field validation (kubectl's
// default) reports them. Server-side apply (--server-side) merges by field ownership
// instead; for fields one manager owns, the result is the same.
//
// Errors: the manifest does not parse; holds no Deployment (the kinds it holds are named);
// holds a Deployment of another name than live's; holds several and live is nil.
func FromManifest(live *appsv1.Deployment, manifest []byte) (*appsv1.Deployment, error) {
	target, err := pickManifestDeployment(live, manifest)
	if err != nil {
		return nil, err
	}
	return FromObject(live, target)
}

// FromObject is FromManifest of one Deployment already decoded (an item of a manifest set
// read by cli-runtime's resource.Builder): target is not modified. Its metadata.name is
// expected to be live's when live is set (the caller matched them). Errors: target is not
// an apps/v1 Deployment, has unknown fields, or does not merge into live.
func FromObject(live *appsv1.Deployment, target *unstructured.Unstructured) (*appsv1.Deployment, error) {
	if gvk := target.GroupVersionKind(); gvk != appsv1.SchemeGroupVersion.WithKind("Deployment") {
		return nil, fmt.Errorf("manifest: %s %q is not an apps/v1 Deployment", target.GetKind(), target.GetName())
	}
	target = target.DeepCopy()
	if live != nil && target.GetNamespace() == "" {
		target.SetNamespace(live.Namespace)
	}
	if _, err := DecodeDeployment(target); err != nil {
		return nil, err
	}
	modified, err := kubectlutil.GetModifiedConfiguration(target, true, unstructured.UnstructuredJSONScheme)
	if err != nil {
		return nil, fmt.Errorf("manifest: encode deployment %q: %w", target.GetName(), err)
	}
	if live == nil {
		var d appsv1.Deployment
		if err := json.Unmarshal(modified, &d); err != nil {
			return nil, fmt.Errorf("manifest: decode deployment %q: %w", target.GetName(), err)
		}
		return ApplyDefaults(&d), nil
	}
	merged, err := threeWayMerge(live, modified)
	if err != nil {
		return nil, fmt.Errorf("manifest: merge deployment %q into the live one: %w", target.GetName(), err)
	}
	return ApplyDefaults(merged), nil
}

// threeWayMerge mirrors Patcher.patchSimple (k8s.io/kubectl/pkg/cmd/apply/patcher.go) for a
// built-in type: original is live's last-applied annotation, modified the manifest with the
// new annotation, current live itself. The patch is applied on the client instead of the
// server.
func threeWayMerge(live *appsv1.Deployment, modified []byte) (*appsv1.Deployment, error) {
	original, err := kubectlutil.GetOriginalConfiguration(live)
	if err != nil {
		return nil, err
	}
	current, err := json.Marshal(live)
	if err != nil {
		return nil, err
	}
	patchMeta, err := strategicpatch.NewPatchMetaFromStruct(&appsv1.Deployment{})
	if err != nil {
		return nil, err
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, patchMeta, true)
	if err != nil {
		return nil, err
	}
	mergedJSON, err := strategicpatch.StrategicMergePatchUsingLookupPatchMeta(current, patch, patchMeta)
	if err != nil {
		return nil, err
	}
	var merged appsv1.Deployment
	if err := json.Unmarshal(mergedJSON, &merged); err != nil {
		return nil, err
	}
	return &merged, nil
}

// pickManifestDeployment decodes the manifest's documents and returns the target
// Deployment as an unstructured object.
func pickManifestDeployment(live *appsv1.Deployment, manifest []byte) (*unstructured.Unstructured, error) {
	objs, err := decodeManifest(manifest)
	if err != nil {
		return nil, err
	}
	var deployments []*unstructured.Unstructured
	var others []string
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if gvk.Kind != "Deployment" || gvk.Group != appsv1.GroupName {
			others = append(others, fmt.Sprintf("%s %q", o.GetKind(), o.GetName()))
			continue
		}
		if gvk.Version != "v1" {
			return nil, fmt.Errorf("manifest: Deployment %q has apiVersion %s: use apps/v1", o.GetName(), o.GetAPIVersion())
		}
		deployments = append(deployments, o)
	}
	if len(deployments) == 0 {
		if len(others) == 0 {
			return nil, fmt.Errorf("manifest holds no object: expected an apps/v1 Deployment")
		}
		return nil, fmt.Errorf("manifest holds no Deployment (it holds %s): rollplan works on Deployments", strings.Join(others, ", "))
	}
	if live == nil {
		if len(deployments) > 1 {
			return nil, fmt.Errorf("manifest holds %d Deployments (%s): name the one to plan", len(deployments), strings.Join(namesOf(deployments), ", "))
		}
		return deployments[0], nil
	}
	for _, d := range deployments {
		if d.GetName() != live.Name {
			continue
		}
		if ns := d.GetNamespace(); ns != "" && ns != live.Namespace {
			return nil, fmt.Errorf("manifest puts Deployment %q in namespace %q, but the target is in %q: pass -n %s or fix metadata.namespace", d.GetName(), ns, live.Namespace, ns)
		}
		return d, nil
	}
	return nil, fmt.Errorf("manifest holds Deployment %s, not %q: the manifest must be for the target Deployment", strings.Join(namesOf(deployments), ", "), live.Name)
}

func namesOf(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, fmt.Sprintf("%q", o.GetName()))
	}
	return out
}

// decodeManifest reads every YAML document or JSON value of manifest into unstructured
// objects, flattening v1 Lists, as kubectl's resource builder does for -f.
func decodeManifest(manifest []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(manifest), 4096)
	var out []*unstructured.Unstructured
	for i := 1; ; i++ {
		var m map[string]interface{}
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("manifest: document %d: %v", i, err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "" {
			return nil, fmt.Errorf("manifest: document %d has no kind", i)
		}
		if u.IsList() {
			list, err := u.ToList()
			if err != nil {
				return nil, fmt.Errorf("manifest: document %d: %v", i, err)
			}
			for j := range list.Items {
				out = append(out, &list.Items[j])
			}
			continue
		}
		out = append(out, u)
	}
}

// strictDeploymentDecoder decodes apps/v1 objects and reports unknown or duplicate fields.
var strictDeploymentDecoder = serializerjson.NewSerializerWithOptions(serializerjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
	serializerjson.SerializerOptions{Yaml: false, Pretty: false, Strict: true})

// DecodeDeployment decodes u as an apps/v1 Deployment, failing on fields the type does not
// have (what the API server's strict field validation rejects), with an error naming the
// Deployment and the field.
func DecodeDeployment(u *unstructured.Unstructured) (*appsv1.Deployment, error) {
	js, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("manifest: deployment %q: %w", u.GetName(), err)
	}
	obj, _, err := strictDeploymentDecoder.Decode(js, nil, &appsv1.Deployment{})
	if err != nil {
		if runtime.IsStrictDecodingError(err) {
			return nil, fmt.Errorf("manifest: deployment %q: %v: fix the manifest (the API server rejects unknown fields)", u.GetName(), err)
		}
		return nil, fmt.Errorf("manifest: deployment %q: %v", u.GetName(), err)
	}
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return nil, fmt.Errorf("manifest: deployment %q decoded as %T", u.GetName(), obj)
	}
	return d, nil
}

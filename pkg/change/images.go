package change

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// SetImages returns a copy of d with container images set as `kubectl set image` does: each
// pair is "CONTAINER=IMAGE"; "*=IMAGE" sets every container and init container. A name
// matches in spec.template.spec.initContainers and containers (ephemeral containers cannot
// appear in a template). When a name is given twice the last pair wins.
//
// Errors (nothing is changed): a pair without '=' or starting with it (`invalid image format:
// web`; a pair holding a control character such as a newline is quoted), an empty image, "*" together with other pairs, or a container name found nowhere:
// `unable to find container named "x"` followed by the names that exist (several unknown
// names: one line, `unable to find containers named "x", "y"`). Unlike kubectl,
// which still patches the containers it found, SetImages applies nothing when a name is
// unknown, so a preview never shows half a change.
//
// Mirrors SetImageOptions.Validate/Run and setImage, k8s.io/kubectl/pkg/cmd/set/set_image.go,
// with the pair parsing of cmdutil.ParsePairs, v0.36.3.
func SetImages(d *appsv1.Deployment, pairs []string) (*appsv1.Deployment, error) {
	images, order, err := parseImagePairs(pairs)
	if err != nil {
		return nil, err
	}
	out := d.DeepCopy()
	spec := &out.Spec.Template.Spec
	var unknown []string
	for _, name := range order {
		image := images[name]
		initFound := setImage(spec.InitContainers, name, image)
		found := setImage(spec.Containers, name, image)
		if !initFound && !found {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	switch {
	case len(unknown) == 1:
		return nil, fmt.Errorf("unable to find container named %s (%s)", unknown[0], containerNames(spec))
	case len(unknown) > 1:
		return nil, fmt.Errorf("unable to find containers named %s (%s)", strings.Join(unknown, ", "), containerNames(spec))
	}
	return out, nil
}

// parseImagePairs parses CONTAINER=IMAGE pairs like cmdutil.ParsePairs(pairs, "image",
// false) and SetImageOptions.Validate. order lists the names in first-seen order.
func parseImagePairs(pairs []string) (images map[string]string, order []string, err error) {
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("at least one image update is required")
	}
	images = map[string]string{}
	var invalid []string
	for _, p := range pairs {
		name, image, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			invalid = append(invalid, printable(p))
			continue
		}
		if image == "" {
			return nil, nil, fmt.Errorf("invalid image format: %s: the image is empty", printable(p))
		}
		if _, seen := images[name]; !seen {
			order = append(order, name)
		}
		images[name] = image
	}
	if len(invalid) > 0 {
		return nil, nil, fmt.Errorf("invalid image format: %s", strings.Join(invalid, ", "))
	}
	if _, all := images["*"]; all && len(images) > 1 {
		return nil, nil, fmt.Errorf("all containers are already specified by *, but saw more than one container_name=container_image pairs")
	}
	return images, order, nil
}

// printable returns s as kubectl prints it in an error, or quoted (Go syntax) when it holds a
// control character such as a newline, so the error stays one line:
// printable("web") = web, printable("web\n") = "web\n".
func printable(s string) string {
	if strings.ContainsFunc(s, unicode.IsControl) {
		return strconv.Quote(s)
	}
	return s
}

// setImage mirrors setImage in set_image.go: it sets the image of every container named name
// (or all, for "*") and reports whether any matched.
func setImage(containers []corev1.Container, name, image string) bool {
	found := false
	for i := range containers {
		if containers[i].Name == name || name == "*" {
			containers[i].Image = image
			found = true
		}
	}
	return found
}

// containerNames describes the containers of spec for an error message, for example
// "containers: web, sidecar; init containers: migrate".
func containerNames(spec *corev1.PodSpec) string {
	names := func(cs []corev1.Container) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return strings.Join(out, ", ")
	}
	s := "containers: " + names(spec.Containers)
	if len(spec.InitContainers) > 0 {
		s += "; init containers: " + names(spec.InitContainers)
	}
	if len(spec.Containers) == 0 {
		s = "the template has no containers"
	}
	return s
}

// SetReplicas returns a copy of d with spec.replicas = n, as `kubectl scale --replicas=n`.
// A negative n is an error in the API server's words
// (`spec.replicas: Invalid value: -1: must be greater than or equal to 0`).
func SetReplicas(d *appsv1.Deployment, n int32) (*appsv1.Deployment, error) {
	if errs := apivalidation.ValidateNonnegativeField(int64(n), field.NewPath("spec", "replicas")); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	out := d.DeepCopy()
	out.Spec.Replicas = ptr.To(n)
	return out, nil
}

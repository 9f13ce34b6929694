package testutil

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
)

// DefaultedContainer returns a container named name running image with the defaults a
// v1.36.3 API server gives a container of a pod template (imagePullPolicy,
// terminationMessagePath, terminationMessagePolicy), as change.ApplyDefaults applies them.
func DefaultedContainer(name, image string) corev1.Container {
	ps := defaultedPodSpec(corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: image}}})
	return ps.Containers[0]
}

// defaultedPodSpec returns ps with the API server's pod spec defaults (change.ApplyDefaults
// on a Deployment holding it).
func defaultedPodSpec(ps corev1.PodSpec) corev1.PodSpec {
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: ps}}}
	return change.ApplyDefaults(d).Spec.Template.Spec
}

// setImage sets the image of spec's first container and the imagePullPolicy the server
// defaults for it (change.PullPolicyFor); a spec without containers gets a defaulted one
// named "app".
func setImage(spec *corev1.PodSpec, image string) {
	if len(spec.Containers) == 0 {
		spec.Containers = []corev1.Container{DefaultedContainer("app", image)}
		return
	}
	spec.Containers[0].Image = image
	spec.Containers[0].ImagePullPolicy = change.PullPolicyFor(image)
}

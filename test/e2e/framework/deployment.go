package framework

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
)

// HoldLabel on a pod keeps it Pending and not Ready (hack/cluster/kwok-stages.yaml) until
// the label is removed. HoldValue is the value the framework uses; kwok treats an empty
// value as no label.
const (
	HoldLabel = "rollplan.test/hold"
	HoldValue = "true"
)

// DeploymentBuilder builds a small apps/v1 Deployment: selector and pod labels app=<name>,
// one container "app". Unset fields are left to the API server's defaults (replicas 1,
// RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600).
type DeploymentBuilder struct {
	d appsv1.Deployment
}

// NewDeployment starts a Deployment named name with image nginx:1.18.
func NewDeployment(name string) *DeploymentBuilder {
	labels := map[string]string{"app": name}
	return &DeploymentBuilder{d: appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "app", Image: "nginx:1.18"}},
				},
			},
		},
	}}
}

// Replicas sets spec.replicas.
func (b *DeploymentBuilder) Replicas(n int32) *DeploymentBuilder {
	b.d.Spec.Replicas = &n
	return b
}

// Image sets the image of the container.
func (b *DeploymentBuilder) Image(image string) *DeploymentBuilder {
	b.d.Spec.Template.Spec.Containers[0].Image = image
	return b
}

// RollingUpdate sets the RollingUpdate strategy; maxSurge and maxUnavailable are an integer
// ("1") or a percentage ("25%").
func (b *DeploymentBuilder) RollingUpdate(maxSurge, maxUnavailable string) *DeploymentBuilder {
	s, u := intstr.Parse(maxSurge), intstr.Parse(maxUnavailable)
	b.d.Spec.Strategy = appsv1.DeploymentStrategy{
		Type:          appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u},
	}
	return b
}

// Recreate sets the Recreate strategy.
func (b *DeploymentBuilder) Recreate() *DeploymentBuilder {
	b.d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return b
}

// RevisionHistoryLimit sets spec.revisionHistoryLimit.
func (b *DeploymentBuilder) RevisionHistoryLimit(n int32) *DeploymentBuilder {
	b.d.Spec.RevisionHistoryLimit = &n
	return b
}

// Hold puts HoldLabel on the pod template, so every pod of the Deployment stays unready
// until released (ReleasePods, AutoRelease). It changes the pod template, hence the
// pod-template-hash.
func (b *DeploymentBuilder) Hold() *DeploymentBuilder {
	SetHold(&b.d.Spec.Template, true)
	return b
}

// ReadyAfterAnnotation and ReadyAfterMaxAnnotation on a pod (template) make kwok mark it
// Ready only after a delay (hack/cluster/kwok-stages.yaml, pod-ready's delay): ReadyAfter
// alone, that Go duration; with ReadyAfterMax above it, a duration drawn uniformly from
// [ReadyAfter, ReadyAfterMax) for each pod.
const (
	ReadyAfterAnnotation    = "rollplan.test/ready-after"
	ReadyAfterMaxAnnotation = "rollplan.test/ready-after-max"
)

// ReadyAfter makes every pod of the Deployment become Ready min after kwok sees it
// scheduled, or, with max > min, after a duration drawn uniformly from [min, max) per pod
// (SetReadyAfter). It changes the pod template, hence the pod-template-hash.
func (b *DeploymentBuilder) ReadyAfter(min, max time.Duration) *DeploymentBuilder {
	SetReadyAfter(&b.d.Spec.Template, min, max)
	return b
}

// SetReadyAfter sets (min > 0) or removes (min == 0) the ready-after annotations of a pod
// template; max <= min sets a fixed delay.
func SetReadyAfter(tmpl *corev1.PodTemplateSpec, min, max time.Duration) {
	delete(tmpl.Annotations, ReadyAfterAnnotation)
	delete(tmpl.Annotations, ReadyAfterMaxAnnotation)
	if min <= 0 {
		return
	}
	if tmpl.Annotations == nil {
		tmpl.Annotations = map[string]string{}
	}
	tmpl.Annotations[ReadyAfterAnnotation] = min.String()
	if max > min {
		tmpl.Annotations[ReadyAfterMaxAnnotation] = max.String()
	}
}

// ProgressDeadline sets spec.progressDeadlineSeconds.
func (b *DeploymentBuilder) ProgressDeadline(seconds int32) *DeploymentBuilder {
	b.d.Spec.ProgressDeadlineSeconds = &seconds
	return b
}

// Build returns a copy of the Deployment built so far.
func (b *DeploymentBuilder) Build() *appsv1.Deployment {
	return b.d.DeepCopy()
}

// SetHold adds (hold=true) or removes HoldLabel on a pod template, for a template change
// that should leave the new pods unready: SetHold(&d.Spec.Template, true).
func SetHold(tmpl *corev1.PodTemplateSpec, hold bool) {
	if hold {
		if tmpl.Labels == nil {
			tmpl.Labels = map[string]string{}
		}
		tmpl.Labels[HoldLabel] = HoldValue
		return
	}
	delete(tmpl.Labels, HoldLabel)
}

// CreateDeployment creates b's Deployment in ns and returns the created object.
func (c *Cluster) CreateDeployment(t testing.TB, ns string, b *DeploymentBuilder) *appsv1.Deployment {
	t.Helper()
	d := b.Build()
	d.Namespace = ns
	created, err := c.Client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create deployment %s/%s: %v", ns, d.Name, err)
	}
	return created
}

// UpdateDeployment gets Deployment ns/name, applies mutate and updates it, retrying on
// conflicts; it returns the updated object.
func (c *Cluster) UpdateDeployment(t testing.TB, ns, name string, mutate func(*appsv1.Deployment)) *appsv1.Deployment {
	t.Helper()
	d, err := c.updateDeployment(t.Context(), ns, name, mutate)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (c *Cluster) updateDeployment(ctx context.Context, ns, name string, mutate func(*appsv1.Deployment)) (*appsv1.Deployment, error) {
	var out *appsv1.Deployment
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := c.Client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(d)
		out, err = c.Client.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		if apierrors.IsConflict(err) {
			return nil, fmt.Errorf("update deployment %s/%s: still conflicting after retries: %w", ns, name, err)
		}
		return nil, fmt.Errorf("update deployment %s/%s: %w", ns, name, err)
	}
	return out, nil
}

package testutil

import (
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

// DeploymentBuilder builds an apps/v1 Deployment. Start one with Deployment.
type DeploymentBuilder struct {
	d *appsv1.Deployment
}

// Deployment starts a server-defaulted Deployment named name in DefaultNamespace: UID
// UIDFor("Deployment", name), label and selector app=<name>, one container named <name>
// running nginx:1.18, generation 1, created at Time(0), empty status, and the spec defaults
// change.ApplyDefaults gives (replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10,
// progressDeadlineSeconds 600, the pod template defaults).
func Deployment(name string) *DeploymentBuilder {
	labels := map[string]string{"app": name}
	bare := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "nginx:1.18"}}},
		},
	}}
	d := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         DefaultNamespace,
			UID:               UIDFor("Deployment", name),
			Labels:            maps.Clone(labels),
			Generation:        1,
			ResourceVersion:   "1",
			CreationTimestamp: Time(0),
		},
		Spec: change.ApplyDefaults(bare).Spec,
	}
	return &DeploymentBuilder{d: d}
}

// RollingUpdate returns a RollingUpdate strategy. Each of maxSurge and maxUnavailable is
// "N%" for a percentage, a decimal integer for a count, or "" to leave the field nil.
func RollingUpdate(maxSurge, maxUnavailable string) appsv1.DeploymentStrategy {
	return appsv1.DeploymentStrategy{
		Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxSurge:       IntOrPercent(maxSurge),
			MaxUnavailable: IntOrPercent(maxUnavailable),
		},
	}
}

// Recreate returns a Recreate strategy (rollingUpdate nil, as validation requires).
func Recreate() appsv1.DeploymentStrategy {
	return appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
}

// IntOrPercent parses "25%" into a string IntOrString, "3" or "-1" into an int one, and ""
// into nil. Anything else becomes a string value, so tests can build invalid specs.
func IntOrPercent(s string) *intstr.IntOrString {
	if s == "" {
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		v := intstr.FromInt32(int32(n))
		return &v
	}
	v := intstr.FromString(s)
	return &v
}

// Namespace sets metadata.namespace.
func (b *DeploymentBuilder) Namespace(ns string) *DeploymentBuilder {
	b.d.Namespace = ns
	return b
}

// UID sets metadata.uid.
func (b *DeploymentBuilder) UID(uid types.UID) *DeploymentBuilder {
	b.d.UID = uid
	return b
}

// ResourceVersion sets metadata.resourceVersion.
func (b *DeploymentBuilder) ResourceVersion(rv string) *DeploymentBuilder {
	b.d.ResourceVersion = rv
	return b
}

// Deleting sets metadata.deletionTimestamp to Time(i).
func (b *DeploymentBuilder) Deleting(i int) *DeploymentBuilder {
	t := Time(i)
	b.d.DeletionTimestamp = &t
	return b
}

// Label sets a label on the Deployment, its selector and its pod template at once, as
// `kubectl create deployment` keeps them in step. Use TemplateLabel for the template alone.
func (b *DeploymentBuilder) Label(k, v string) *DeploymentBuilder {
	b.d.Labels = setKey(b.d.Labels, k, v)
	b.d.Spec.Selector.MatchLabels[k] = v
	return b.TemplateLabel(k, v)
}

// TemplateLabel sets a label on the pod template only.
func (b *DeploymentBuilder) TemplateLabel(k, v string) *DeploymentBuilder {
	b.d.Spec.Template.Labels = setKey(b.d.Spec.Template.Labels, k, v)
	return b
}

// Selector replaces spec.selector (nil is allowed, for invalid specs).
func (b *DeploymentBuilder) Selector(s *metav1.LabelSelector) *DeploymentBuilder {
	b.d.Spec.Selector = s
	return b
}

// Annotation sets a Deployment annotation.
func (b *DeploymentBuilder) Annotation(k, v string) *DeploymentBuilder {
	b.d.Annotations = setKey(b.d.Annotations, k, v)
	return b
}

// TemplateAnnotation sets a pod template annotation.
func (b *DeploymentBuilder) TemplateAnnotation(k, v string) *DeploymentBuilder {
	b.d.Spec.Template.Annotations = setKey(b.d.Spec.Template.Annotations, k, v)
	return b
}

// Revision sets the deployment.kubernetes.io/revision annotation the controller keeps on the
// Deployment (the revision of its current new ReplicaSet).
func (b *DeploymentBuilder) Revision(r int64) *DeploymentBuilder {
	return b.Annotation(deployutil.RevisionAnnotation, strconv.FormatInt(r, 10))
}

// Replicas sets spec.replicas.
func (b *DeploymentBuilder) Replicas(n int32) *DeploymentBuilder {
	b.d.Spec.Replicas = ptr.To(n)
	return b
}

// Strategy sets spec.strategy; see RollingUpdate and Recreate.
func (b *DeploymentBuilder) Strategy(s appsv1.DeploymentStrategy) *DeploymentBuilder {
	b.d.Spec.Strategy = s
	return b
}

// MaxSurge sets spec.strategy.rollingUpdate.maxSurge (see IntOrPercent), creating
// rollingUpdate if needed.
func (b *DeploymentBuilder) MaxSurge(s string) *DeploymentBuilder {
	b.rollingUpdate().MaxSurge = IntOrPercent(s)
	return b
}

// MaxUnavailable sets spec.strategy.rollingUpdate.maxUnavailable (see IntOrPercent).
func (b *DeploymentBuilder) MaxUnavailable(s string) *DeploymentBuilder {
	b.rollingUpdate().MaxUnavailable = IntOrPercent(s)
	return b
}

func (b *DeploymentBuilder) rollingUpdate() *appsv1.RollingUpdateDeployment {
	if b.d.Spec.Strategy.RollingUpdate == nil {
		b.d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
	}
	return b.d.Spec.Strategy.RollingUpdate
}

// Paused sets spec.paused.
func (b *DeploymentBuilder) Paused(p bool) *DeploymentBuilder {
	b.d.Spec.Paused = p
	return b
}

// MinReadySeconds sets spec.minReadySeconds.
func (b *DeploymentBuilder) MinReadySeconds(s int32) *DeploymentBuilder {
	b.d.Spec.MinReadySeconds = s
	return b
}

// RevisionHistoryLimit sets spec.revisionHistoryLimit.
func (b *DeploymentBuilder) RevisionHistoryLimit(n int32) *DeploymentBuilder {
	b.d.Spec.RevisionHistoryLimit = ptr.To(n)
	return b
}

// ProgressDeadlineSeconds sets spec.progressDeadlineSeconds.
func (b *DeploymentBuilder) ProgressDeadlineSeconds(s int32) *DeploymentBuilder {
	b.d.Spec.ProgressDeadlineSeconds = ptr.To(s)
	return b
}

// Image sets the image of the first container (and its defaulted imagePullPolicy).
func (b *DeploymentBuilder) Image(image string) *DeploymentBuilder {
	setImage(&b.d.Spec.Template.Spec, image)
	return b
}

// Container appends a defaulted container (see DefaultedContainer).
func (b *DeploymentBuilder) Container(name, image string) *DeploymentBuilder {
	b.d.Spec.Template.Spec.Containers = append(b.d.Spec.Template.Spec.Containers, DefaultedContainer(name, image))
	return b
}

// InitContainer appends a defaulted init container.
func (b *DeploymentBuilder) InitContainer(name, image string) *DeploymentBuilder {
	b.d.Spec.Template.Spec.InitContainers = append(b.d.Spec.Template.Spec.InitContainers, DefaultedContainer(name, image))
	return b
}

// Containers replaces the containers as given (no defaulting).
func (b *DeploymentBuilder) Containers(cs ...corev1.Container) *DeploymentBuilder {
	b.d.Spec.Template.Spec.Containers = cs
	return b
}

// CollisionCount sets status.collisionCount.
func (b *DeploymentBuilder) CollisionCount(n int32) *DeploymentBuilder {
	b.d.Status.CollisionCount = ptr.To(n)
	return b
}

// Status sets the replica counts of status (observedGeneration follows metadata.generation).
func (b *DeploymentBuilder) Status(replicas, updated, ready, available int32) *DeploymentBuilder {
	s := &b.d.Status
	s.ObservedGeneration = b.d.Generation
	s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas = replicas, updated, ready, available
	s.UnavailableReplicas = max(0, replicas-available)
	return b
}

// Undefaulted clears the fields the API server defaults (replicas, strategy, revision
// history limit, progress deadline, pod template defaults, container defaults) and the
// metadata it sets (uid, resourceVersion, generation, creationTimestamp), as in a manifest a
// user writes.
func (b *DeploymentBuilder) Undefaulted() *DeploymentBuilder {
	s := &b.d.Spec
	s.Replicas, s.Strategy, s.RevisionHistoryLimit, s.ProgressDeadlineSeconds = nil, appsv1.DeploymentStrategy{}, nil, nil
	ps := &s.Template.Spec
	ps.RestartPolicy, ps.TerminationGracePeriodSeconds, ps.DNSPolicy, ps.SecurityContext, ps.SchedulerName = "", nil, "", nil, ""
	for _, cs := range [][]corev1.Container{ps.InitContainers, ps.Containers} {
		for i := range cs {
			cs[i].ImagePullPolicy, cs[i].TerminationMessagePath, cs[i].TerminationMessagePolicy = "", "", ""
		}
	}
	b.d.UID, b.d.ResourceVersion, b.d.Generation, b.d.CreationTimestamp = "", "", 0, metav1.Time{}
	return b
}

// Build returns a deep copy of the Deployment built so far.
func (b *DeploymentBuilder) Build() *appsv1.Deployment {
	return b.d.DeepCopy()
}

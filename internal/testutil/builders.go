package testutil

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/distribution/reference"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
	"k8s.io/utils/ptr"
)

// Annotation keys the Deployment controller maintains (k8s.io/kubectl/pkg/util/deployment).
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
)

// DefaultNamespace is the namespace builders use unless told otherwise.
const DefaultNamespace = "default"

// Epoch is the creation time of Time(0): 2024-01-01T00:00:00Z.
var Epoch = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Time returns Epoch plus i minutes, at the second precision the API server stores: tests
// order objects with small integers instead of literal timestamps.
func Time(i int) metav1.Time {
	return metav1.NewTime(Epoch.Add(time.Duration(i) * time.Minute))
}

// UIDFor returns the deterministic UID builders give an object of the given kind and name,
// for example "uid-deployment-web".
func UIDFor(kind, name string) types.UID {
	return types.UID("uid-" + strings.ToLower(kind) + "-" + name)
}

// ComputeHash returns the pod-template-hash the Deployment controller gives template with
// collisionCount: FNV-32a over dump.ForHash(template), then the collision count as 8
// little-endian bytes, encoded with rand.SafeEncodeString. It mirrors controller.ComputeHash
// (pkg/controller/controller_utils.go, v1.36.3). template must not carry the hash label.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	hasher := fnv.New32a()
	hasher.Reset()
	fmt.Fprintf(hasher, "%v", dump.ForHash(*template))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		hasher.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(hasher.Sum32()))
}

// DefaultedContainer returns a container with the defaults the API server gives a container
// of a pod template: imagePullPolicy (Always for a ":latest" or untagged image, else
// IfNotPresent), terminationMessagePath /dev/termination-log, terminationMessagePolicy File.
func DefaultedContainer(name, image string) corev1.Container {
	return corev1.Container{
		Name:                     name,
		Image:                    image,
		ImagePullPolicy:          pullPolicy(image),
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}
}

// pullPolicy mirrors SetDefaults_Container (pkg/apis/core/v1/defaults.go, v1.36.3): Always
// when the image's tag is "latest" or it has neither tag nor digest, else IfNotPresent (also
// for an image reference that does not parse).
func pullPolicy(image string) corev1.PullPolicy {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return corev1.PullIfNotPresent
	}
	tagged, hasTag := named.(reference.Tagged)
	_, hasDigest := named.(reference.Digested)
	if (hasTag && tagged.Tag() == "latest") || (!hasTag && !hasDigest) {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// DeploymentBuilder builds an apps/v1 Deployment. Start one with Deployment.
type DeploymentBuilder struct {
	d *appsv1.Deployment
}

// Deployment starts a server-defaulted Deployment named name in DefaultNamespace: UID
// UIDFor("Deployment", name), label and selector app=<name>, one container named <name>
// running nginx:1.18, replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10,
// progressDeadlineSeconds 600, generation 1, created at Time(0), empty status.
func Deployment(name string) *DeploymentBuilder {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         DefaultNamespace,
			UID:               UIDFor("Deployment", name),
			Labels:            copyMap(labels),
			Generation:        1,
			ResourceVersion:   "1",
			CreationTimestamp: Time(0),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: copyMap(labels)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: copyMap(labels)},
				Spec: corev1.PodSpec{
					Containers:                    []corev1.Container{DefaultedContainer(name, "nginx:1.18")},
					RestartPolicy:                 corev1.RestartPolicyAlways,
					TerminationGracePeriodSeconds: ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds),
					DNSPolicy:                     corev1.DNSClusterFirst,
					SecurityContext:               &corev1.PodSecurityContext{},
					SchedulerName:                 corev1.DefaultSchedulerName,
				},
			},
			Strategy:                RollingUpdate("25%", "25%"),
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
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

// Generation sets metadata.generation.
func (b *DeploymentBuilder) Generation(g int64) *DeploymentBuilder {
	b.d.Generation = g
	return b
}

// Created sets metadata.creationTimestamp to Time(i).
func (b *DeploymentBuilder) Created(i int) *DeploymentBuilder {
	b.d.CreationTimestamp = Time(i)
	return b
}

// Deleting sets metadata.deletionTimestamp to Time(i).
func (b *DeploymentBuilder) Deleting(i int) *DeploymentBuilder {
	t := Time(i)
	b.d.DeletionTimestamp = &t
	return b
}

// Label sets a label on the Deployment, its selector and its pod template at once, as
// `kubectl create deployment` keeps them in step. Use ObjectLabel or TemplateLabel for one.
func (b *DeploymentBuilder) Label(k, v string) *DeploymentBuilder {
	b.ObjectLabel(k, v).TemplateLabel(k, v)
	b.d.Spec.Selector.MatchLabels[k] = v
	return b
}

// ObjectLabel sets a label in the Deployment's metadata only.
func (b *DeploymentBuilder) ObjectLabel(k, v string) *DeploymentBuilder {
	b.d.Labels = setKey(b.d.Labels, k, v)
	return b
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
	return b.Annotation(RevisionAnnotation, strconv.FormatInt(r, 10))
}

// Replicas sets spec.replicas.
func (b *DeploymentBuilder) Replicas(n int32) *DeploymentBuilder {
	b.d.Spec.Replicas = ptr.To(n)
	return b
}

// NilReplicas clears spec.replicas (as in a manifest that omits it).
func (b *DeploymentBuilder) NilReplicas() *DeploymentBuilder {
	b.d.Spec.Replicas = nil
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

// Template replaces the pod template (copied).
func (b *DeploymentBuilder) Template(t corev1.PodTemplateSpec) *DeploymentBuilder {
	b.d.Spec.Template = *t.DeepCopy()
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
// history limit, progress deadline, pod template defaults, container defaults), as in a
// manifest a user writes.
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

// ReplicaSetBuilder builds an apps/v1 ReplicaSet. Start one with ReplicaSetFor or ReplicaSet.
type ReplicaSetBuilder struct {
	rs *appsv1.ReplicaSet
	// fromDeployment: Build derives the hash label, name and selector from the template.
	fromDeployment bool
	deployName     string
	collisionCount *int32
	selector       *metav1.LabelSelector
	nameSet        bool
	statusSet      bool
}

// ReplicaSetFor starts the ReplicaSet the Deployment controller creates for d's current pod
// template: name <d>-<hash>, template and labels with pod-template-hash added, selector with
// the hash, controller ownerRef to d, annotations revision (from d's revision annotation, else
// 1), desired-replicas = d's replicas and max-replicas = replicas + maxSurge (rounded up),
// spec.replicas = d's replicas, created at Time(0). Status follows spec (every pod ready and
// available) unless Status or Available is called. Image, Template and CollisionCount change
// the template or hash before Build computes the name.
func ReplicaSetFor(d *appsv1.Deployment) *ReplicaSetBuilder {
	replicas := ptr.Deref(d.Spec.Replicas, 1)
	rev := "1"
	if v, ok := d.Annotations[RevisionAnnotation]; ok {
		rev = v
	}
	rs := &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         d.Namespace,
			CreationTimestamp: Time(0),
			Generation:        1,
			ResourceVersion:   "1",
			OwnerReferences:   []metav1.OwnerReference{ControllerRef(d)},
			Annotations: map[string]string{
				RevisionAnnotation:        rev,
				DesiredReplicasAnnotation: strconv.Itoa(int(replicas)),
				MaxReplicasAnnotation:     strconv.Itoa(int(replicas + maxSurge(d))),
			},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        ptr.To(replicas),
			MinReadySeconds: d.Spec.MinReadySeconds,
			Template:        *d.Spec.Template.DeepCopy(),
		},
	}
	return &ReplicaSetBuilder{
		rs:             rs,
		fromDeployment: true,
		deployName:     d.Name,
		collisionCount: d.Status.CollisionCount,
		selector:       d.Spec.Selector.DeepCopy(),
	}
}

// ReplicaSet starts a bare ReplicaSet named name in DefaultNamespace with label and selector
// app=<app>, one container <app> running nginx:1.18, 1 replica, no owner and no annotations:
// for orphans and ReplicaSets of other controllers.
func ReplicaSet(name, app string) *ReplicaSetBuilder {
	labels := map[string]string{"app": app}
	d := Deployment(app).Build()
	rs := &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         DefaultNamespace,
			UID:               UIDFor("ReplicaSet", name),
			Labels:            copyMap(labels),
			CreationTimestamp: Time(0),
			Generation:        1,
			ResourceVersion:   "1",
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: copyMap(labels)},
			Template: d.Spec.Template,
		},
	}
	return &ReplicaSetBuilder{rs: rs, nameSet: true}
}

// ControllerRef returns the controller ownerReference the Deployment controller sets on its
// ReplicaSets (metav1.NewControllerRef with kind apps/v1 Deployment).
func ControllerRef(d *appsv1.Deployment) metav1.OwnerReference {
	return *metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))
}

// Name overrides the generated name (and the UID derived from it).
func (b *ReplicaSetBuilder) Name(name string) *ReplicaSetBuilder {
	b.rs.Name = name
	b.nameSet = true
	return b
}

// Namespace sets metadata.namespace.
func (b *ReplicaSetBuilder) Namespace(ns string) *ReplicaSetBuilder {
	b.rs.Namespace = ns
	return b
}

// UID sets metadata.uid (otherwise UIDFor("ReplicaSet", name)).
func (b *ReplicaSetBuilder) UID(uid types.UID) *ReplicaSetBuilder {
	b.rs.UID = uid
	return b
}

// Created sets metadata.creationTimestamp to Time(i).
func (b *ReplicaSetBuilder) Created(i int) *ReplicaSetBuilder {
	b.rs.CreationTimestamp = Time(i)
	return b
}

// CreatedAt sets metadata.creationTimestamp.
func (b *ReplicaSetBuilder) CreatedAt(t metav1.Time) *ReplicaSetBuilder {
	b.rs.CreationTimestamp = t
	return b
}

// Deleting sets metadata.deletionTimestamp to Time(i).
func (b *ReplicaSetBuilder) Deleting(i int) *ReplicaSetBuilder {
	t := Time(i)
	b.rs.DeletionTimestamp = &t
	return b
}

// Replicas sets spec.replicas.
func (b *ReplicaSetBuilder) Replicas(n int32) *ReplicaSetBuilder {
	b.rs.Spec.Replicas = ptr.To(n)
	return b
}

// Status sets status.replicas, readyReplicas and availableReplicas (fullyLabeledReplicas
// follows replicas; observedGeneration follows metadata.generation).
func (b *ReplicaSetBuilder) Status(replicas, ready, available int32) *ReplicaSetBuilder {
	b.statusSet = true
	s := &b.rs.Status
	s.Replicas, s.FullyLabeledReplicas, s.ReadyReplicas, s.AvailableReplicas = replicas, replicas, ready, available
	s.ObservedGeneration = b.rs.Generation
	return b
}

// Available sets status as spec.replicas pods of which n are ready and available.
func (b *ReplicaSetBuilder) Available(n int32) *ReplicaSetBuilder {
	r := ptr.Deref(b.rs.Spec.Replicas, 0)
	return b.Status(r, n, n)
}

// Revision sets the deployment.kubernetes.io/revision annotation.
func (b *ReplicaSetBuilder) Revision(r int64) *ReplicaSetBuilder {
	return b.Annotation(RevisionAnnotation, strconv.FormatInt(r, 10))
}

// RevisionHistory sets the deployment.kubernetes.io/revision-history annotation, for
// example "1,3".
func (b *ReplicaSetBuilder) RevisionHistory(h string) *ReplicaSetBuilder {
	return b.Annotation(RevisionHistoryAnnotation, h)
}

// DesiredReplicas sets the deployment.kubernetes.io/desired-replicas annotation.
func (b *ReplicaSetBuilder) DesiredReplicas(n int32) *ReplicaSetBuilder {
	return b.Annotation(DesiredReplicasAnnotation, strconv.Itoa(int(n)))
}

// MaxReplicas sets the deployment.kubernetes.io/max-replicas annotation.
func (b *ReplicaSetBuilder) MaxReplicas(n int32) *ReplicaSetBuilder {
	return b.Annotation(MaxReplicasAnnotation, strconv.Itoa(int(n)))
}

// Annotation sets an annotation; an empty value removes it.
func (b *ReplicaSetBuilder) Annotation(k, v string) *ReplicaSetBuilder {
	if v == "" {
		delete(b.rs.Annotations, k)
		return b
	}
	b.rs.Annotations = setKey(b.rs.Annotations, k, v)
	return b
}

// NoReplicaAnnotations removes desired-replicas and max-replicas (as on a ReplicaSet a
// client created).
func (b *ReplicaSetBuilder) NoReplicaAnnotations() *ReplicaSetBuilder {
	delete(b.rs.Annotations, DesiredReplicasAnnotation)
	delete(b.rs.Annotations, MaxReplicasAnnotation)
	return b
}

// Label sets a label on the ReplicaSet's metadata only (the controller claims by metadata
// labels); for ReplicaSetFor it overrides the label Build copies from the template.
func (b *ReplicaSetBuilder) Label(k, v string) *ReplicaSetBuilder {
	b.rs.Labels = setKey(b.rs.Labels, k, v)
	return b
}

// Image sets the image of the template's first container (before the hash is computed).
func (b *ReplicaSetBuilder) Image(image string) *ReplicaSetBuilder {
	setImage(&b.rs.Spec.Template.Spec, image)
	return b
}

// TemplateAnnotation sets a pod template annotation (before the hash is computed).
func (b *ReplicaSetBuilder) TemplateAnnotation(k, v string) *ReplicaSetBuilder {
	b.rs.Spec.Template.Annotations = setKey(b.rs.Spec.Template.Annotations, k, v)
	return b
}

// Template replaces the pod template (copied; for ReplicaSetFor, without the hash label:
// Build adds it).
func (b *ReplicaSetBuilder) Template(t corev1.PodTemplateSpec) *ReplicaSetBuilder {
	b.rs.Spec.Template = *t.DeepCopy()
	return b
}

// CollisionCount sets the collision count the hash is computed with (ReplicaSetFor only).
func (b *ReplicaSetBuilder) CollisionCount(n int32) *ReplicaSetBuilder {
	b.collisionCount = ptr.To(n)
	return b
}

// Hash sets the pod-template-hash label, name suffix and selector value instead of the
// computed hash (ReplicaSetFor only), for ReplicaSets made by another controller version.
func (b *ReplicaSetBuilder) Hash(h string) *ReplicaSetBuilder {
	b.rs.Spec.Template.Labels = setKey(b.rs.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey, h)
	return b
}

// OwnedBy replaces the ownerReferences with a controller reference to d.
func (b *ReplicaSetBuilder) OwnedBy(d *appsv1.Deployment) *ReplicaSetBuilder {
	b.rs.OwnerReferences = []metav1.OwnerReference{ControllerRef(d)}
	return b
}

// ControlledBy replaces the ownerReferences with a controller reference to another object.
func (b *ReplicaSetBuilder) ControlledBy(apiVersion, kind, name string, uid types.UID) *ReplicaSetBuilder {
	b.rs.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: apiVersion, Kind: kind, Name: name, UID: uid,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}}
	return b
}

// Orphan removes every ownerReference.
func (b *ReplicaSetBuilder) Orphan() *ReplicaSetBuilder {
	b.rs.OwnerReferences = nil
	return b
}

// Build returns the ReplicaSet. For ReplicaSetFor it computes the pod-template-hash of the
// template (unless Hash was called), and sets the hash label on the template and metadata
// labels, the selector, and the name <deployment>-<hash> (unless Name was called).
func (b *ReplicaSetBuilder) Build() *appsv1.ReplicaSet {
	rs := b.rs.DeepCopy()
	if b.fromDeployment {
		hash, ok := rs.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
		if !ok {
			hash = ComputeHash(&rs.Spec.Template, b.collisionCount)
		}
		rs.Spec.Template.Labels = setKey(copyMap(rs.Spec.Template.Labels), appsv1.DefaultDeploymentUniqueLabelKey, hash)
		for k, v := range rs.Spec.Template.Labels {
			if _, set := rs.Labels[k]; !set { // Label wins over the template's
				rs.Labels = setKey(rs.Labels, k, v)
			}
		}
		sel := b.selector.DeepCopy()
		if sel == nil {
			sel = &metav1.LabelSelector{}
		}
		sel.MatchLabels = setKey(sel.MatchLabels, appsv1.DefaultDeploymentUniqueLabelKey, hash)
		rs.Spec.Selector = sel
		if !b.nameSet {
			rs.Name = replicaSetName(b.deployName, hash)
		}
	}
	if rs.UID == "" {
		rs.UID = UIDFor("ReplicaSet", rs.Name)
	}
	if !b.statusSet {
		r := ptr.Deref(rs.Spec.Replicas, 0)
		rs.Status = appsv1.ReplicaSetStatus{
			Replicas: r, FullyLabeledReplicas: r, ReadyReplicas: r, AvailableReplicas: r,
			ObservedGeneration: rs.Generation,
		}
	}
	return rs
}

// replicaSetName mirrors generateReplicaSetName (pkg/controller/deployment/sync.go, v1.36.3):
// the Deployment name is truncated so the result fits 253 characters.
func replicaSetName(deployment, hash string) string {
	if limit := 253 - 1 - len(hash); len(deployment) > limit && limit > 0 {
		deployment = deployment[:limit]
	}
	return deployment + "-" + hash
}

// maxSurge resolves d's maxSurge to pods, rounding up, as deploymentutil.MaxSurge does
// (0 for Recreate).
func maxSurge(d *appsv1.Deployment) int32 {
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil {
		return 0
	}
	replicas := int(ptr.Deref(d.Spec.Replicas, 1))
	surge, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxSurge, intstr.FromInt32(0)), replicas, true)
	if err != nil {
		return 0
	}
	return int32(surge)
}

func setImage(spec *corev1.PodSpec, image string) {
	if len(spec.Containers) == 0 {
		spec.Containers = []corev1.Container{DefaultedContainer("app", image)}
		return
	}
	spec.Containers[0].Image = image
	spec.Containers[0].ImagePullPolicy = pullPolicy(image)
}

func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

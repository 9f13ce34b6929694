package testutil

import (
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

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
// template: name <d>-<hash> (planner.ReplicaSetName), template and labels with
// pod-template-hash added (planner.ComputeHash with d's status.collisionCount), selector with
// the hash, controller ownerRef to d, annotations revision (from d's revision annotation,
// else 1), desired-replicas = d's replicas and max-replicas = replicas + maxSurge (rounded
// up; 0 for Recreate), spec.replicas = d's replicas, created at Time(0). Status follows spec
// (every pod ready and available) unless Status or Available is called. Image changes the
// template before Build computes the hash and the name.
func ReplicaSetFor(d *appsv1.Deployment) *ReplicaSetBuilder {
	replicas := ptr.Deref(d.Spec.Replicas, 1)
	rev := "1"
	if v, ok := d.Annotations[deployutil.RevisionAnnotation]; ok {
		rev = v
	}
	rs := &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         d.Namespace,
			CreationTimestamp: Time(0),
			Generation:        1,
			ResourceVersion:   "1",
			OwnerReferences:   []metav1.OwnerReference{controllerRef(d)},
			Annotations: map[string]string{
				deployutil.RevisionAnnotation:        rev,
				deployutil.DesiredReplicasAnnotation: strconv.Itoa(int(replicas)),
				deployutil.MaxReplicasAnnotation:     strconv.Itoa(int(replicas + maxSurge(d))),
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

// maxSurge is d's maxSurge in pods, as deploymentutil.MaxSurge (v1.36.3) resolves it with
// planner.ResolveFenceposts: 0 for Recreate and for a value that does not resolve.
func maxSurge(d *appsv1.Deployment) int32 {
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil {
		return 0
	}
	surge, _, _ := planner.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, ptr.Deref(d.Spec.Replicas, 1))
	return surge
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
			Labels:            maps.Clone(labels),
			CreationTimestamp: Time(0),
			Generation:        1,
			ResourceVersion:   "1",
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			Template: d.Spec.Template,
		},
	}
	return &ReplicaSetBuilder{rs: rs, nameSet: true}
}

// controllerRef returns the controller ownerReference the Deployment controller sets on its
// ReplicaSets (metav1.NewControllerRef with kind apps/v1 Deployment).
func controllerRef(d *appsv1.Deployment) metav1.OwnerReference {
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

// Created sets metadata.creationTimestamp to Time(i).
func (b *ReplicaSetBuilder) Created(i int) *ReplicaSetBuilder {
	b.rs.CreationTimestamp = Time(i)
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
	return b.Annotation(deployutil.RevisionAnnotation, strconv.FormatInt(r, 10))
}

// RevisionHistory sets the deployment.kubernetes.io/revision-history annotation, for
// example "1,3".
func (b *ReplicaSetBuilder) RevisionHistory(h string) *ReplicaSetBuilder {
	return b.Annotation(deployutil.RevisionHistoryAnnotation, h)
}

// DesiredReplicas sets the deployment.kubernetes.io/desired-replicas annotation.
func (b *ReplicaSetBuilder) DesiredReplicas(n int32) *ReplicaSetBuilder {
	return b.Annotation(deployutil.DesiredReplicasAnnotation, strconv.Itoa(int(n)))
}

// MaxReplicas sets the deployment.kubernetes.io/max-replicas annotation.
func (b *ReplicaSetBuilder) MaxReplicas(n int32) *ReplicaSetBuilder {
	return b.Annotation(deployutil.MaxReplicasAnnotation, strconv.Itoa(int(n)))
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
	delete(b.rs.Annotations, deployutil.DesiredReplicasAnnotation)
	delete(b.rs.Annotations, deployutil.MaxReplicasAnnotation)
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

// OwnedBy replaces the ownerReferences with a controller reference to d.
func (b *ReplicaSetBuilder) OwnedBy(d *appsv1.Deployment) *ReplicaSetBuilder {
	b.rs.OwnerReferences = []metav1.OwnerReference{controllerRef(d)}
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
// template (planner.ComputeHash) unless the template carries one already, and sets the hash
// label on the template and metadata labels, the selector, and the name <deployment>-<hash>
// (planner.ReplicaSetName; unless Name was called). The UID is UIDFor("ReplicaSet", name).
func (b *ReplicaSetBuilder) Build() *appsv1.ReplicaSet {
	rs := b.rs.DeepCopy()
	if b.fromDeployment {
		hash, ok := rs.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
		if !ok {
			hash = planner.ComputeHash(&rs.Spec.Template, b.collisionCount)
		}
		rs.Spec.Template.Labels = setKey(maps.Clone(rs.Spec.Template.Labels), appsv1.DefaultDeploymentUniqueLabelKey, hash)
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
			rs.Name = planner.ReplicaSetName(b.deployName, hash)
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

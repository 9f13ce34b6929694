package conformance

import (
	"fmt"
	"maps"
	"strconv"
	"time"

	apps "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsdefaults "k8s.io/kubernetes/pkg/apis/apps/v1"
	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/test/conformance/upstream/deployment"
)

const testNamespace = "default"

// epoch is the creation time of the oldest ReplicaSet of every fixture; fixtures give
// creation times as seconds after it.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// fixture builds a Deployment and the ReplicaSets it owns, as the API server would return
// them: defaulted, owned through a controller ownerReference, labelled with the
// pod-template-hash, with statuses that follow the ReplicaSet controller.
type fixture struct {
	d   *apps.Deployment
	rss []*apps.ReplicaSet
}

// newFixture starts a fixture with a server-defaulted Deployment named name with replicas
// pods of image; generation 2 (its last spec change not yet observed, see finish).
func newFixture(name string, replicas int32, image string) *fixture {
	labels := map[string]string{"app": "web"}
	d := &apps.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         testNamespace,
			UID:               types.UID("uid-deployment-" + name),
			Generation:        2,
			CreationTimestamp: metav1.NewTime(epoch.Add(-time.Hour)),
			Labels:            maps.Clone(labels),
		},
		Spec: apps.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name:  "app",
					Image: image,
					Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
				}}},
			},
		},
	}
	appsdefaults.SetObjectDefaults_Deployment(d)
	return &fixture{d: d}
}

// rollingUpdate sets the RollingUpdate strategy with the given fenceposts ("25%", "1").
func (f *fixture) rollingUpdate(maxSurge, maxUnavailable string) *fixture {
	f.d.Spec.Strategy = apps.DeploymentStrategy{
		Type: apps.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &apps.RollingUpdateDeployment{
			MaxSurge:       ptr.To(intstr.Parse(maxSurge)),
			MaxUnavailable: ptr.To(intstr.Parse(maxUnavailable)),
		},
	}
	return f
}

// recreate sets the Recreate strategy.
func (f *fixture) recreate() *fixture {
	f.d.Spec.Strategy = apps.DeploymentStrategy{Type: apps.RecreateDeploymentStrategyType}
	return f
}

// rsOpts describes one ReplicaSet of a fixture.
type rsOpts struct {
	// image distinguishes the ReplicaSet's template from the Deployment's; the same image as
	// the Deployment's gives the Deployment's own (new) ReplicaSet.
	image               string
	replicas, available int32
	// revision is the deployment.kubernetes.io/revision annotation; 0 leaves it out.
	revision int64
	// revisionHistory is the deployment.kubernetes.io/revision-history annotation, if any.
	revisionHistory string
	// created is the creation time in seconds after epoch.
	created int64
	// desired and max are the desired-replicas and max-replicas annotations; nil leaves
	// them out.
	desired, max *int32
	// minReadySeconds of the ReplicaSet (the Deployment's at the time it was last synced).
	minReadySeconds int32
	// annotations are extra annotations (for example copied from the Deployment).
	annotations map[string]string
	// badRevision writes an unparsable revision annotation instead of revision.
	badRevision bool
	// statusReplicas, when set, is a status.replicas the ReplicaSet controller has not
	// brought to spec.replicas yet (pods still starting or terminating).
	statusReplicas *int32
	// staleGeneration leaves status.observedGeneration one behind metadata.generation.
	staleGeneration bool
	// deleting sets metadata.deletionTimestamp (the ReplicaSet is being deleted, for example
	// by a foreground cascading delete that waits for its pods).
	deleting bool
	// orphan leaves out the ownerReference: an orphan whose labels match the selector, which
	// the controller adopts.
	orphan bool
	// hashCollisionCount, when set, replaces the Deployment's collisionCount in the
	// pod-template-hash (and so the name): a second ReplicaSet of the same template.
	hashCollisionCount *int32
}

// scaledAt returns the desired-replicas and max-replicas annotation values the controller
// writes for the Deployment with spec.replicas = replicas (and its current strategy).
func (f *fixture) scaledAt(replicas int32) (desired, max *int32) {
	d := f.d.DeepCopy()
	d.Spec.Replicas = ptr.To(replicas)
	return ptr.To(replicas), ptr.To(replicas + deploymentutil.MaxSurge(*d))
}

// addRS adds a ReplicaSet owned by the Deployment whose template is the Deployment's with
// o.image, named as the controller names it.
func (f *fixture) addRS(o rsOpts) *apps.ReplicaSet {
	tmpl := f.d.Spec.Template.DeepCopy()
	tmpl.Spec.Containers[0].Image = o.image
	cc := f.d.Status.CollisionCount
	if o.hashCollisionCount != nil {
		cc = o.hashCollisionCount
	}
	hash := controller.ComputeHash(tmpl, cc)
	tmpl.Labels = maps.Clone(tmpl.Labels)
	tmpl.Labels[apps.DefaultDeploymentUniqueLabelKey] = hash
	selector := f.d.Spec.Selector.DeepCopy()
	selector.MatchLabels[apps.DefaultDeploymentUniqueLabelKey] = hash
	name := deployment.ReplicaSetName(f.d.Name, hash)
	annotations := maps.Clone(o.annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	if o.revision != 0 {
		annotations[deploymentutil.RevisionAnnotation] = strconv.FormatInt(o.revision, 10)
	}
	if o.badRevision {
		annotations[deploymentutil.RevisionAnnotation] = "r" + strconv.FormatInt(o.revision, 10)
	}
	if o.revisionHistory != "" {
		annotations[deploymentutil.RevisionHistoryAnnotation] = o.revisionHistory
	}
	if o.desired != nil {
		annotations[deploymentutil.DesiredReplicasAnnotation] = fmt.Sprint(*o.desired)
	}
	if o.max != nil {
		annotations[deploymentutil.MaxReplicasAnnotation] = fmt.Sprint(*o.max)
	}
	generation := int64(1 + len(f.rss)%3)
	rs := &apps.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         testNamespace,
			UID:               types.UID("uid-" + name),
			Generation:        generation,
			CreationTimestamp: metav1.NewTime(epoch.Add(time.Duration(o.created) * time.Second)),
			Labels:            maps.Clone(tmpl.Labels),
			Annotations:       annotations,
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(f.d, apps.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: apps.ReplicaSetSpec{
			Replicas:        ptr.To(o.replicas),
			MinReadySeconds: o.minReadySeconds,
			Selector:        selector,
			Template:        *tmpl,
		},
		Status: apps.ReplicaSetStatus{
			Replicas:             o.replicas,
			FullyLabeledReplicas: o.replicas,
			ReadyReplicas:        o.available,
			AvailableReplicas:    o.available,
			ObservedGeneration:   generation,
		},
	}
	if o.orphan {
		rs.OwnerReferences = nil
	}
	if o.deleting {
		rs.DeletionTimestamp = ptr.To(metav1.NewTime(epoch.Add(time.Hour)))
		rs.Finalizers = []string{metav1.FinalizerDeleteDependents}
	}
	if o.statusReplicas != nil {
		rs.Status.Replicas, rs.Status.FullyLabeledReplicas = *o.statusReplicas, *o.statusReplicas
	}
	if o.staleGeneration {
		rs.Status.ObservedGeneration--
	}
	f.rss = append(f.rss, rs)
	return rs
}

// finish gives the Deployment the status the controller last wrote: counts summed from the
// ReplicaSets, the revision annotation of the newest revision, and observedGeneration one
// behind when the spec changed since (changed).
func (f *fixture) finish(changed bool) *fixture {
	st := &f.d.Status
	st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas = 0, 0, 0, 0
	var total int32
	maxRevision := int64(0)
	for _, rs := range f.rss {
		st.Replicas += rs.Status.Replicas
		st.ReadyReplicas += rs.Status.ReadyReplicas
		st.AvailableReplicas += rs.Status.AvailableReplicas
		total += *rs.Spec.Replicas
		if deploymentutil.EqualIgnoreHash(&rs.Spec.Template, &f.d.Spec.Template) {
			st.UpdatedReplicas = rs.Status.Replicas
		}
		if v, err := deploymentutil.Revision(rs); err == nil && v > maxRevision {
			maxRevision = v
		}
	}
	st.UnavailableReplicas = max(0, total-st.AvailableReplicas)
	st.ObservedGeneration = f.d.Generation
	if changed {
		st.ObservedGeneration = f.d.Generation - 1
	}
	if maxRevision > 0 {
		if f.d.Annotations == nil {
			f.d.Annotations = map[string]string{}
		}
		f.d.Annotations[deploymentutil.RevisionAnnotation] = strconv.FormatInt(maxRevision, 10)
	}
	return f
}

// takeNewName renames rs (another template) to the name the Deployment's new ReplicaSet would
// get: a hash collision, which the controller resolves by bumping status.collisionCount.
func (f *fixture) takeNewName(rs *apps.ReplicaSet) {
	name := deployment.ReplicaSetName(f.d.Name, controller.ComputeHash(&f.d.Spec.Template, f.d.Status.CollisionCount))
	rs.Name, rs.UID = name, types.UID("uid-"+name)
}

// scenario returns the fixture as a harness scenario under readiness.
func (f *fixture) scenario(readiness string) deployment.Scenario {
	return deployment.Scenario{Deployment: f.d, ReplicaSets: f.rss, Readiness: readiness}
}

package drive

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

var (
	deploymentsGVR = appsv1.SchemeGroupVersion.WithResource("deployments")
	replicaSetsGVR = appsv1.SchemeGroupVersion.WithResource("replicasets")
)

// fakeCluster is a fake clientset with what drive needs of an API server and of the
// Deployment and ReplicaSet controllers, serialized by one mutex:
//   - metadata.uid on create;
//   - metadata.generation: 1 on create, bumped by a write that changes the spec (and, for a
//     Deployment, the annotations), as the apps registry strategies do;
//   - a JSON patch whose test operation fails answers 422 Invalid without causes;
//   - a controller loop makes every ReplicaSet's pods available at once (status.replicas,
//     readyReplicas, availableReplicas, observedGeneration) and reports the Deployment's
//     status; once the Deployment is not held it sets its revision annotation to the
//     revision of the ReplicaSet matching its template, as the controller's sync does.
//
// Every successful write through the client is recorded in order (writes) with the drive
// state the Deployment holds after it (states).
type fakeCluster struct {
	t  *testing.T
	cs *fake.Clientset

	mu      sync.Mutex
	writes  []string // "verb resource/name"
	states  []*State // the drive state after each Deployment write (nil: not held)
	afterDo func(fc *fakeCluster, s *State)
	// unready names ReplicaSets whose pods never become ready (held at 0 available).
	unready map[string]bool
	// answerDelay delays the answer of every Deployment write after it is stored, as a
	// real API server's answer can come after its watch event.
	answerDelay time.Duration
}

func newFakeCluster(t *testing.T, objs ...runtime.Object) *fakeCluster {
	fc := &fakeCluster{t: t, cs: fake.NewClientset(objs...)}
	for _, verb := range []string{"create", "update", "patch"} {
		for _, res := range []string{"deployments", "replicasets"} {
			fc.cs.PrependReactor(verb, res, fc.react)
		}
	}
	return fc
}

// react applies a write with the tracker's reaction, then fixes metadata.generation.
func (fc *fakeCluster) react(a k8stesting.Action) (bool, runtime.Object, error) {
	handled, obj, err := fc.apply(a)
	fc.mu.Lock()
	delay := fc.answerDelay
	fc.mu.Unlock()
	if _, ok := obj.(*appsv1.Deployment); ok && delay > 0 {
		time.Sleep(delay)
	}
	return handled, obj, err
}

func (fc *fakeCluster) apply(a k8stesting.Action) (bool, runtime.Object, error) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	gvr, ns := a.GetResource(), a.GetNamespace()
	name := actionName(a)
	if c, ok := a.(k8stesting.CreateAction); ok {
		// The API server gives every new object a UID (drive's scale guards test it).
		if m := c.GetObject().(metav1.Object); m.GetUID() == "" {
			m.SetUID(types.UID("uid-" + gvr.Resource + "-" + name))
		}
	}
	old, _ := fc.cs.Tracker().Get(gvr, ns, name)
	_, obj, err := k8stesting.ObjectReaction(fc.cs.Tracker())(a)
	if err != nil {
		if _, ok := err.(apierrors.APIStatus); !ok {
			// jsonpatch's failed test: the API server answers 422 without causes.
			return true, nil, apierrors.NewInvalid(schema.GroupKind{Group: gvr.Group, Kind: gvr.Resource}, name, field.ErrorList{})
		}
		return true, nil, err
	}
	if a.GetSubresource() == "" {
		obj = fc.bumpGeneration(gvr, ns, old, obj)
	}
	fc.writes = append(fc.writes, a.GetVerb()+" "+gvr.Resource+"/"+name)
	if d, ok := obj.(*appsv1.Deployment); ok {
		s, _ := ReadState(d)
		fc.states = append(fc.states, s)
		if fc.afterDo != nil {
			fc.afterDo(fc, s)
		}
	}
	return true, obj, nil
}

func actionName(a k8stesting.Action) string {
	switch x := a.(type) {
	case k8stesting.PatchAction:
		return x.GetName()
	case k8stesting.CreateAction:
		return x.GetObject().(metav1.Object).GetName()
	case k8stesting.UpdateAction:
		return x.GetObject().(metav1.Object).GetName()
	}
	return ""
}

// bumpGeneration stores obj with the generation the API server would give it.
func (fc *fakeCluster) bumpGeneration(gvr schema.GroupVersionResource, ns string, old, obj runtime.Object) runtime.Object {
	var gen int64 = 1
	switch o := obj.(type) {
	case *appsv1.Deployment:
		if prev, ok := old.(*appsv1.Deployment); ok {
			gen = prev.Generation
			if !apiequality.Semantic.DeepEqual(prev.Spec, o.Spec) || !apiequality.Semantic.DeepEqual(prev.Annotations, o.Annotations) {
				gen++
			}
		}
		o = o.DeepCopy()
		o.Generation = gen
		obj = o
	case *appsv1.ReplicaSet:
		if prev, ok := old.(*appsv1.ReplicaSet); ok {
			gen = prev.Generation
			if !apiequality.Semantic.DeepEqual(prev.Spec, o.Spec) {
				gen++
			}
		}
		o = o.DeepCopy()
		o.Generation = gen
		obj = o
	}
	if err := fc.cs.Tracker().Update(gvr, obj, ns); err != nil {
		fc.t.Errorf("fake cluster: store generation: %v", err)
	}
	return obj
}

// intrude rewrites the drive annotation of Deployment ns/name as another driver would
// (straight into the tracker: not recorded as a write through the client). Call it with
// fc.mu held (from afterDo).
func (fc *fakeCluster) intrude(ns, name string, mutate func(*State)) {
	obj, err := fc.cs.Tracker().Get(deploymentsGVR, ns, name)
	if err != nil {
		fc.t.Errorf("intrude: %v", err)
		return
	}
	d := obj.(*appsv1.Deployment).DeepCopy()
	s, err := ReadState(d)
	if err != nil || s == nil {
		fc.t.Errorf("intrude: not held (%v)", err)
		return
	}
	mutate(s)
	val, err := s.Encode()
	if err != nil {
		fc.t.Errorf("intrude: %v", err)
		return
	}
	d.Annotations[Annotation] = val
	d.Generation++
	if err := fc.cs.Tracker().Update(deploymentsGVR, d, ns); err != nil {
		fc.t.Errorf("intrude: %v", err)
	}
}

// runControllers runs the fake controllers every tick until ctx ends.
func (fc *fakeCluster) runControllers(ctx context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fc.mu.Lock()
		fc.syncReplicaSets()
		fc.syncDeployments()
		fc.mu.Unlock()
	}
}

func (fc *fakeCluster) replicaSets() []*appsv1.ReplicaSet {
	obj, err := fc.cs.Tracker().List(replicaSetsGVR, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), "")
	if err != nil {
		fc.t.Errorf("fake controller: %v", err)
		return nil
	}
	var out []*appsv1.ReplicaSet
	for i := range obj.(*appsv1.ReplicaSetList).Items {
		out = append(out, &obj.(*appsv1.ReplicaSetList).Items[i])
	}
	return out
}

// syncReplicaSets makes every ReplicaSet's pods exist and be available (but those of
// unready, never ready).
func (fc *fakeCluster) syncReplicaSets() {
	for _, rs := range fc.replicaSets() {
		n := replicas(rs)
		want := appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: rs.Generation}
		if fc.unready[rs.Name] {
			want.ReadyReplicas, want.AvailableReplicas = 0, 0
		}
		if apiequality.Semantic.DeepEqual(rs.Status, want) {
			continue
		}
		rs = rs.DeepCopy()
		rs.Status = want
		if err := fc.cs.Tracker().Update(replicaSetsGVR, rs, rs.Namespace); err != nil {
			fc.t.Errorf("fake controller: %v", err)
		}
	}
}

// syncDeployments reports each Deployment's status from its ReplicaSets.
func (fc *fakeCluster) syncDeployments() {
	obj, err := fc.cs.Tracker().List(deploymentsGVR, appsv1.SchemeGroupVersion.WithKind("Deployment"), "")
	if err != nil {
		fc.t.Errorf("fake controller: %v", err)
		return
	}
	rss := fc.replicaSets()
	for i := range obj.(*appsv1.DeploymentList).Items {
		d := obj.(*appsv1.DeploymentList).Items[i].DeepCopy()
		orig := d.DeepCopy()
		newName := planner.ReplicaSetName(d.Name, planner.ComputeHash(&d.Spec.Template, d.Status.CollisionCount))
		st := appsv1.DeploymentStatus{CollisionCount: d.Status.CollisionCount}
		for _, rs := range rss {
			if c := metav1.GetControllerOfNoCopy(rs); c == nil || c.UID != d.UID {
				continue
			}
			st.Replicas += rs.Status.Replicas
			st.ReadyReplicas += rs.Status.ReadyReplicas
			st.AvailableReplicas += rs.Status.AvailableReplicas
			if rs.Name == newName {
				st.UpdatedReplicas = rs.Status.Replicas
				if rev := rs.Annotations[deployutil.RevisionAnnotation]; !IsHeld(d) && rev != "" && d.Annotations[deployutil.RevisionAnnotation] != rev {
					d.Annotations = maps.Clone(d.Annotations)
					d.Annotations[deployutil.RevisionAnnotation] = rev
					d.Generation++
				}
			}
		}
		st.UnavailableReplicas = max(0, ptr.Deref(d.Spec.Replicas, 1)-st.AvailableReplicas)
		st.ObservedGeneration = d.Generation
		d.Status = st
		if apiequality.Semantic.DeepEqual(orig, d) {
			continue
		}
		if err := fc.cs.Tracker().Update(deploymentsGVR, d, d.Namespace); err != nil {
			fc.t.Errorf("fake controller: %v", err)
		}
	}
}

// written returns the writes recorded so far.
func (fc *fakeCluster) written() []string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]string(nil), fc.writes...)
}

// recordedStates returns the drive states recorded so far.
func (fc *fakeCluster) recordedStates() []*State {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return append([]*State(nil), fc.states...)
}

func (fc *fakeCluster) replicasOf(t *testing.T, name string) int32 {
	t.Helper()
	rs, err := fc.cs.AppsV1().ReplicaSets("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return replicas(rs)
}

package conformance

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	apps "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // the defaulters kube-controller-manager registers (import_known_versions.go): setMatchesLatestExistingRevision defaults through legacyscheme
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/controller/history"
	"k8s.io/kubernetes/pkg/controller/statefulset"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	sts "github.com/rollplan/kubectl-rollplan/pkg/planner/statefulset"
)

// stsWorld is the harness's fake cluster for the upstream StatefulSet control: the object
// manager of its pods (StatefulPodControlObjectManager), its status updater and its
// ControllerRevision history (history.Interface with the real history's create semantics:
// a taken name with the same data is returned, with other data the collision count rises).
// Every write is recorded. Parallel pod management writes pods from goroutines: a mutex.
type stsWorld struct {
	mu      sync.Mutex
	set     *apps.StatefulSet
	pods    map[string]*corev1.Pod
	revs    map[string]*apps.ControllerRevision
	podOps  []planner.PodOperation
	revOps  []sts.RevisionOperation
	other   []string // writes the planner does not model (pod updates, claims): each a mismatch
	written bool
}

func (w *stsWorld) number(name string) int64 {
	if r, ok := w.revs[name]; ok {
		return r.Revision
	}
	return 0
}

// StatefulPodControlObjectManager.
func (w *stsWorld) CreatePod(_ context.Context, pod *corev1.Pod, _ *apps.StatefulSet) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.pods[pod.Name]; ok {
		return apierrors.NewAlreadyExists(corev1.Resource("pods"), pod.Name)
	}
	rev := pod.Labels[apps.StatefulSetRevisionLabel]
	w.podOps = append(w.podOps, planner.PodOperation{Action: planner.PodCreate, Pod: pod.Name, Revision: rev, RevisionNumber: w.number(rev)})
	c := pod.DeepCopy()
	c.Status.Phase = corev1.PodPending // the API server's PrepareForCreate
	w.pods[c.Name] = c
	return nil
}

func (w *stsWorld) GetPod(namespace, name string) (*corev1.Pod, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p, ok := w.pods[name]; ok {
		return p.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
}

func (w *stsWorld) UpdatePod(pod *corev1.Pod, _ *apps.StatefulSet) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.other = append(w.other, "update pod "+pod.Name)
	return nil
}

func (w *stsWorld) DeletePod(pod *corev1.Pod) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.pods[pod.Name]
	if !ok {
		return apierrors.NewNotFound(corev1.Resource("pods"), pod.Name)
	}
	rev := p.Labels[apps.StatefulSetRevisionLabel]
	w.podOps = append(w.podOps, planner.PodOperation{Action: planner.PodDelete, Pod: pod.Name, Revision: rev, RevisionNumber: w.number(rev)})
	delete(w.pods, pod.Name)
	return nil
}

func (w *stsWorld) CreateClaim(c *corev1.PersistentVolumeClaim, _ *apps.StatefulSet) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.other = append(w.other, "create claim "+c.Name)
	return nil
}

func (w *stsWorld) GetClaim(_, name string) (*corev1.PersistentVolumeClaim, error) {
	return nil, apierrors.NewNotFound(corev1.Resource("persistentvolumeclaims"), name)
}

func (w *stsWorld) UpdateClaim(c *corev1.PersistentVolumeClaim, _ *apps.StatefulSet) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.other = append(w.other, "update claim "+c.Name)
	return nil
}

// StatefulSetStatusUpdaterInterface.
func (w *stsWorld) UpdateStatefulSetStatus(_ context.Context, _ *apps.StatefulSet, status *apps.StatefulSetStatus) error {
	w.set.Status = *status.DeepCopy()
	w.written = true
	return nil
}

// history.Interface.
func (w *stsWorld) ListControllerRevisions(metav1.Object, schema.GroupVersionKind, labels.Selector) ([]*apps.ControllerRevision, error) {
	var out []*apps.ControllerRevision
	for _, r := range w.revs {
		out = append(out, r.DeepCopy())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (w *stsWorld) CreateControllerRevision(parent metav1.Object, revision *apps.ControllerRevision, collisionCount *int32) (*apps.ControllerRevision, error) {
	if collisionCount == nil {
		return nil, fmt.Errorf("collisionCount should not be nil")
	}
	clone := revision.DeepCopy()
	for {
		clone.Name = history.ControllerRevisionName(parent.GetName(), history.HashControllerRevision(revision, collisionCount))
		if exists, ok := w.revs[clone.Name]; ok {
			if bytes.Equal(exists.Data.Raw, clone.Data.Raw) {
				return exists.DeepCopy(), nil
			}
			*collisionCount++
			continue
		}
		w.revs[clone.Name] = clone.DeepCopy()
		w.revOps = append(w.revOps, sts.RevisionOperation{Action: "Create", Name: clone.Name, Revision: clone.Revision})
		return clone, nil
	}
}

func (w *stsWorld) DeleteControllerRevision(revision *apps.ControllerRevision) error {
	if _, ok := w.revs[revision.Name]; !ok {
		return apierrors.NewNotFound(apps.Resource("controllerrevisions"), revision.Name)
	}
	w.revOps = append(w.revOps, sts.RevisionOperation{Action: "Delete", Name: revision.Name, Revision: w.revs[revision.Name].Revision})
	delete(w.revs, revision.Name)
	return nil
}

func (w *stsWorld) UpdateControllerRevision(revision *apps.ControllerRevision, newRevision int64) (*apps.ControllerRevision, error) {
	clone := revision.DeepCopy()
	clone.Revision = newRevision
	w.revs[clone.Name] = clone.DeepCopy()
	w.revOps = append(w.revOps, sts.RevisionOperation{Action: "Update", Name: clone.Name, Revision: newRevision})
	return clone, nil
}

func (w *stsWorld) AdoptControllerRevision(_ metav1.Object, _ schema.GroupVersionKind, r *apps.ControllerRevision) (*apps.ControllerRevision, error) {
	w.other = append(w.other, "adopt revision "+r.Name)
	return r, nil
}

func (w *stsWorld) ReleaseControllerRevision(_ metav1.Object, r *apps.ControllerRevision) (*apps.ControllerRevision, error) {
	w.other = append(w.other, "release revision "+r.Name)
	return r, nil
}

// stsRun is what the upstream control did in one run.
type stsRun struct {
	podOps   []planner.PodOperation
	revOps   []sts.RevisionOperation
	statuses []apps.StatefulSetStatus
	other    []string
	syncs    int
}

// runUpstream plays the upstream defaultStatefulSetControl (UpdateStatefulSet, the whole of
// one sync) on in, with the same world rules between syncs as statefulset.Simulate (its doc):
// deleted pods are gone at once, created ones Pending, terminating ones gone after a sync, the
// readiness model, the clock moving to the next availability when nothing else happens.
func runUpstream(in sts.Input) (stsRun, error) {
	w := &stsWorld{set: in.StatefulSet.DeepCopy(), pods: map[string]*corev1.Pod{}, revs: map[string]*apps.ControllerRevision{}}
	for _, p := range in.Pods {
		w.pods[p.Name] = p.DeepCopy()
	}
	for _, r := range in.Revisions {
		w.revs[r.Name] = r.DeepCopy()
	}
	broken := map[string]bool{}
	for _, b := range in.Broken {
		broken[b] = true
	}
	control := statefulset.NewDefaultStatefulSetControl(statefulset.NewStatefulPodControlFromManager(w, &record.FakeRecorder{}), w, w)
	now := in.Now
	maxSyncs := in.MaxSyncs
	if maxSyncs == 0 {
		maxSyncs = sts.DefaultMaxSyncs
	}
	var run stsRun
	for step := 1; step <= maxSyncs; step++ {
		nPods, nRevs := len(w.podOps), len(w.revOps)
		w.written = false
		var pods []*corev1.Pod
		for _, p := range w.pods {
			pods = append(pods, p.DeepCopy())
		}
		sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
		status, err := control.UpdateStatefulSet(context.Background(), w.set, pods, now)
		if err != nil {
			return run, fmt.Errorf("sync %d: %w", step, err)
		}
		run.syncs = step
		run.statuses = append(run.statuses, *status.DeepCopy())
		ops := w.podOps[nPods:]
		if in.StatefulSet.Spec.PodManagementPolicy == apps.ParallelPodManagement {
			failed := map[string]bool{}
			for _, p := range pods {
				failed[p.Name] = p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
			}
			canonicalParallel(ops, in.StatefulSet, failed)
		}
		for i := range ops {
			ops[i].Step = step
		}
		for i := range w.revOps[nRevs:] {
			w.revOps[nRevs+i].Step = step
		}
		wrote := len(ops) > 0 || len(w.revOps) > nRevs || w.written
		// the world between syncs
		changed := false
		for _, p := range pods {
			if p.DeletionTimestamp != nil {
				if _, ok := w.pods[p.Name]; ok {
					delete(w.pods, p.Name)
					changed = true
				}
			}
		}
		if (in.Readiness == sts.ReadinessInstant && wrote) || (in.Readiness == sts.ReadinessBatched && !wrote && !changed) {
			for _, p := range w.pods {
				if !podReady(p) && !broken[p.Labels[apps.StatefulSetRevisionLabel]] && p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
					p.Status.Phase = corev1.PodRunning
					setReady(p, now)
					changed = true
				}
			}
		}
		if wrote || changed {
			continue
		}
		var next time.Time
		for _, p := range w.pods {
			if !podReady(p) {
				continue
			}
			at := readyTime(p).Add(time.Duration(w.set.Spec.MinReadySeconds) * time.Second)
			if at.After(now) && (next.IsZero() || at.Before(next)) {
				next = at
			}
		}
		if next.IsZero() {
			break
		}
		now = next
	}
	run.podOps, run.revOps, run.other = w.podOps, w.revOps, w.other
	return run, nil
}

// canonicalParallel orders one Parallel sync's pod writes, which upstream makes from
// goroutines (slowStartBatch), as the planner lists them: the replicas' writes (creations,
// deletions of failed pods) by ascending ordinal, then deletions of pods beyond the replicas by
// descending ordinal, then update deletions by descending ordinal.
func canonicalParallel(ops []planner.PodOperation, set *apps.StatefulSet, failed map[string]bool) {
	start := 0
	if set.Spec.Ordinals != nil {
		start = int(set.Spec.Ordinals.Start)
	}
	end := start + int(*set.Spec.Replicas)
	key := func(op planner.PodOperation) (int, int) {
		var o int
		fmt.Sscanf(op.Pod[len(set.Name)+1:], "%d", &o)
		switch {
		case op.Action == planner.PodCreate, o >= start && o < end && failed[op.Pod]:
			return 0, o
		case o < start || o >= end:
			return 1, -o
		}
		return 2, -o
	}
	sort.SliceStable(ops, func(i, j int) bool {
		ci, oi := key(ops[i])
		cj, oj := key(ops[j])
		return ci < cj || (ci == cj && oi < oj)
	})
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func readyTime(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func setReady(p *corev1.Pod, now time.Time) {
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			p.Status.Conditions[i].Status, p.Status.Conditions[i].LastTransitionTime = corev1.ConditionTrue, metav1.NewTime(now)
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now)})
}

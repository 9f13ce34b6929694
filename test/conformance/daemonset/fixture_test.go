package daemonset

import (
	"fmt"
	"maps"
	"math/rand"
	"time"

	apps "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsdefaults "k8s.io/kubernetes/pkg/apis/apps/v1"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/test/conformance/upstream/daemon"
)

const testNamespace = "default"

// epoch is the creation time of the oldest pod; existing pods are created a second apart.
var epoch = time.Date(2025, time.December, 1, 0, 0, 0, 0, time.UTC)

// fixture is a DaemonSet with its revisions, nodes and pods, as the API server returns them.
type fixture struct {
	ds    *apps.DaemonSet
	revs  []*apps.ControllerRevision
	nodes []*corev1.Node
	pods  []*corev1.Pod
}

var dsLabels = map[string]string{"app": "agent"}

// newDaemonSet returns a server-defaulted DaemonSet "agent" running image.
func newDaemonSet(image string) *apps.DaemonSet {
	ds := &apps.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "agent", Namespace: testNamespace, UID: "uid-ds-agent", Generation: 2,
			CreationTimestamp: metav1.NewTime(epoch.Add(-time.Hour)),
		},
		Spec: apps.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(dsLabels)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(dsLabels)},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: image}}},
			},
		},
	}
	appsdefaults.SetObjectDefaults_DaemonSet(ds)
	return ds
}

// withImage returns a copy of ds whose template runs image.
func withImage(ds *apps.DaemonSet, image string) *apps.DaemonSet {
	c := ds.DeepCopy()
	c.Spec.Template.Spec.Containers[0].Image = image
	return c
}

// patchOf is the ControllerRevision data the controller writes for ds (its getPatch).
func patchOf(ds *apps.DaemonSet) []byte {
	b, err := daemon.Patch(ds)
	if err != nil {
		panic(err)
	}
	return b
}

// revisionOf returns the ControllerRevision the controller writes for ds's template (no
// collision) with number n, and its hash.
func revisionOf(ds *apps.DaemonSet, n int64) (*apps.ControllerRevision, string) {
	hash := controller.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	labels := maps.Clone(ds.Spec.Template.Labels)
	labels[apps.DefaultDaemonSetUniqueLabelKey] = hash
	return &apps.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, apps.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Data:     runtime.RawExtension{Raw: patchOf(ds)},
		Revision: n,
	}, hash
}

// node returns a node with labels and taints.
func node(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: taints},
	}
}

// podState is a generated pod's readiness and phase.
type podState int

const (
	podReady       podState = iota // Ready since epoch
	podUnready                     // no Ready condition
	podRecent                      // Ready 10 s before daemon.Start (not available under minReadySeconds 30)
	podFailed                      // phase Failed
	podTerminating                 // Ready, with a deletionTimestamp (and a finalizer)
)

// addPod adds a pod of the revision with hash on node, created k seconds after epoch.
func (f *fixture) addPod(nodeName, hash string, st podState, k int) {
	labels := maps.Clone(dsLabels)
	labels[apps.DefaultDaemonSetUniqueLabelKey] = hash
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("agent-%s-%d", nodeName, k), Namespace: testNamespace,
			UID: types.UID(fmt.Sprintf("uid-pod-%s-%d", nodeName, k)), Labels: labels,
			CreationTimestamp: metav1.NewTime(epoch.Add(time.Duration(k) * time.Second)),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(f.ds, apps.SchemeGroupVersion.WithKind("DaemonSet"))},
		},
		Spec:   corev1.PodSpec{NodeName: nodeName, Containers: f.ds.Spec.Template.Spec.Containers},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	switch st {
	case podReady:
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(epoch)}}
	case podRecent:
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(daemon.Start.Add(-10 * time.Second))}}
	case podFailed:
		p.Status.Phase = corev1.PodFailed
	case podTerminating:
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(epoch)}}
		p.DeletionTimestamp = ptr.To(metav1.NewTime(daemon.Start.Add(-time.Second)))
		p.Finalizers = []string{"example.com/hold"}
	}
	f.pods = append(f.pods, p)
}

// pick returns one of xs at random.
func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.Intn(len(xs))] }

// generate builds a random start state: 1-12 nodes (one in ten: 13-40) with labels and taints, a template with or
// without a nodeSelector and a toleration, RollingUpdate (maxUnavailable, maxSurge) or
// OnDelete, 1-3 old revisions, a change to a new template, back to an old one (a rollback)
// or none, sometimes a ControllerRevision that takes the new one's name (a collision), and
// per node no pod, an old one, a new one or both, ready or not.
func generate(r *rand.Rand) *fixture {
	base := newDaemonSet("agent:v1")
	if r.Intn(3) == 0 {
		base.Spec.Template.Spec.NodeSelector = map[string]string{"role": "worker"}
	}
	if r.Intn(3) == 0 {
		base.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	}
	if r.Intn(3) == 0 {
		base.Spec.MinReadySeconds = 30
	}
	if r.Intn(4) == 0 {
		base.Spec.RevisionHistoryLimit = ptr.To(int32(r.Intn(3)))
	}
	switch r.Intn(8) {
	case 0:
		base.Spec.UpdateStrategy = apps.DaemonSetUpdateStrategy{Type: apps.OnDeleteDaemonSetStrategyType}
	default:
		mu := pick(r, "0", "1", "1", "2", "25%", "50%", "100%")
		ms := pick(r, "0", "0", "1", "2", "30%", "100%")
		base.Spec.UpdateStrategy.RollingUpdate = &apps.RollingUpdateDaemonSet{
			MaxUnavailable: ptr.To(intstr.Parse(mu)), MaxSurge: ptr.To(intstr.Parse(ms)),
		}
	}
	f := &fixture{}
	nOld := 1 + r.Intn(3)
	var oldHashes []string
	var olds []*apps.DaemonSet
	for i := range nOld {
		d := withImage(base, fmt.Sprintf("agent:v%d", i+1))
		cr, hash := revisionOf(d, int64(i+1))
		f.revs = append(f.revs, cr)
		oldHashes = append(oldHashes, hash)
		olds = append(olds, d)
	}
	switch k := r.Intn(6); {
	case k == 0 && nOld > 1: // rollback to an older revision
		f.ds = olds[r.Intn(nOld-1)].DeepCopy()
	case k == 1: // no change
		f.ds = olds[nOld-1].DeepCopy()
	default:
		f.ds = withImage(base, "agent:v9")
	}
	newRev, newHash := revisionOf(f.ds, 0)
	if r.Intn(12) == 0 && f.ds.Spec.Template.Spec.Containers[0].Image == "agent:v9" {
		// A revision of another template took the new one's name: a hash collision.
		clash := newRev.DeepCopy()
		clash.Data.Raw = patchOf(withImage(base, "agent:clash"))
		clash.Revision = 0
		f.revs = append(f.revs, clash)
		newHash = ""
	}
	nNodes := 1 + r.Intn(12)
	if r.Intn(10) == 0 {
		nNodes = 13 + r.Intn(28) // percentages of larger counts
	}
	k := 0
	for i := range nNodes {
		name := fmt.Sprintf("node-%02d", i)
		labels := map[string]string{"role": pick(r, "worker", "worker", "infra")}
		var taints []corev1.Taint
		switch r.Intn(10) {
		case 0:
			taints = append(taints, corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule})
		case 1:
			taints = append(taints, corev1.Taint{Key: "gpu", Effect: corev1.TaintEffectNoExecute})
		case 2:
			taints = append(taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
		case 3:
			taints = append(taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute})
		}
		f.nodes = append(f.nodes, node(name, labels, taints...))
		ready := func() podState {
			return pick(r, podReady, podReady, podReady, podReady, podReady, podUnready, podUnready, podRecent, podFailed)
		}
		switch r.Intn(8) {
		case 0: // no pod
		case 1:
			if newHash != "" {
				f.addPod(name, newHash, ready(), k)
				k++
			}
		case 2:
			f.addPod(name, pick(r, oldHashes...), ready(), k)
			k++
			if newHash != "" {
				// Never a second failed pod on a node: the controller deletes one failed pod
				// per node per failed-pod backoff period, which the planner does not model.
				f.addPod(name, newHash, pick(r, podReady, podReady, podUnready, podRecent, podTerminating), k)
				k++
			}
		default:
			f.addPod(name, pick(r, oldHashes...), ready(), k)
			k++
		}
	}
	if ru := f.ds.Spec.UpdateStrategy.RollingUpdate; r.Intn(6) == 0 && ru != nil && ru.MaxSurge.String() == "0" {
		// A pod on a node that no longer exists (with surge the controller's rolling
		// update fails on it, every sync).
		f.addPod("gone", pick(r, oldHashes...), podReady, k)
	}
	return f
}

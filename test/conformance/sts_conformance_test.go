package conformance

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apps "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
	sts "github.com/rollplan/kubectl-rollplan/pkg/planner/statefulset"
)

var flagSTSN = flag.Int("conformance.sts.n", 1500, "number of generated StatefulSet start states; each runs under all three readiness models (ROLLPLAN_CONFORMANCE_WIDE=1, make conformance-wide: 20000)")

var stsNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// stsScenario generates one StatefulSet start state: 0-6 replicas (sometimes from ordinal 2),
// OrderedReady or Parallel, RollingUpdate (partition 0..replicas+1, maxUnavailable unset, a
// count or a percentage) or OnDelete, minReadySeconds 0 or 5, history limit 0-3 or 10, one to
// three existing revisions (images v1..v3), the template at v1..v4 (unchanged, a rollback or
// new), sometimes a collision (a revision holding the new template's name with other data),
// and pods at those revisions, Ready (some not yet available), unready, Pending, terminating
// failed, succeeded or missing, some beyond the replicas (a scale-down).
func stsScenario(r *rand.Rand, i int) sts.Input {
	set := &apps.StatefulSet{}
	set.Name, set.Namespace, set.UID, set.Generation = "web", "ns", "uid-web", 2
	set.Spec.Replicas = ptr.To(int32(r.Intn(7)))
	set.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	set.Spec.PodManagementPolicy = apps.OrderedReadyPodManagement
	if r.Intn(2) == 0 {
		set.Spec.PodManagementPolicy = apps.ParallelPodManagement
	}
	start := 0
	if r.Intn(8) == 0 {
		start = 2
		set.Spec.Ordinals = &apps.StatefulSetOrdinals{Start: 2}
	}
	if r.Intn(5) == 0 {
		set.Spec.UpdateStrategy.Type = apps.OnDeleteStatefulSetStrategyType
	} else {
		set.Spec.UpdateStrategy.Type = apps.RollingUpdateStatefulSetStrategyType
		ru := &apps.RollingUpdateStatefulSetStrategy{Partition: ptr.To(int32(0))}
		if r.Intn(3) == 0 {
			ru.Partition = ptr.To(int32(r.Intn(int(*set.Spec.Replicas) + 2)))
		}
		switch r.Intn(4) {
		case 1:
			ru.MaxUnavailable = ptr.To(intstr.FromInt32(int32(1 + r.Intn(3))))
		case 2:
			ru.MaxUnavailable = ptr.To(intstr.FromString(fmt.Sprintf("%d%%", 10+r.Intn(90))))
		}
		set.Spec.UpdateStrategy.RollingUpdate = ru
	}
	if r.Intn(3) == 0 {
		set.Spec.MinReadySeconds = 5
	}
	set.Spec.RevisionHistoryLimit = ptr.To([]int32{0, 1, 2, 3, 10}[r.Intn(5)])
	template := func(image string) corev1.PodTemplateSpec {
		t := corev1.PodTemplateSpec{}
		t.Labels = map[string]string{"app": "web"}
		t.Spec.Containers = []corev1.Container{{Name: "c", Image: image}}
		d := &apps.StatefulSet{Spec: apps.StatefulSetSpec{Template: t}}
		legacyscheme.Scheme.Default(d) // as the API server stores it
		return d.Spec.Template
	}
	var revs []*apps.ControllerRevision
	nRevs := 1 + r.Intn(3)
	for k := 1; k <= nRevs; k++ {
		tmpl := template(fmt.Sprint("img:v", k))
		patch, _ := revisions.Patch(&tmpl)
		hash := revisions.Hash(patch, ptr.To(int32(0)))
		cr := &apps.ControllerRevision{Revision: int64(k)}
		cr.Data.Raw = patch
		cr.Name, cr.Namespace = revisions.Name(set.Name, hash), set.Namespace
		cr.Labels = map[string]string{"app": "web", "controller.kubernetes.io/hash": hash}
		revs = append(revs, cr)
	}
	if r.Intn(4) == 0 { // the latest two swapped: a rollback happened before
		revs[len(revs)-1].Revision, revs[0].Revision = revs[0].Revision, revs[len(revs)-1].Revision
	}
	set.Spec.Template = template(fmt.Sprint("img:v", 1+r.Intn(4)))
	// The planner's input is server-defaulted.
	legacyscheme.Scheme.Default(set)
	// Sometimes the latest revision as another encoder wrote it: the same template, other bytes
	// (StatefulSetSemanticRevisionComparison's case).
	if r.Intn(6) == 0 {
		latest := revs[0]
		for _, cr := range revs {
			if cr.Revision > latest.Revision {
				latest = cr
			}
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, latest.Data.Raw, "", " "); err == nil {
			latest.Data.Raw = buf.Bytes()
		}
	}
	if r.Intn(8) == 0 { // a revision squats on the new template's first name
		patch, _ := revisions.Patch(&set.Spec.Template)
		for _, cr := range revs {
			if string(cr.Data.Raw) == string(patch) {
				patch = nil
			}
		}
		if patch != nil {
			revs[0].Name = revisions.Name(set.Name, revisions.Hash(patch, ptr.To(int32(0))))
		}
	}
	pick := func() string { return revs[r.Intn(len(revs))].Name }
	set.Status.CurrentRevision = pick()
	set.Status.UpdateRevision = pick()
	set.Status.ObservedGeneration = 1
	if r.Intn(4) == 0 {
		set.Status.CollisionCount = ptr.To(int32(r.Intn(2)))
	}
	var pods []*corev1.Pod
	prev := int(*set.Spec.Replicas) + r.Intn(5) - 2
	for o := start; o < start+prev; o++ {
		if r.Intn(8) == 0 {
			continue // missing
		}
		p := &corev1.Pod{}
		p.Name, p.Namespace = fmt.Sprintf("%s-%d", set.Name, o), set.Namespace
		rev := set.Status.CurrentRevision
		if r.Intn(3) == 0 {
			rev = pick()
		}
		p.Labels = map[string]string{"app": "web", apps.StatefulSetPodNameLabel: p.Name, apps.StatefulSetRevisionLabel: rev}
		switch r.Intn(9) {
		case 8:
			p.Status.Phase = []corev1.PodPhase{corev1.PodFailed, corev1.PodSucceeded}[r.Intn(2)]
		case 0:
			p.Status.Phase = corev1.PodPending
		case 1:
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
		case 2:
			p.Status.Phase = corev1.PodRunning
			p.DeletionTimestamp = &metav1.Time{Time: stsNow}
		default:
			p.Status.Phase = corev1.PodRunning
			since := stsNow.Add(-time.Duration(r.Intn(10)) * time.Second)
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(since)}}
		}
		pods = append(pods, p)
	}
	in := sts.Input{StatefulSet: set, Revisions: revs, Pods: pods, Now: stsNow, MaxSyncs: 500}
	if r.Intn(5) == 0 {
		in.Broken = []string{pick()}
	}
	return in
}

type stsCounts struct{ states, runs, syncs, podOps, revOps, mismatches int }

// TestStatefulSetConformance runs the upstream v1.36.3 StatefulSet control
// (defaultStatefulSetControl.UpdateStatefulSet) beside statefulset.Simulate on generated start
// states under the three readiness models, with the MaxUnavailableStatefulSet gate on when
// the scenario sets maxUnavailable (the API server keeps the field only then) and off
// otherwise, and compares per sync: the pod operations (in order; Parallel within a sync in
// the planner's order, upstream's goroutines have none), the revision operations and the
// status. Every mismatch fails the test; the counts are logged.
func TestStatefulSetConformance(t *testing.T) {
	n := *flagSTSN
	if wideRun() {
		n = 20000
	}
	r := rand.New(rand.NewSource(*flagSeed))
	var byGate [2][]sts.Input
	for i := 0; i < n; i++ {
		in := stsScenario(r, i)
		gate := 0
		if ru := in.StatefulSet.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
			gate = 1
		}
		byGate[gate] = append(byGate[gate], in)
	}
	var c stsCounts
	for gate, inputs := range byGate {
		t.Run(fmt.Sprintf("MaxUnavailableStatefulSet=%v", gate == 1), func(t *testing.T) {
			featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.MaxUnavailableStatefulSet, gate == 1)
			failed := 0
			for i, in := range inputs {
				c.states++
				for _, rd := range []sts.Readiness{sts.ReadinessBatched, sts.ReadinessInstant, sts.ReadinessNever} {
					in.Readiness = rd
					c.runs++
					if msg := compareSTS(in, &c); msg != "" {
						c.mismatches++
						failed++
						t.Errorf("state %d, %s: %s", i, rd, msg)
						if failed >= *flagMaxFail {
							t.FailNow()
						}
					}
				}
			}
		})
	}
	t.Logf("statefulset: %d states, %d runs, %d syncs, %d pod operations, %d revision operations, %d mismatches", c.states, c.runs, c.syncs, c.podOps, c.revOps, c.mismatches)
}

func compareSTS(in sts.Input, c *stsCounts) string {
	want, err := runUpstream(in)
	if err != nil {
		return "upstream: " + err.Error()
	}
	got, err := sts.Simulate(in)
	if err != nil {
		return "planner: " + err.Error()
	}
	c.syncs += want.syncs
	c.podOps += len(want.podOps)
	c.revOps += len(want.revOps)
	if len(want.other) > 0 {
		return fmt.Sprintf("upstream made writes the planner does not model: %v", want.other)
	}
	if want.syncs != got.Syncs {
		return fmt.Sprintf("syncs: upstream %d, planner %d (outcome %s: %s)", want.syncs, got.Syncs, got.Outcome, got.Reason)
	}
	if d := cmp.Diff(want.podOps, got.PodOperations); d != "" && (len(want.podOps) > 0 || len(got.PodOperations) > 0) {
		return "pod operations (-upstream +planner):\n" + d
	}
	if d := cmp.Diff(want.revOps, got.RevisionOperations); d != "" && (len(want.revOps) > 0 || len(got.RevisionOperations) > 0) {
		return "revision operations (-upstream +planner):\n" + d
	}
	if d := cmp.Diff(want.statuses, got.Statuses); d != "" {
		return "statuses (-upstream +planner):\n" + d
	}
	return ""
}

// wideRun reports whether the wide run is asked for (make conformance-wide sets
// ROLLPLAN_CONFORMANCE_WIDE=1).
func wideRun() bool { return os.Getenv("ROLLPLAN_CONFORMANCE_WIDE") == "1" }

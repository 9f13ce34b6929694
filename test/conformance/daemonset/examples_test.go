package daemonset

import (
	"fmt"
	"testing"

	apps "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// example builds a fixture of n nodes, each running a ready pod of v1, changed to v2.
func example(n int, maxSurge, maxUnavailable string) *fixture {
	v1 := newDaemonSet("agent:v1")
	cr, hash := revisionOf(v1, 1)
	f := &fixture{ds: withImage(v1, "agent:v2"), revs: []*apps.ControllerRevision{cr}}
	f.ds.Spec.UpdateStrategy.RollingUpdate = &apps.RollingUpdateDaemonSet{
		MaxSurge: ptr.To(intstr.Parse(maxSurge)), MaxUnavailable: ptr.To(intstr.Parse(maxUnavailable))}
	for i := range n {
		name := fmt.Sprintf("node-%03d", i)
		f.nodes = append(f.nodes, node(name, map[string]string{"role": "worker"}))
		f.addPod(name, hash, podReady, i)
	}
	return f
}

// TestExamples runs named start states the generator does not reach, controller beside
// planner, under the three readiness models.
func TestExamples(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() *fixture
		// wantOrder: whether the plan must say the node order matters.
		wantOrder bool
	}{
		{"300 nodes, maxUnavailable 100%: burstReplicas caps each sync at 250 deletes, then 250 creates", func() *fixture {
			return example(300, "0", "100%")
		}, true},
		{"300 nodes, maxSurge 100%: 250 surge pods, then 50", func() *fixture {
			return example(300, "100%", "0")
		}, true},
		// The sync that deletes the duplicate relabels every pod, old ones included, with
		// the kept revision's hash: one old pod (maxUnavailable 1, picked by the node order)
		// is replaced, the other two then count as updated and are never replaced.
		{"two revisions match the template: the older is deleted and every pod relabelled", func() *fixture {
			f := example(3, "0", "1")
			dup, _ := revisionOf(f.ds, 2)
			other := dup.DeepCopy()
			other.Name, other.Revision = "agent-duplicate", 3
			f.revs = append(f.revs, dup, other)
			return f
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rd := range []planner.Readiness{planner.ReadinessBatched, planner.ReadinessInstant, planner.ReadinessNever} {
				var c counts
				if err := check(t, &c, tc.build(), rd); err != nil {
					t.Errorf("readiness %s: %v", rd, err)
				}
				if got := c.orderDependent > 0; got != tc.wantOrder {
					t.Errorf("readiness %s: order matters = %v, want %v", rd, got, tc.wantOrder)
				}
			}
		})
	}
}

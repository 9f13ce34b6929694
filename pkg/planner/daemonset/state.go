package daemonset

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	intstrutil "k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// pod is one DaemonSet pod as the simulation tracks it.
type pod struct {
	name string // "" for a pod the plan creates
	// order sorts pods by creation: existing pods by (creationTimestamp, name), then the
	// created ones in creation order.
	order     int
	node      string
	hash      string // controller-revision-hash label
	gen       string // pod-template-generation label
	scheduled bool   // spec.nodeName set
	ready     bool
	available bool
	phase     corev1.PodPhase
	deleting  bool
	// readyAt and availableAt are, under the timed model, when the pod becomes Ready and
	// available (from Input.Now).
	readyAt, availableAt time.Duration
}

func (p *pod) terminal() bool {
	return p.phase == corev1.PodFailed || p.phase == corev1.PodSucceeded
}

// olderThan orders pods as podByCreationTimestampAndPhase does: scheduled first, then by
// creation. Mirrors pkg/controller/daemon/daemon_controller.go, v1.36.3.
func olderThan(a, b *pod) int {
	if a.scheduled != b.scheduled {
		if a.scheduled {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.order, b.order)
}

// nodeInfo is a node and the controller's predicates for it.
type nodeInfo struct {
	node                  *corev1.Node
	shouldRun, shouldStay bool
	reason                string
}

// state is the simulation's world between syncs.
type state struct {
	in        Input
	ds        *appsv1.DaemonSet
	nodes     map[string]*nodeInfo
	nodeNames []string // sorted
	pods      []*pod
	nextOrder int
	hash      string
	tmplGen   *int64
	// revisionOf maps a pod hash to its ControllerRevision (name, number).
	revisionOf map[string]Revision
	// clock is the timed model's (Readiness timed).
	clock clock
}

func newState(in Input, hash string) (*state, error) {
	s := &state{in: in, ds: in.DaemonSet, nodes: map[string]*nodeInfo{}, hash: hash}
	if v, ok := s.ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok {
		if g, err := strconv.ParseInt(v, 10, 64); err == nil {
			s.tmplGen = &g
		}
	}
	for _, n := range in.Nodes {
		run, stay, reason := ShouldRun(n, s.ds)
		s.nodes[n.Name] = &nodeInfo{node: n, shouldRun: run, shouldStay: stay, reason: reason}
		s.nodeNames = append(s.nodeNames, n.Name)
	}
	slices.Sort(s.nodeNames)
	existing := slices.Clone(in.Pods)
	slices.SortFunc(existing, func(a, b *corev1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	for _, p := range existing {
		node := targetNode(p)
		if node == "" {
			return nil, fmt.Errorf("pod %s/%s names no node (spec.nodeName or a metadata.name node affinity): the controller ignores it; leave it out", p.Namespace, p.Name)
		}
		ready, available := podAvailability(p, s.ds.Spec.MinReadySeconds, in.Now)
		sp := &pod{
			name: p.Name, order: s.nextOrder, node: node,
			hash:      p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey],
			gen:       p.Labels[extensionsv1beta1.DaemonSetTemplateGenerationKey],
			scheduled: p.Spec.NodeName != "", ready: ready, available: available,
			phase: p.Status.Phase, deleting: p.DeletionTimestamp != nil,
		}
		if in.Readiness == planner.ReadinessTimed {
			s.startClock(p, sp)
		}
		s.pods = append(s.pods, sp)
		s.nextOrder++
	}
	return s, nil
}

// podAvailability mirrors IsPodReady and IsPodAvailable, pkg/api/v1/pod/util.go, v1.36.3; a
// zero now counts every Ready pod available.
func podAvailability(p *corev1.Pod, minReadySeconds int32, now metav1.Time) (ready, available bool) {
	for _, c := range p.Status.Conditions {
		if c.Type != corev1.PodReady || c.Status != corev1.ConditionTrue {
			continue
		}
		if minReadySeconds == 0 || now.IsZero() {
			return true, true
		}
		at := c.LastTransitionTime.Add(secondsOf(minReadySeconds))
		return true, !c.LastTransitionTime.IsZero() && at.Compare(now.Time) <= 0
	}
	return false, false
}

// updated reports whether p runs the update revision. Mirrors IsPodUpdated,
// pkg/controller/daemon/util/daemonset_util.go, v1.36.3.
func (s *state) updated(p *pod) bool {
	templateMatches := s.tmplGen != nil && p.gen == strconv.FormatInt(*s.tmplGen, 10)
	return (s.hash != "" && p.hash == s.hash) || templateMatches
}

// podsByNode groups the pods the controller considers, as getNodesToDaemonPods does
// (includeDeletedTerminal false: terminal pods being deleted are left out).
func (s *state) podsByNode() map[string][]*pod {
	out := map[string][]*pod{}
	for _, p := range s.pods {
		if p.terminal() && p.deleting {
			continue
		}
		out[p.node] = append(out[p.node], p)
	}
	return out
}

// order returns keys in the order the controller is taken to visit them at step: the
// nodes Input.NodeOrder names first (in its order), then the rest by name.
func (s *state) order(step int, keys []string) []string {
	rank := map[string]int{}
	if s.in.NodeOrder != nil {
		for i, n := range s.in.NodeOrder(step) {
			if _, ok := rank[n]; !ok {
				rank[n] = i
			}
		}
	}
	out := slices.Clone(keys)
	slices.SortFunc(out, func(a, b string) int {
		ra, oka := rank[a]
		rb, okb := rank[b]
		switch {
		case oka && okb:
			return cmp.Compare(ra, rb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return cmp.Compare(a, b)
	})
	return out
}

// counts returns maxSurge, maxUnavailable and desiredNumberScheduled. Mirrors
// updatedDesiredNodeCounts, pkg/controller/daemon/update.go, v1.36.3 (SurgeCount and
// UnavailableCount of daemon/util, both rounding up; 0 and 0 becomes maxUnavailable 1).
func (s *state) counts() (maxSurge, maxUnavailable, desired int, err error) {
	for _, n := range s.nodes {
		if n.shouldRun {
			desired++
		}
	}
	r := s.ds.Spec.UpdateStrategy.RollingUpdate
	if s.ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || r == nil {
		return 0, 0, desired, nil
	}
	if maxUnavailable, err = intstrutil.GetScaledValueFromIntOrPercent(r.MaxUnavailable, desired, true); err != nil {
		return 0, 0, 0, fmt.Errorf("daemonset %s/%s: invalid spec.updateStrategy.rollingUpdate.maxUnavailable: %w", s.ds.Namespace, s.ds.Name, err)
	}
	if r.MaxSurge != nil {
		if maxSurge, err = intstrutil.GetScaledValueFromIntOrPercent(r.MaxSurge, desired, true); err != nil {
			return 0, 0, 0, fmt.Errorf("daemonset %s/%s: invalid spec.updateStrategy.rollingUpdate.maxSurge: %w", s.ds.Namespace, s.ds.Name, err)
		}
	}
	if desired > 0 && maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1
	}
	return maxSurge, maxUnavailable, desired, nil
}

// allowsSurge mirrors AllowsSurge, pkg/controller/daemon/util/daemonset_util.go, v1.36.3.
func (s *state) allowsSurge() bool {
	r := s.ds.Spec.UpdateStrategy.RollingUpdate
	if s.ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || r == nil || r.MaxSurge == nil {
		return false
	}
	n, err := intstrutil.GetScaledValueFromIntOrPercent(r.MaxSurge, 1, true)
	return err == nil && n > 0
}

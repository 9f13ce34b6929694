package daemonset

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

func secondsOf(s int32) time.Duration { return time.Duration(s) * time.Second }

// ops is what one sync decides: pods to delete and nodes to create a pod on, and whether
// the controller had to pick among candidate nodes (so the random node order decides which).
type ops struct {
	deletes []*pod
	creates []string
	choice  bool
}

// manage decides the creates and deletes that make every node run what it should: a pod on
// a node that should run one and has none; failed and succeeded pods deleted; on a node
// without surge all pods but the oldest deleted; with surge, the oldest new pod kept, and the
// oldest old one while it is ready and the new one is not yet available; every pod of a node
// that may not keep it deleted; unscheduled pods of nodes that do not exist deleted.
//
// Mirrors manage and podsShouldBeOnNode, pkg/controller/daemon/daemon_controller.go,
// v1.36.3. The failed-pod backoff is not modelled (the simulation creates no failed pod).
func (s *state) manage(step int) ops {
	byNode := s.podsByNode()
	var o ops
	surge := s.allowsSurge()
	for _, name := range s.order(step, s.nodeNames) {
		n := s.nodes[name]
		pods, exists := byNode[name]
		switch {
		case n.shouldRun && !exists:
			o.creates = append(o.creates, name)
		case n.shouldStay:
			var running []*pod
			for _, p := range pods {
				switch {
				case p.deleting:
				case p.terminal():
					o.deletes = append(o.deletes, p)
				default:
					running = append(running, p)
				}
			}
			slices.SortStableFunc(running, olderThan)
			if !surge {
				if len(running) > 1 {
					o.deletes = append(o.deletes, running[1:]...)
				}
				continue
			}
			if len(running) <= 1 {
				if len(running) == 0 && n.shouldRun {
					o.creates = append(o.creates, name)
				}
				continue
			}
			o.deletes = append(o.deletes, s.pruneSurge(running)...)
		case exists:
			for _, p := range pods {
				if !p.deleting {
					o.deletes = append(o.deletes, p)
				}
			}
		}
	}
	// Unscheduled pods of nodes that do not exist (getUnscheduledPodsWithoutNode).
	for _, node := range slices.Sorted(maps.Keys(byNode)) {
		if s.nodes[node] != nil {
			continue
		}
		for _, p := range byNode[node] {
			if !p.scheduled {
				o.deletes = append(o.deletes, p)
			}
		}
	}
	return o
}

// pruneSurge returns the pods to delete on a surging node whose running pods, oldest
// first, are running: all but the oldest new and the oldest old pod; the oldest old one
// too when it is not ready, or when the oldest new one is available.
func (s *state) pruneSurge(running []*pod) []*pod {
	var del []*pod
	var oldestNew, oldestOld *pod
	for _, p := range running {
		switch {
		case s.updated(p) && oldestNew == nil:
			oldestNew = p
		case !s.updated(p) && oldestOld == nil:
			oldestOld = p
		default:
			del = append(del, p)
		}
	}
	if oldestNew != nil && oldestOld != nil && (!oldestOld.ready || oldestNew.available) {
		del = append(del, oldestOld)
	}
	return del
}

// findUpdated returns a node's one new and one old pod (each may be nil), or ok false when it
// has two of either. Mirrors findUpdatedPodsOnNode, pkg/controller/daemon/update.go, v1.36.3.
func (s *state) findUpdated(pods []*pod) (newPod, oldPod *pod, ok bool) {
	for _, p := range pods {
		if p.deleting {
			continue
		}
		if s.updated(p) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// rollingUpdate decides the RollingUpdate strategy's deletes (maxSurge 0) or creates
// (maxSurge > 0). Mirrors rollingUpdate, pkg/controller/daemon/update.go, v1.36.3.
func (s *state) rollingUpdate(step int) (ops, error) {
	byNode := s.podsByNode()
	for name, n := range s.nodes {
		if _, ok := byNode[name]; !ok && n.shouldRun {
			byNode[name] = nil
		}
	}
	maxSurge, maxUnavailable, desired, err := s.counts()
	if err != nil {
		return ops{}, err
	}
	keys := s.order(step, slices.Collect(maps.Keys(byNode)))
	if maxSurge == 0 {
		return s.deleteFirst(byNode, keys, maxUnavailable), nil
	}
	return s.surgeFirst(byNode, keys, maxSurge, desired)
}

// deleteFirst: old available pods are deleted while fewer than maxUnavailable nodes are
// unavailable (the manage loop of the next sync creates their replacements); old
// unavailable pods are always deleted. Example: 5 nodes on the old revision, maxUnavailable
// 2: sync 1 deletes 2 old pods, sync 2 creates 2 new ones, and the next 2 old pods go once
// those are available.
func (s *state) deleteFirst(byNode map[string][]*pod, keys []string, maxUnavailable int) ops {
	numUnavailable := 0
	var allowed, candidates []*pod
	for _, node := range keys {
		newPod, oldPod, ok := s.findUpdated(byNode[node])
		switch {
		case !ok, oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
			numUnavailable++
		case newPod != nil:
			if !newPod.available {
				numUnavailable++
			}
		case !oldPod.available:
			allowed = append(allowed, oldPod)
			numUnavailable++
		case numUnavailable >= maxUnavailable:
		default:
			candidates = append(candidates, oldPod)
		}
	}
	remaining := min(max(maxUnavailable-numUnavailable, 0), len(candidates))
	return ops{deletes: append(allowed, candidates[:remaining]...), choice: remaining > 0 && remaining < len(candidates)}
}

// surgeFirst: a new pod is created beside each old pod, at most maxSurge nodes at once
// (immediately where the old pod is unavailable); an old pod is deleted once the new pod on
// its node is available. Old pods on nodes that no longer fit are deleted only while more
// pods are available than nodes should run one.
func (s *state) surgeFirst(byNode map[string][]*pod, keys []string, maxSurge, desired int) (ops, error) {
	var o ops
	var shouldNotRun []*pod
	var candidates, allowed []string
	numSurge, numAvailable := 0, 0
	for _, node := range keys {
		newPod, oldPod, ok := s.findUpdated(byNode[node])
		if !ok {
			numSurge++
			continue
		}
		if (oldPod != nil && oldPod.available) || (oldPod == nil && newPod != nil && newPod.available) {
			numAvailable++
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			n := s.nodes[node]
			if n == nil {
				return ops{}, fmt.Errorf("pod %s runs on node %s, which does not exist: the controller's rolling update fails on it", oldPod.name, node)
			}
			switch {
			case !oldPod.available && !n.shouldRun:
				o.deletes = append(o.deletes, oldPod)
			case !oldPod.available:
				allowed = append(allowed, node)
			case !n.shouldRun:
				shouldNotRun = append(shouldNotRun, oldPod)
			case numSurge >= maxSurge:
			default:
				candidates = append(candidates, node)
			}
		case !newPod.available:
			numSurge++
		default:
			o.deletes = append(o.deletes, oldPod)
		}
	}
	if deletable := min(numAvailable-desired, len(shouldNotRun)); deletable > 0 {
		o.deletes = append(o.deletes, shouldNotRun[:deletable]...)
		o.choice = deletable < len(shouldNotRun)
	}
	remaining := min(max(maxSurge-numSurge, 0), len(candidates))
	o.creates = append(allowed, candidates[:remaining]...)
	o.choice = o.choice || (remaining > 0 && remaining < len(candidates))
	return o, nil
}

// burst caps a sync's creates and deletes at BurstReplicas each, as syncNodes does; which
// ones are left for later depends on the node order.
func (o *ops) burst() {
	if len(o.creates) > BurstReplicas {
		o.creates, o.choice = o.creates[:BurstReplicas], true
	}
	if len(o.deletes) > BurstReplicas {
		o.deletes, o.choice = o.deletes[:BurstReplicas], true
	}
}

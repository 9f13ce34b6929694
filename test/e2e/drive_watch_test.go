//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// podMonitor watches every pod of a namespace and, at every change, counts the pods that
// exist (not terminating, not finished) and the available ones (Ready, not terminating):
// the numbers a drive bounds. It keeps the extremes and every violation of the bounds.
type podMonitor struct {
	mu         sync.Mutex
	pods       map[string]*corev1.Pod
	maxPods    int
	minAvail   int
	seenMax    int
	seenMin    int
	violations []string
	changes    int
	cancel     context.CancelFunc
	done       sync.WaitGroup
}

// watchPods starts a podMonitor on ns with the bounds maxPods and minAvail; it stops when t
// ends, failing t with the violations.
func watchPods(t testing.TB, c *framework.Cluster, ns string, maxPods, minAvail int) *podMonitor {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := &podMonitor{pods: map[string]*corev1.Pod{}, maxPods: maxPods, minAvail: minAvail, seenMin: 1 << 30, cancel: cancel}
	pods := c.Client.CoreV1().Pods(ns)
	lw := framework.ListWatch(c.Client, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return pods.List(ctx, o)
	}, pods.Watch)
	// Follow lists again after an API server restart, and hands the differences in one call.
	if err := framework.Follow(ctx, time.Minute, lw, &corev1.Pod{}, &m.done, m.record); err != nil {
		m.stop()
		t.Fatalf("watch pods in %s: %v", ns, err)
	}
	t.Cleanup(func() { m.stop() })
	return m
}

// record applies changes (the first list, one watch event, or what a list after an API
// server restart found changed) and then checks the bounds once.
func (m *podMonitor) record(changes []framework.Change) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var what []string
	for _, c := range changes {
		p, ok := c.New.(*corev1.Pod)
		if !ok {
			continue
		}
		if c.Type == watch.Deleted {
			delete(m.pods, p.Name)
		} else {
			m.pods[p.Name] = p
		}
		if !c.Initial {
			m.changes++
			what = append(what, fmt.Sprintf("%s pod %s", c.Type, p.Name))
		}
	}
	label := "start"
	if len(what) > 0 {
		label = strings.Join(what, ", ")
	}
	m.checkLocked(label)
}

func (m *podMonitor) checkLocked(what string) {
	pods, avail := m.countsLocked()
	m.seenMax, m.seenMin = max(m.seenMax, pods), min(m.seenMin, avail)
	if pods > m.maxPods || avail < m.minAvail {
		m.violations = append(m.violations, fmt.Sprintf("after %s: %d pods (at most %d), %d available (at least %d)", what, pods, m.maxPods, avail, m.minAvail))
	}
}

func (m *podMonitor) countsLocked() (pods, avail int) {
	for _, p := range m.pods {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		pods++
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				avail++
			}
		}
	}
	return pods, avail
}

func (m *podMonitor) stop() {
	m.cancel()
	m.done.Wait()
}

// result stops the monitor and returns the extremes seen, the number of pod changes and
// the violations.
func (m *podMonitor) result() (seenMax, seenMin, changes int, violations []string) {
	m.stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seenMax, m.seenMin, m.changes, append([]string(nil), m.violations...)
}

// assertBounds stops m and fails t on a violation; it logs the extremes.
func (m *podMonitor) assertBounds(t testing.TB) {
	t.Helper()
	seenMax, seenMin, changes, violations := m.result()
	t.Logf("pods: at most %d (bound %d), available at least %d (bound %d), over %d pod changes", seenMax, m.maxPods, seenMin, m.minAvail, changes)
	if changes == 0 {
		t.Error("the pod monitor saw no pod change at all")
	}
	for i, v := range violations {
		if i == 10 {
			t.Errorf("... and %d more violations", len(violations)-10)
			break
		}
		t.Errorf("bound violated: %s", v)
	}
}

// rsSample is one ReplicaSet change as a watch saw it, with the time it arrived.
type rsSample struct {
	at        time.Time
	name      string
	replicas  int32 // spec.replicas
	available int32 // status.availableReplicas
	specWrite bool  // spec.replicas changed (or created)
	fullUp    bool  // availableReplicas rose to spec.replicas (>0)
}

// rsTimeline records every ReplicaSet change of a namespace with its arrival time, for
// reaction times.
type rsTimeline struct {
	mu      sync.Mutex
	samples []rsSample
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

func watchReplicaSets(t testing.TB, client kubernetes.Interface, ns string) *rsTimeline {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tl := &rsTimeline{cancel: cancel}
	rs := client.AppsV1().ReplicaSets(ns)
	lw := framework.ListWatch(client, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return rs.List(ctx, o)
	}, rs.Watch)
	if err := framework.Follow(ctx, time.Minute, lw, &appsv1.ReplicaSet{}, &tl.done, tl.record); err != nil {
		tl.stop()
		t.Fatalf("watch replicasets in %s: %v", ns, err)
	}
	t.Cleanup(tl.stop)
	return tl
}

// record adds a sample for each ReplicaSet change: its replicas, whether spec.replicas
// changed, and whether the change made the ReplicaSet fully available.
func (tl *rsTimeline) record(changes []framework.Change) {
	now := time.Now()
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, c := range changes {
		rs, ok := c.New.(*appsv1.ReplicaSet)
		if !ok || c.Type == watch.Deleted || c.Initial {
			continue
		}
		prev, _ := c.Old.(*appsv1.ReplicaSet)
		s := rsSample{at: now, name: rs.Name, replicas: ptr.Deref(rs.Spec.Replicas, 1), available: rs.Status.AvailableReplicas}
		s.specWrite = prev == nil || ptr.Deref(prev.Spec.Replicas, 1) != s.replicas
		prevAvail := int32(0)
		if prev != nil {
			prevAvail = prev.Status.AvailableReplicas
		}
		s.fullUp = s.available > prevAvail && s.available >= s.replicas && s.replicas > 0
		tl.samples = append(tl.samples, s)
	}
}

func (tl *rsTimeline) stop() {
	tl.cancel()
	tl.done.Wait()
}

// reactions returns, for every ReplicaSet spec write that follows (since the previous spec
// write) a status change making some ReplicaSet fully available, the time from that status
// change to the write: how long the writer took to act once the pods it waited for were
// available. The same measure applies to the controller and to drive.
func (tl *rsTimeline) reactions() []time.Duration {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var out []time.Duration
	var lastUp time.Time
	for _, s := range tl.samples {
		if s.fullUp {
			lastUp = s.at
		}
		if s.specWrite {
			if !lastUp.IsZero() {
				out = append(out, s.at.Sub(lastUp))
			}
			lastUp = time.Time{}
		}
	}
	return out
}

func driveMedian(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

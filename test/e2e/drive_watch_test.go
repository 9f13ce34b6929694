//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sort"
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
	errs       []error
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
	list, err := c.Client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		cancel()
		t.Fatalf("list pods in %s: %v", ns, err)
	}
	for i := range list.Items {
		m.pods[list.Items[i].Name] = &list.Items[i]
	}
	m.check("start")
	listPods := func(ctx context.Context) ([]runtime.Object, string, error) {
		l, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, "", err
		}
		objs := make([]runtime.Object, 0, len(l.Items))
		for i := range l.Items {
			objs = append(objs, &l.Items[i])
		}
		return objs, l.ResourceVersion, nil
	}
	// A watch that expires (410 Gone after an API server restart) is listed again.
	err = framework.WatchRelist(ctx, list.ResourceVersion, listPods, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return c.Client.CoreV1().Pods(ns).Watch(ctx, o)
	}, &m.done, m.record)
	if err != nil {
		cancel()
		t.Fatalf("watch pods in %s: %v", ns, err)
	}
	t.Cleanup(func() { m.stop() })
	return m
}

func (m *podMonitor) record(ev watch.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ev.Type == watch.Error {
		m.errs = append(m.errs, fmt.Errorf("pod watch error: %v", ev.Object))
		return
	}
	p, ok := ev.Object.(*corev1.Pod)
	if !ok {
		return
	}
	switch ev.Type {
	case watch.Deleted:
		delete(m.pods, p.Name)
	default:
		m.pods[p.Name] = p
	}
	m.changes++
	m.checkLocked(fmt.Sprintf("%s pod %s", ev.Type, p.Name))
}

func (m *podMonitor) check(what string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checkLocked(what)
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
func (m *podMonitor) result() (seenMax, seenMin, changes int, violations []string, errs []error) {
	m.stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seenMax, m.seenMin, m.changes, append([]string(nil), m.violations...), append([]error(nil), m.errs...)
}

// assertBounds stops m and fails t on a violation or a watch error; it logs the extremes.
func (m *podMonitor) assertBounds(t testing.TB) {
	t.Helper()
	seenMax, seenMin, changes, violations, errs := m.result()
	t.Logf("pods: at most %d (bound %d), available at least %d (bound %d), over %d pod changes", seenMax, m.maxPods, seenMin, m.minAvail, changes)
	for _, err := range errs {
		t.Error(err)
	}
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
	last    map[string]*appsv1.ReplicaSet
	cancel  context.CancelFunc
	done    sync.WaitGroup
}

func watchReplicaSets(t testing.TB, client kubernetes.Interface, ns string) *rsTimeline {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tl := &rsTimeline{last: map[string]*appsv1.ReplicaSet{}, cancel: cancel}
	list, err := client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		cancel()
		t.Fatalf("list replicasets in %s: %v", ns, err)
	}
	for i := range list.Items {
		tl.last[list.Items[i].Name] = &list.Items[i]
	}
	err = framework.Watch(ctx, list.ResourceVersion, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return client.AppsV1().ReplicaSets(ns).Watch(ctx, o)
	}, &tl.done, tl.record)
	if err != nil {
		cancel()
		t.Fatalf("watch replicasets in %s: %v", ns, err)
	}
	t.Cleanup(tl.stop)
	return tl
}

// record adds a sample for a ReplicaSet event: its replicas, whether spec.replicas changed,
// and whether the event made the ReplicaSet fully available.
func (tl *rsTimeline) record(ev watch.Event) {
	now := time.Now()
	rs, ok := ev.Object.(*appsv1.ReplicaSet)
	if !ok || ev.Type == watch.Error {
		return
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	prev := tl.last[rs.Name]
	s := rsSample{at: now, name: rs.Name, replicas: ptr.Deref(rs.Spec.Replicas, 1), available: rs.Status.AvailableReplicas}
	s.specWrite = prev == nil || ptr.Deref(prev.Spec.Replicas, 1) != s.replicas
	prevAvail := int32(0)
	if prev != nil {
		prevAvail = prev.Status.AvailableReplicas
	}
	s.fullUp = s.available > prevAvail && s.available >= s.replicas && s.replicas > 0
	tl.last[rs.Name] = rs
	tl.samples = append(tl.samples, s)
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

package framework

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// releasePatch removes HoldLabel; a merge patch, so releasing a released pod is a no-op.
var releasePatch = []byte(`{"metadata":{"labels":{"` + HoldLabel + `":null}}}`)

// HeldPods lists the pods of ns that match selector (a label selector, "" for all) and still
// carry HoldLabel, and are not being deleted.
func (c *Cluster) HeldPods(t testing.TB, ns, selector string) []corev1.Pod {
	t.Helper()
	pods, err := c.heldPods(t.Context(), ns, selector)
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

func (c *Cluster) heldPods(ctx context.Context, ns, selector string) ([]corev1.Pod, error) {
	sel := HoldLabel
	if selector != "" {
		sel = selector + "," + HoldLabel
	}
	list, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list held pods in %s (selector %q): %w", ns, sel, err)
	}
	var held []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			held = append(held, p)
		}
	}
	return held, nil
}

// ReleasePods removes HoldLabel from the pods of ns matching selector ("" for all), so kwok
// makes them Running and Ready within about a second. It returns how many pods it released.
func (c *Cluster) ReleasePods(t testing.TB, ns, selector string) int {
	t.Helper()
	n, err := c.releasePods(t.Context(), ns, selector)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ReleaseReplicaSet releases the held pods of rs (those matching its selector, which
// includes the pod-template-hash). It returns how many pods it released.
func (c *Cluster) ReleaseReplicaSet(t testing.TB, rs *appsv1.ReplicaSet) int {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		t.Fatalf("selector of replicaset %s/%s: %v", rs.Namespace, rs.Name, err)
	}
	return c.ReleasePods(t, rs.Namespace, sel.String())
}

func (c *Cluster) releasePods(ctx context.Context, ns, selector string) (int, error) {
	held, err := c.heldPods(ctx, ns, selector)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range held {
		released, err := c.releasePod(ctx, ns, p.Name)
		if err != nil {
			return n, err
		}
		if released {
			n++
		}
	}
	return n, nil
}

// releasePod removes HoldLabel from pod ns/name; a pod that is already gone is not an error.
func (c *Cluster) releasePod(ctx context.Context, ns, name string) (bool, error) {
	_, err := c.Client.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, releasePatch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("release pod %s/%s (remove label %s): %w", ns, name, HoldLabel, err)
	}
	return true, nil
}

// AutoRelease releases every held pod of ns matching selector ("" for all) now and as soon
// as one appears, until the returned stop function is called (also called when t ends).
// Use it to let a rollout of a held pod template finish. stop returns how many distinct pods
// it released; it reports a failed release on t.
func (c *Cluster) AutoRelease(t testing.TB, ns, selector string) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu       sync.Mutex
		released = map[string]bool{} // pod names
		firstErr error
		wg       sync.WaitGroup
	)
	release := func(name string) {
		ok, err := c.releasePod(ctx, ns, name)
		mu.Lock()
		defer mu.Unlock()
		if ok {
			released[name] = true
		}
		if err != nil && firstErr == nil && ctx.Err() == nil {
			firstErr = err
		}
	}
	sweep := func() {
		held, err := c.heldPods(ctx, ns, selector)
		if err != nil {
			mu.Lock()
			if firstErr == nil && ctx.Err() == nil {
				firstErr = err
			}
			mu.Unlock()
			return
		}
		for _, p := range held {
			release(p.Name)
		}
	}
	sweep()
	wg.Add(1)
	go func() {
		defer wg.Done()
		sel := HoldLabel
		if selector != "" {
			sel = selector + "," + HoldLabel
		}
		for ctx.Err() == nil {
			w, err := c.Client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: sel})
			if err != nil {
				time.Sleep(100 * time.Millisecond)
				continue
			}
			sweep() // pods created between the last sweep and the watch
			for ev := range w.ResultChan() {
				if ev.Type == watch.Added || ev.Type == watch.Modified {
					if p, ok := ev.Object.(*corev1.Pod); ok && p.DeletionTimestamp == nil &&
						labels.Set(p.Labels).Has(HoldLabel) {
						release(p.Name)
					}
				}
			}
			w.Stop()
		}
	}()
	var once sync.Once
	stop = func() int {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil {
			t.Errorf("auto-release in %s: %v", ns, firstErr)
		}
		return len(released)
	}
	t.Cleanup(func() { stop() })
	return stop
}

// UnreadyLabel makes a Ready pod not Ready (kwok stage pod-unready, hack/cluster/kwok-stages.yaml)
// when it carries it with a non-empty value: a pod that stops being available.
const UnreadyLabel = "rollplan.test/unready"

// MakeUnready labels the pods names of ns with UnreadyLabel and waits (up to 30 s) until
// kwok reports each not Ready.
func (c *Cluster) MakeUnready(t testing.TB, ns string, names ...string) {
	t.Helper()
	patch := []byte(`{"metadata":{"labels":{"` + UnreadyLabel + `":"true"}}}`)
	for _, name := range names {
		if _, err := c.Client.CoreV1().Pods(ns).Patch(t.Context(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("label pod %s/%s unready: %v", ns, name, err)
		}
	}
	err := poll(t.Context(), 100*time.Millisecond, 30*time.Second, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			p, err := c.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
					return false, nil
				}
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("pods %v of %s not unready after 30s (is the kwok stage pod-unready loaded?): %v", names, ns, err)
	}
}

package reloadoneshot

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// KindOptions tune RestartKinds.
type KindOptions struct {
	// Selector is -l (empty: every opted-in workload of the namespace).
	Selector string
	// DryRun sends the patches with dryRun=All and does not wait.
	DryRun bool
	// Timeout bounds the wait for each rollout (0: 5m); Poll is the status read interval
	// (0: 1s).
	Timeout, Poll time.Duration
	// FieldManager names the writer.
	FieldManager string
}

// KindResult is what RestartKinds did for one StatefulSet or DaemonSet.
type KindResult struct {
	// Workload is the object as read.
	Workload workload.Workload
	// Decision is reload.DecideWorkload of it.
	Decision reload.Decision
	// Restarted: the restart patch was written (with DryRun: accepted by the server).
	Restarted bool
	// Adopted: seen for the first time (no checksums recorded), its checksums were recorded
	// on the object (reload.AdoptedAnnotation) without a restart.
	Adopted bool
	// Err is a refusal, a write error or a rollout that did not complete in time.
	Err error
}

// RestartKinds restarts, one at a time, the opted-in StatefulSets and DaemonSets of
// namespace whose pods see a changed key (reload.DecideWorkload; one seen for the first
// time has its checksums recorded on the object, reload.WorkloadAdoptPatch), with
// reload.WorkloadRestartPatch, and waits until kubectl's StatefulSet/DaemonSet status viewer
// (workload.Status) says the rollout is complete before the next (kubectl's OnDelete error
// ends the wait: nothing rolls until pods are deleted). Errors: a LIST failing; per
// workload errors are in its KindResult.
func RestartKinds(ctx context.Context, client kubernetes.Interface, config *cluster.Config, namespace string, o KindOptions) ([]KindResult, error) {
	ws, err := listKinds(ctx, client, namespace, o.Selector)
	if err != nil {
		return nil, err
	}
	var out []KindResult
	for _, w := range ws {
		if !reload.OptedInWorkload(w) {
			continue
		}
		r := restartKind(ctx, client, config, w, o)
		out = append(out, r)
	}
	return out, nil
}

func listKinds(ctx context.Context, client kubernetes.Interface, namespace, selector string) ([]workload.Workload, error) {
	lo := metav1.ListOptions{LabelSelector: selector}
	sts, err := client.AppsV1().StatefulSets(namespace).List(ctx, lo)
	if err != nil {
		return nil, fmt.Errorf("list statefulsets in namespace %s: %w", namespace, err)
	}
	ds, err := client.AppsV1().DaemonSets(namespace).List(ctx, lo)
	if err != nil {
		return nil, fmt.Errorf("list daemonsets in namespace %s: %w", namespace, err)
	}
	var out []workload.Workload
	for i := range sts.Items {
		out = append(out, workload.Workload{StatefulSet: &sts.Items[i]})
	}
	for i := range ds.Items {
		out = append(out, workload.Workload{DaemonSet: &ds.Items[i]})
	}
	return out, nil
}

func restartKind(ctx context.Context, client kubernetes.Interface, config *cluster.Config, w workload.Workload, o KindOptions) KindResult {
	r := KindResult{Workload: w}
	m := w.Meta()
	shim := &appsv1.Deployment{}
	shim.Namespace, shim.Spec.Template = m.GetNamespace(), *w.Template()
	objects, _, err := config.Read(ctx, shim)
	if err != nil {
		r.Err = err
		return r
	}
	r.Decision = reload.DecideWorkload(w, objects)
	if r.Decision.Refused() {
		r.Err = r.Decision.Refusal
		return r
	}
	restart := r.Decision.Stale
	if !restart && !r.Decision.FirstSight() {
		return r
	}
	build := reload.WorkloadRestartPatch
	if !restart {
		// First sight: record what the pods see now, without restarting them.
		build = reload.WorkloadAdoptPatch
	}
	patch, err := build(w, r.Decision.Checksums)
	if err != nil {
		r.Err = err
		return r
	}
	po := metav1.PatchOptions{FieldManager: o.FieldManager}
	if o.DryRun {
		po.DryRun = []string{metav1.DryRunAll}
	}
	if w.StatefulSet != nil {
		_, err = client.AppsV1().StatefulSets(m.GetNamespace()).Patch(ctx, m.GetName(), types.JSONPatchType, patch, po)
	} else {
		_, err = client.AppsV1().DaemonSets(m.GetNamespace()).Patch(ctx, m.GetName(), types.JSONPatchType, patch, po)
	}
	if err != nil {
		r.Err = fmt.Errorf("restart %s %s/%s: %w", w.Kind(), m.GetNamespace(), m.GetName(), err)
		return r
	}
	if !restart {
		r.Adopted = true
		return r
	}
	r.Restarted = true
	if !o.DryRun {
		r.Err = waitKind(ctx, client, w, o)
	}
	return r
}

// waitKind polls w until workload.Status is done (or kubectl's error) or o.Timeout passes.
func waitKind(ctx context.Context, client kubernetes.Interface, w workload.Workload, o KindOptions) error {
	timeout, poll := o.Timeout, o.Poll
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	if poll == 0 {
		poll = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m := w.Meta()
	last := ""
	for {
		var now workload.Workload
		var err error
		if w.StatefulSet != nil {
			now.StatefulSet, err = client.AppsV1().StatefulSets(m.GetNamespace()).Get(ctx, m.GetName(), metav1.GetOptions{})
		} else {
			now.DaemonSet, err = client.AppsV1().DaemonSets(m.GetNamespace()).Get(ctx, m.GetName(), metav1.GetOptions{})
		}
		if err == nil {
			v, vErr := workload.Status(now)
			if vErr != nil {
				return vErr
			}
			if v.Done {
				return v.Err
			}
			last = v.Message
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s %s/%s: rollout not complete after %s (%q): check `kubectl rollout status %s/%s`",
				w.Kind(), m.GetNamespace(), m.GetName(), timeout, last, w.Kind(), m.GetName())
		case <-time.After(poll):
		}
	}
}

package reloadoneshot

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
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

// KindTarget is one StatefulSet or DaemonSet of a one-shot reload, assessed (AssessKind)
// and not yet written.
type KindTarget struct {
	// Workload is the object as read.
	Workload workload.Workload
	// Decision is reload.DecideWorkload of it.
	Decision reload.Decision
	// Action is what the run does: ActionRestart (a recorded checksum changed; not with
	// adopt), ActionAdopt (first sight: no checksums recorded on the template or the object),
	// ActionRefuse (a non-optional reference missing) or ActionNone.
	Action reload.Action
	// Reuse is the older ControllerRevision a restart gives back (LoadReuse), nil when the
	// controller creates a new one or it was not looked up.
	Reuse *KindReuse
}

// Name is kubectl's name of the object, "statefulset.apps/NAME".
func (t *KindTarget) Name() string {
	return strings.ToLower(string(t.Workload.Kind())) + ".apps/" + t.Workload.Meta().GetName()
}

// Writes reports whether the run writes t (a restart or an adoption).
func (t *KindTarget) Writes() bool {
	return t.Action == reload.ActionRestart || t.Action == reload.ActionAdopt
}

// AssessKind reads the ConfigMaps and Secrets w's pods reference (config.Read) and decides
// (reload.DecideWorkload, then chooseKind). Errors: a read's.
func AssessKind(ctx context.Context, config *cluster.Config, w workload.Workload, adopt bool) (*KindTarget, error) {
	m := w.Meta()
	shim := &appsv1.Deployment{}
	shim.Namespace, shim.Spec.Template = m.GetNamespace(), *w.Template()
	objects, _, err := config.Read(ctx, shim)
	if err != nil {
		return nil, err
	}
	d := reload.DecideWorkload(w, objects)
	return &KindTarget{Workload: w, Decision: d, Action: chooseKind(d, adopt)}, nil
}

// chooseKind is the action of a decision: refused first; then first sight adopts (these
// kinds have no "possibly stale" evidence: their pods are taken to see the current content);
// then, unless adopt (which never restarts), a changed checksum restarts.
func chooseKind(d reload.Decision, adopt bool) reload.Action {
	switch {
	case d.Refused():
		return reload.ActionRefuse
	case d.FirstSight():
		return reload.ActionAdopt
	case d.Stale && !adopt:
		return reload.ActionRestart
	}
	return reload.ActionNone
}

// ListKinds returns the StatefulSets then the DaemonSets of namespace ("" every namespace)
// matching selector that are opted in (reload.OptedInWorkload), in the API server's order.
// Errors: a LIST failing (apierrors.IsForbidden tells a missing grant).
func ListKinds(ctx context.Context, client kubernetes.Interface, namespace, selector string) ([]workload.Workload, error) {
	ws, err := listKinds(ctx, client, namespace, selector)
	if err != nil {
		return nil, err
	}
	var out []workload.Workload
	for _, w := range ws {
		if reload.OptedInWorkload(w) {
			out = append(out, w)
		}
	}
	return out, nil
}

// GetKind reads one named StatefulSet or DaemonSet (no opt-in needed). Errors: the GET's,
// naming the object.
func GetKind(ctx context.Context, client kubernetes.Interface, ref target.KindRef) (workload.Workload, error) {
	var w workload.Workload
	var err error
	if ref.Kind == target.KindStatefulSet {
		w.StatefulSet, err = client.AppsV1().StatefulSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	} else {
		w.DaemonSet, err = client.AppsV1().DaemonSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	}
	if err != nil {
		return workload.Workload{}, fmt.Errorf("get %s %s/%s: %w", strings.ToLower(string(ref.Kind)), ref.Namespace, ref.Name, err)
	}
	return w, nil
}

// RestartKinds restarts, one at a time, the opted-in StatefulSets and DaemonSets of
// namespace whose pods see a changed key (reload.DecideWorkload; one seen for the first
// time has its checksums recorded on the object, reload.WorkloadAdoptPatch), with
// reload.WorkloadRestartPatch, and waits until kubectl's StatefulSet/DaemonSet status viewer
// (workload.Status) says the rollout is complete before the next (kubectl's OnDelete error
// ends the wait: nothing rolls until pods are deleted). Errors: a LIST failing; per
// workload errors are in its KindResult.
func RestartKinds(ctx context.Context, client kubernetes.Interface, config *cluster.Config, namespace string, o KindOptions) ([]KindResult, error) {
	ws, err := ListKinds(ctx, client, namespace, o.Selector)
	if err != nil {
		return nil, err
	}
	var out []KindResult
	for _, w := range ws {
		t, err := AssessKind(ctx, config, w, false)
		if err != nil {
			out = append(out, KindResult{Workload: w, Err: err})
			continue
		}
		out = append(out, WriteKind(ctx, client, t, o))
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

// WriteKind carries out t's action: a refusal is returned as the result's Err; a restart
// (reload.WorkloadRestartPatch) is waited for (waitKind) unless o.DryRun; an adoption
// records the checksums on the object (reload.WorkloadAdoptPatch); ActionNone writes
// nothing.
func WriteKind(ctx context.Context, client kubernetes.Interface, t *KindTarget, o KindOptions) KindResult {
	w := t.Workload
	r := KindResult{Workload: w, Decision: t.Decision}
	var build func(workload.Workload, map[string]string) ([]byte, error)
	switch t.Action {
	case reload.ActionRefuse:
		r.Err = t.Decision.Refusal
		return r
	case reload.ActionRestart:
		build = reload.WorkloadRestartPatch
	case reload.ActionAdopt:
		build = reload.WorkloadAdoptPatch
	default:
		return r
	}
	m := w.Meta()
	patch, err := build(w, t.Decision.Checksums)
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
		r.Err = fmt.Errorf("%s %s %s/%s: %w", t.Action, strings.ToLower(string(w.Kind())), m.GetNamespace(), m.GetName(), err)
		return r
	}
	if t.Action == reload.ActionAdopt {
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

// Package live is the thin I/O around package workload: it reads StatefulSets and DaemonSets
// with their ControllerRevisions and pods, and sends the patches workload decides.
package live

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// State is one workload as read: the object, its ControllerRevisions and its pods (all that
// its selector matches; workload keeps those it controls).
type State struct {
	Workload  workload.Workload
	Revisions []*appsv1.ControllerRevision
	Pods      []*corev1.Pod
}

// Get reads one StatefulSet or DaemonSet (one GET, sent again through transient failures).
// Errors: the API server's (NotFound prints as kubectl's "statefulsets.apps "db" not found").
func Get(ctx context.Context, client kubernetes.Interface, ref target.KindRef) (workload.Workload, error) {
	return kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (workload.Workload, error) {
		apps := client.AppsV1()
		if ref.Kind == target.KindStatefulSet {
			s, err := apps.StatefulSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			if err != nil {
				return workload.Workload{}, err
			}
			s.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("StatefulSet"))
			return workload.Workload{StatefulSet: s}, nil
		}
		d, err := apps.DaemonSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return workload.Workload{}, err
		}
		d.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("DaemonSet"))
		return workload.Workload{DaemonSet: d}, nil
	})
}

// Load reads ref, then its ControllerRevisions and pods (a LIST of each with its selector).
func Load(ctx context.Context, client kubernetes.Interface, ref target.KindRef) (*State, error) {
	w, err := Get(ctx, client, ref)
	if err != nil {
		return nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(w.Selector())
	if err != nil {
		return nil, fmt.Errorf("%s: invalid selector: %v", ref, err)
	}
	opts := metav1.ListOptions{LabelSelector: sel.String()}
	st := &State{Workload: w}
	revs, err := kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (*appsv1.ControllerRevisionList, error) {
		return client.AppsV1().ControllerRevisions(ref.Namespace).List(ctx, opts)
	})
	if err != nil {
		return nil, fmt.Errorf("unable to find history controlled by %s %s: %v", ref.Kind, ref.Name, err)
	}
	for i := range revs.Items {
		st.Revisions = append(st.Revisions, &revs.Items[i])
	}
	pods, err := kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (*corev1.PodList, error) {
		return client.CoreV1().Pods(ref.Namespace).List(ctx, opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list the pods of %s: %v", ref, err)
	}
	for i := range pods.Items {
		st.Pods = append(st.Pods, &pods.Items[i])
	}
	return st, nil
}

// List returns the objects of kind in namespace ("" for all) whose labels match selector
// ("" for all), as the API server orders them (one LIST, sent again through transient
// failures).
func List(ctx context.Context, client kubernetes.Interface, kind target.Kind, namespace, selector string) ([]target.KindRef, error) {
	opts := metav1.ListOptions{LabelSelector: selector}
	return kube.Read(ctx, kube.Retry{}, func(ctx context.Context) ([]target.KindRef, error) {
		var refs []target.KindRef
		if kind == target.KindStatefulSet {
			l, err := client.AppsV1().StatefulSets(namespace).List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for _, o := range l.Items {
				refs = append(refs, target.KindRef{Kind: kind, Namespace: o.Namespace, Name: o.Name})
			}
			return refs, nil
		}
		l, err := client.AppsV1().DaemonSets(namespace).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for _, o := range l.Items {
			refs = append(refs, target.KindRef{Kind: kind, Namespace: o.Namespace, Name: o.Name})
		}
		return refs, nil
	})
}

// Patch sends kubectl's strategic merge patch body to w, guarded by w's resourceVersion
// (rollout.GuardMergePatch: the API server answers Conflict when the object changed since it
// was read, and nothing is written), with o's field manager and dry run. Errors: one line
// naming the object; a changed object says to run again.
func Patch(ctx context.Context, client kubernetes.Interface, w workload.Workload, body []byte, o kube.Options) error {
	ref := w.Ref()
	guarded, err := rollout.GuardMergePatch(body, w.Meta().GetResourceVersion())
	if err != nil {
		return err
	}
	apps := client.AppsV1()
	if ref.Kind == target.KindStatefulSet {
		_, err = apps.StatefulSets(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, guarded, o.PatchOptions())
	} else {
		_, err = apps.DaemonSets(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, guarded, o.PatchOptions())
	}
	switch {
	case err == nil:
		return nil
	case apierrors.IsConflict(err):
		return fmt.Errorf("patch %s in namespace %q: it changed after it was read, nothing was written: run the command again", ref, ref.Namespace)
	default:
		return fmt.Errorf("patch %s in namespace %q: %w", ref, ref.Namespace, err)
	}
}

// Nodes lists the cluster's nodes (one LIST, sent again through transient failures under
// retry's policy): what a DaemonSet's plan needs.
func Nodes(ctx context.Context, client kubernetes.Interface, retry kube.Retry) ([]*corev1.Node, error) {
	l, err := kube.Read(ctx, retry, func(ctx context.Context) (*corev1.NodeList, error) {
		return client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	})
	if err != nil {
		return nil, fmt.Errorf("list the nodes: %w", err)
	}
	out := make([]*corev1.Node, 0, len(l.Items))
	for i := range l.Items {
		out = append(out, &l.Items[i])
	}
	return out, nil
}

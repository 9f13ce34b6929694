package cmd

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// status prints kubectl rollout status's verdict for each object, in turn; with --watch it
// follows each until done, as kubectl does (a line per change of the verdict), and ends with
// ExitTimedOut when --timeout passes first.
func (o *KindsOptions) status(ctx context.Context, client kubernetes.Interface, refs []target.KindRef) error {
	if o.Watch && o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	for _, ref := range refs {
		if err := o.statusOne(ctx, client, ref); err != nil {
			return err
		}
	}
	return nil
}

func (o *KindsOptions) statusOne(ctx context.Context, client kubernetes.Interface, ref target.KindRef) error {
	if !o.Watch {
		w, err := live.Get(ctx, client, ref)
		if err != nil {
			return err
		}
		_, err = o.verdict(ctx, client, w, &kindLast{})
		return err
	}
	lw := kindListWatch(client, ref)
	last := &kindLast{}
	_, err := watchtools.UntilWithSync(ctx, lw, kindObject(ref.Kind), nil, func(e watch.Event) (bool, error) {
		switch e.Type {
		case watch.Deleted:
			return false, fmt.Errorf("%s was deleted", ref)
		case watch.Added, watch.Modified:
		default:
			return false, nil
		}
		w, err := workload.Of(e.Object)
		if err != nil {
			return false, err
		}
		v, err := o.verdict(ctx, client, w, last)
		return v.Done, err
	})
	if ctx.Err() != nil && o.Timeout > 0 {
		return NewExitError(ExitTimedOut, fmt.Sprintf("timed out after %s waiting for the rollout of %s to finish", o.Timeout, ref))
	}
	return err
}

// kindLast is what status last printed for an object: kubectl's message and the progress
// line (with --watch, a line is printed again only when it changes).
type kindLast struct{ message, progress string }

// verdict prints kubectl's message unless it is the last one printed, then, while the
// rollout is not done, the step it is at and what the controller does next or waits for
// (pipeline.ReadKindProgress; a failed read is a warning, kubectl's verdict stands), and
// returns kubectl's error.
func (o *KindsOptions) verdict(ctx context.Context, client kubernetes.Interface, w workload.Workload, last *kindLast) (workload.Verdict, error) {
	v, err := workload.Status(w)
	if err != nil {
		return v, err
	}
	if v.Err != nil {
		return v, v.Err
	}
	if v.Message != last.message {
		fmt.Fprint(o.Out, v.Message)
		last.message = v.Message
	}
	if v.Done {
		return v, nil
	}
	p, err := pipeline.ReadKindProgress(ctx, client, w.Ref(), time.Now())
	if err != nil {
		fmt.Fprintf(o.ErrOut, "warning: %s: where the rollout stands is unknown: %v\n", w.Ref(), err)
		return v, nil
	}
	if line := printer.KindProgressLine(p); line != last.progress {
		fmt.Fprint(o.Out, line)
		last.progress = line
	}
	return v, nil
}

func kindObject(k target.Kind) runtime.Object {
	if k == target.KindStatefulSet {
		return &appsv1.StatefulSet{}
	}
	return &appsv1.DaemonSet{}
}

// kindListWatch lists and watches the one object ref names (a field selector on its name);
// it says whether the client serves watch-list (cache.ToListWatcherWithWatchListSemantics).
func kindListWatch(client kubernetes.Interface, ref target.KindRef) cache.ListerWatcher {
	sel := fields.OneTermEqualSelector("metadata.name", ref.Name).String()
	apps := client.AppsV1()
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = sel
			if ref.Kind == target.KindStatefulSet {
				return apps.StatefulSets(ref.Namespace).List(ctx, opts)
			}
			return apps.DaemonSets(ref.Namespace).List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = sel
			if ref.Kind == target.KindStatefulSet {
				return apps.StatefulSets(ref.Namespace).Watch(ctx, opts)
			}
			return apps.DaemonSets(ref.Namespace).Watch(ctx, opts)
		},
	}, client)
}

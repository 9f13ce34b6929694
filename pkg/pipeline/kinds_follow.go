package pipeline

import (
	"context"
	"errors"
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

	"github.com/rollplan/kubectl-rollplan/pkg/status"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// KindStatusEvery is how often Follow reads a followed object's status again while its
// rollout is in progress and the object does not change: the reasons a rollout waits (a
// FailedCreate event, an Unschedulable pod) and the ETA change without a change of the
// StatefulSet or DaemonSet. Deployment status reads its stall reasons as often
// (status.DiagnoseEvery).
const KindStatusEvery = status.DiagnoseEvery

// ErrKindDeleted is Follow's error when the followed object is deleted.
var ErrKindDeleted = errors.New("was deleted")

// Follow shows ref's status (Read) and returns the last one shown. It reads the object (a
// GET: an object not found is its error); without watch that is all. With watch it follows the object through a watch
// (watchtools.NewIndexerInformerWatcher on a field selector of its name: a LIST, then a
// watch; no polling of the object) and shows its status at every change of the object, and
// every KindStatusEvery while the rollout is in progress, until kubectl's verdict is done,
// kubectl's error, FailedFast, or ctx ends (then ctx's error: the caller's --timeout).
// show decides what to print of each status (it is called for every read). Errors: the
// reads', show's, ErrKindDeleted.
func (r *KindStatusReader) Follow(ctx context.Context, client kubernetes.Interface, ref target.KindRef, watchIt bool, show func(*KindStatus) error) (*KindStatus, error) {
	step := func(w workload.Workload) (*KindStatus, bool, error) {
		s, err := r.Read(ctx, w)
		if err != nil {
			return nil, true, err
		}
		if err := show(s); err != nil {
			return s, true, err
		}
		if s.Verdict.Err != nil {
			return s, true, s.Verdict.Err
		}
		return s, s.Verdict.Done || s.FailedFast, nil
	}
	w, err := live.Get(ctx, client, ref) // not found: kubectl's error, before any watch
	if err != nil {
		return nil, err
	}
	if !watchIt {
		s, _, err := step(w)
		return s, err
	}
	_, _, wi, done := watchtools.NewIndexerInformerWatcher(kindListWatch(client, ref), kindObject(ref.Kind))
	defer func() { wi.Stop(); <-done }()
	tick := time.NewTicker(KindStatusEvery)
	defer tick.Stop()
	var last *workload.Workload
	var s *KindStatus
	for {
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case e, ok := <-wi.ResultChan():
			if !ok {
				return s, fmt.Errorf("%s: the watch ended", ref)
			}
			switch e.Type {
			case watch.Deleted:
				return s, fmt.Errorf("%s %w", ref, ErrKindDeleted)
			case watch.Added, watch.Modified:
			default:
				continue
			}
			w, err := workload.Of(e.Object)
			if err != nil {
				return s, err
			}
			last = &w
		case <-tick.C:
			if last == nil {
				continue
			}
		}
		var end bool
		var err error
		if s, end, err = step(*last); end || err != nil {
			return s, err
		}
	}
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

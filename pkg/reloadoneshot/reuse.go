package reloadoneshot

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/planner/revisions"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// KindReuse is an older ControllerRevision a StatefulSet's or DaemonSet's restart gives back
// (a config rollback: the template equals one the controller already recorded, e.g. the
// adopted one once the config is restored as it was at adoption). The controller reuses it,
// keeping its name and hash, and renumbers it.
type KindReuse struct {
	// Name is the ControllerRevision's name.
	Name string
	// PreviousRevision is its number before the restart; Revision the number it gets.
	PreviousRevision, Revision int64
}

// ReuseOf is the revision t's restart reuses, nil when the controller creates a new one
// (or t is no restart). revs are the ControllerRevisions t's workload owns. It resolves the
// restarted template (reload.RestartedWorkload) as the controller does
// (revisions.ResolveStatefulSet / ResolveDaemonSet, mirroring v1.36.3). Errors: the
// resolver's.
func ReuseOf(t *KindTarget, revs []*appsv1.ControllerRevision) (*KindReuse, error) {
	if t.Action != reload.ActionRestart {
		return nil, nil
	}
	after := reload.RestartedWorkload(t.Workload, t.Decision.Checksums)
	var action revisions.Action
	var update *appsv1.ControllerRevision
	if after.StatefulSet != nil {
		res, err := revisions.ResolveStatefulSet(after.StatefulSet, revs)
		if err != nil {
			return nil, err
		}
		action, update = res.Action, res.Update
	} else {
		res, err := revisions.ResolveDaemonSet(after.DaemonSet, revs)
		if err != nil {
			return nil, err
		}
		action, update = res.Action, res.Current
	}
	if action != revisions.Reused || update == nil {
		return nil, nil
	}
	r := &KindReuse{Name: update.Name, Revision: update.Revision}
	for _, old := range revs {
		if old.Name == update.Name {
			r.PreviousRevision = old.Revision
		}
	}
	return r, nil
}

// LoadReuse lists the ControllerRevisions t's workload owns (its selector, then its
// controller reference) and sets t.Reuse (ReuseOf). Nothing is read unless t is a restart.
// Errors: the LIST's, naming the workload; the resolver's.
func LoadReuse(ctx context.Context, client kubernetes.Interface, t *KindTarget) error {
	if t.Action != reload.ActionRestart {
		return nil
	}
	m := t.Workload.Meta()
	sel, err := metav1.LabelSelectorAsSelector(t.Workload.Selector())
	if err != nil {
		return fmt.Errorf("%s: invalid selector: %v", t.Name(), err)
	}
	list, err := client.AppsV1().ControllerRevisions(m.GetNamespace()).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return fmt.Errorf("list the controllerrevisions of %s in namespace %s: %w", t.Name(), m.GetNamespace(), err)
	}
	var owned []*appsv1.ControllerRevision
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == m.GetUID() {
			owned = append(owned, &list.Items[i])
		}
	}
	t.Reuse, err = ReuseOf(t, owned)
	return err
}

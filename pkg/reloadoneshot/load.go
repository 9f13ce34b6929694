package reloadoneshot

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Load reads the Deployments sel selects, each with its ReplicaSets (cluster.LoadLive): the named ones
// (no opt-in needed), or, for -l/--all/-A, the opted-in ones (reload.OptedIn) of the LIST, in
// the API server's order. Every read goes through kube.Read: sent again whole through
// transient failures of the API server.
func Load(ctx context.Context, client kubernetes.Interface, sel *target.Selection) ([]*cluster.State, error) {
	var refs []target.Ref
	if sel.Bulk() {
		// One paginated LIST, sent again whole through transient failures (List: kube.Read).
		deps, err := sel.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range deps {
			if reload.OptedIn(d) {
				refs = append(refs, target.Ref{Namespace: d.Namespace, Name: d.Name})
			}
		}
	} else {
		var err error
		if refs, err = sel.Resolve(ctx); err != nil {
			return nil, err
		}
	}
	states := make([]*cluster.State, 0, len(refs))
	for _, r := range refs {
		st, err := kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (*cluster.State, error) {
			return cluster.LoadLive(ctx, client, r.Namespace, r.Name)
		})
		if err != nil {
			return nil, err
		}
		states = append(states, st)
	}
	return states, nil
}

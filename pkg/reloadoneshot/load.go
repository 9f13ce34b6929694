package reloadoneshot

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Load reads the Deployments sel selects, each with its ReplicaSets, through the one Select
// (pipeline.SelectionOf, Live.Select): the named ones (no opt-in needed; a GET and a LIST
// each), or, for -l/--all/-A, the opted-in ones (reload.OptedIn) of two paginated LISTs
// (Deployments, ReplicaSets), in the API server's order. Every read is sent again whole
// through transient failures of the API server (kube.Read). Errors: the selection's, a failed
// LIST, the first named Deployment that could not be read (the API's error).
func Load(ctx context.Context, client kubernetes.Interface, sel *target.Selection) ([]*cluster.State, error) {
	ps, err := pipeline.SelectionOf(ctx, sel)
	if err != nil {
		return nil, err
	}
	src := pipeline.NewLive("", "", func() (kubernetes.Interface, error) { return client, nil })
	members, err := src.Select(ctx, ps)
	if err != nil {
		return nil, err
	}
	states, failed := actedOn(members, ps.Bulk)
	if failed != nil {
		return nil, failed.Err
	}
	return states, nil
}

// actedOn returns the states of members a reload acts on: every named Deployment, and of a
// Bulk selection (-l, --all, -A) the opted-in ones (reload.OptedIn), in order; failed is the
// first member that could not be read (nil when none).
func actedOn(members []pipeline.Member, bulk bool) (states []*cluster.State, failed *pipeline.Member) {
	for i := range members {
		m := &members[i]
		switch {
		case m.Err != nil:
			return nil, m
		case !bulk || reload.OptedIn(m.State.Deployment):
			states = append(states, m.State)
		}
	}
	return states, nil
}

// failure is a member's read error naming its Deployment (with its namespace), for output
// that mixes several contexts or namespaces.
func failure(m *pipeline.Member) error {
	return fmt.Errorf("%s: %w", target.DeploymentName(m.Namespace, m.Name, true), m.Err)
}

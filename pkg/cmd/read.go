package cmd

import (
	"context"
	"sync"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// loadLive is cluster.LoadLive (one GET, one LIST) through transient failures of the API
// server (kube.IsTransient: a restart, 5xx, 429, a refused or reset connection), retried
// with the one policy of the writes, kube.Retry: kube.TransientBackoff until
// kube.TransientTimeout (30s) after the first attempt. A read is sent again whole; it
// changes nothing, so sending it twice is harmless.
//
// Errors: LoadLive's (not found, forbidden: at once); after retries, the last transient
// one with "(gave up after N attempts in D)"; ctx's end.
func loadLive(ctx context.Context, client kubernetes.Interface, namespace, name string) (*cluster.State, error) {
	return kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (*cluster.State, error) {
		return cluster.LoadLive(ctx, client, namespace, name)
	})
}

// fleetCache is what readFleet has read, by namespace. The zero value is empty; safe for
// concurrent use.
type fleetCache struct {
	mu      sync.Mutex
	members map[string][]cluster.Member
}

// readFleet returns the Deployments of namespace ns with their State:
// pipeline.Live.ReadNamespace (two paginated LISTs, retried) the first time, then what that
// read returned, so the parts of one preview that need a namespace read it once. Errors:
// ReadNamespace's (not kept: the next call reads again).
func (o *PreviewOptions) readFleet(ctx context.Context, ns string) ([]cluster.Member, error) {
	o.fleets.mu.Lock()
	defer o.fleets.mu.Unlock()
	if members, ok := o.fleets.members[ns]; ok {
		return members, nil
	}
	members, err := pipeline.NewLive("", "", o.Client).ReadNamespace(ctx, ns, o.Fleet.Select.ChunkSize)
	if err != nil {
		return nil, err
	}
	if o.fleets.members == nil {
		o.fleets.members = map[string][]cluster.Member{}
	}
	o.fleets.members[ns] = members
	return members, nil
}

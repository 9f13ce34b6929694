package cmd

import (
	"context"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
)

// loadLive is pipeline.LoadLive: one Deployment's live state (one GET, one LIST), sent again
// through transient failures of the API server.
var loadLive = pipeline.LoadLive

// fleetCache is what readFleet has read, by namespace (pipeline.NamespaceCache).
type fleetCache = pipeline.NamespaceCache

// readFleet returns the Deployments of namespace ns with their State, read once for the
// preview (pipeline.NamespaceCache.Read). Errors: ReadNamespace's (not kept).
func (o *PreviewOptions) readFleet(ctx context.Context, ns string) (pipeline.NamespaceMembers, error) {
	return o.fleets.Read(ctx, pipeline.NewLive("", "", o.Client), ns, o.Fleet.Select.ChunkSize)
}

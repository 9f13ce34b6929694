package pipeline

import (
	"context"
	"sync"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
)

// NamespaceCache is what Read has read, by namespace, so that the parts of one preview that
// need a namespace read it once. The zero value is empty; safe for concurrent use.
type NamespaceCache struct {
	mu      sync.Mutex
	members map[string][]cluster.Member
}

// Read returns the Deployments of namespace ns with their State: src.ReadNamespace (two
// paginated LISTs of chunk items a page, retried) the first time, then what that read
// returned. Errors: ReadNamespace's (not kept: the next call reads again).
func (c *NamespaceCache) Read(ctx context.Context, src *Live, ns string, chunk int64) ([]cluster.Member, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if members, ok := c.members[ns]; ok {
		return members, nil
	}
	members, err := src.ReadNamespace(ctx, ns, chunk)
	if err != nil {
		return nil, err
	}
	if c.members == nil {
		c.members = map[string][]cluster.Member{}
	}
	c.members[ns] = members
	return members, nil
}

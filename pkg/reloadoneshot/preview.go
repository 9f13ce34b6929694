package reloadoneshot

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// ConfigPreview is what applying ConfigMap and Secret manifests would restart.
type ConfigPreview struct {
	// Changes are the objects, live and as a dry run stores them, in manifest order.
	Changes []*cluster.ConfigChange
	// Targets are the Deployments of the objects' namespaces whose pods would see a changed
	// key, each with the restart's plan (Action restart), in the API server's order.
	Targets []*Target
}

// FleetReader returns every live Deployment of a namespace with its State, as
// cluster.LoadFleet does (one paginated LIST of Deployments and one of ReplicaSets).
type FleetReader func(ctx context.Context, namespace string) ([]cluster.Member, error)

// PreviewConfig dry-runs each object (cluster.DryRunConfig: nothing is persisted), then
// reads the Deployments of their namespaces (read, one call per namespace; nil is
// cluster.LoadFleet, so a caller that has read a namespace already passes its reader) and
// keeps those whose pods see a changed key of some object (reload.ChangesFor), each with its
// decision over the objects as they would be (the live ones, overlaid with the dry-run
// results) and the plan of the restart that follows. Errors: a dry run's, a read's or a
// plan's.
func PreviewConfig(ctx context.Context, client kubernetes.Interface, objs []*unstructured.Unstructured, readiness planner.Readiness, read FleetReader) (*ConfigPreview, error) {
	if read == nil {
		read = func(ctx context.Context, ns string) ([]cluster.Member, error) {
			return cluster.LoadFleet(ctx, client, cluster.Scope{Namespace: ns})
		}
	}
	p := &ConfigPreview{}
	var namespaces []string
	for _, obj := range objs {
		c, err := cluster.DryRunConfig(ctx, client, obj)
		if err != nil {
			return nil, err
		}
		p.Changes = append(p.Changes, c)
		if !slices.Contains(namespaces, c.Key.Namespace) {
			namespaces = append(namespaces, c.Key.Namespace)
		}
	}
	config := cluster.NewConfig(client)
	for _, ns := range namespaces {
		members, err := read(ctx, ns)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			seen := p.changedBy(m.State)
			if m.Err != nil || len(seen) == 0 {
				continue
			}
			t, err := p.target(ctx, config, m.State, readiness)
			if err != nil {
				return nil, err
			}
			t.Reason = "its pods would see a changed key of " + strings.Join(seen, ", ")
			p.Targets = append(p.Targets, t)
		}
	}
	return p, nil
}

// changedBy names the objects (reload.Ref.AnnotationKey) of which st's pods would see a
// changed key.
func (p *ConfigPreview) changedBy(st *cluster.State) []string {
	var out []string
	for _, c := range p.Changes {
		if c.Key.Namespace != st.Deployment.Namespace {
			continue
		}
		if ref, changed := reload.ChangesFor(st.Deployment, c.Before, c.After); changed {
			out = append(out, ref.AnnotationKey())
		}
	}
	return out
}

// target decides st over the objects as they would be and plans the restart.
func (p *ConfigPreview) target(ctx context.Context, config *cluster.Config, st *cluster.State, readiness planner.Readiness) (*Target, error) {
	objects, _, err := config.Read(ctx, st.Deployment)
	if err != nil {
		return nil, err
	}
	for _, c := range p.Changes {
		if c.After != nil {
			objects[c.Key] = *c.After
		}
	}
	t := &Target{State: st, Decision: reload.Decide(st.Deployment, objects), Action: reload.ActionRestart}
	if t.Decision.Refused() {
		return t, nil
	}
	t.Desired = reload.Restarted(st.Deployment, t.Decision.Checksums)
	if t.Plan, err = rollout.Plan(t.Desired, st.ReplicaSets, readiness); err != nil {
		return nil, err
	}
	return t, nil
}

package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// The listings shell completion offers (kubectl-rollplan __complete): namespace, Deployment and
// revision names, read with one or two API calls. pkg/cmd wires them to cobra; each returns the
// candidates and the first error, and the caller bounds ctx (a shell waits on it).

// NamespaceNames returns the names of the cluster's namespaces, sorted (one LIST;
// cluster.NamespaceNames). Errors name the LIST that failed.
func NamespaceNames(ctx context.Context, client kubernetes.Interface) ([]string, error) {
	return cluster.NamespaceNames(ctx, client)
}

// CompleteDeploymentNames lists the Deployments of namespace ns (one LIST) and returns those
// whose name starts with the name part of toComplete (target.SplitPrefix), sorted, with
// toComplete's "deploy/" prefix (if any) put back. A toComplete with another resource prefix
// ("pod/") gives nothing and asks nothing.
func CompleteDeploymentNames(ctx context.Context, client kubernetes.Interface, ns, toComplete string) ([]string, error) {
	prefix, partial, ok := target.SplitPrefix(toComplete)
	if !ok {
		return nil, nil
	}
	names, err := cluster.DeploymentNames(ctx, client, ns)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		if !strings.HasPrefix(name, partial) {
			continue
		}
		if prefix != "" {
			out = append(out, prefix+"/"+name)
		} else {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// CompleteRevisions returns the revisions of Deployment ns/name that start with toComplete,
// newest first, as "REVISION<TAB>IMAGES", "(current)" marking the revision of the Deployment's
// own revision annotation. The ReplicaSets are those the Deployment already controls
// (cluster.LoadLive, then State.Owned: one GET, one LIST; orphans are left out). ReplicaSets without a numeric revision annotation are skipped.
func CompleteRevisions(ctx context.Context, client kubernetes.Interface, ns, name, toComplete string) ([]string, error) {
	state, err := cluster.LoadLive(ctx, client, ns, name)
	if err != nil {
		return nil, fmt.Errorf("get deployment %s/%s and its replicasets: %w", ns, name, err)
	}
	d, owned := state.Deployment, state.Owned()
	type rev struct {
		n      int64
		images string
	}
	var revs []rev
	for _, rs := range owned {
		n, err := deployutil.Revision(rs)
		if err != nil || n <= 0 {
			continue
		}
		var images []string
		for _, c := range rs.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
		revs = append(revs, rev{n: n, images: strings.Join(images, ",")})
	}
	slices.SortFunc(revs, func(a, b rev) int { return cmp.Compare(b.n, a.n) })
	current := d.Annotations[deployutil.RevisionAnnotation]
	var out []string
	for _, r := range revs {
		s := strconv.FormatInt(r.n, 10)
		if !strings.HasPrefix(s, toComplete) {
			continue
		}
		desc := r.images
		if s == current {
			desc += " (current)"
		}
		out = append(out, s+"\t"+desc)
	}
	return out, nil
}

package cluster

import (
	"context"
	"fmt"
	"io"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// LoadFileAll reads a state file as LoadFile does and returns the State of every Deployment
// in it, in the file's order, each with the ReplicaSets its controller claims among the
// file's (the rules of LoadReader). path "-" reads standard input. A file with no Deployment
// gives an empty list, not an error: every Deployment a manifest set names is then a create.
//
// Errors: those of LoadReader's decoding (one line, naming the file, the document and the
// line), and a Deployment whose selector is missing or invalid.
func LoadFileAll(path string) ([]*State, error) {
	if path == "-" {
		return LoadReaderAll(os.Stdin, "<stdin>")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read state file: %w", err)
	}
	defer f.Close()
	return LoadReaderAll(f, path)
}

// LoadReaderAll is LoadFileAll of r; source names it in errors and in State.Source.
func LoadReaderAll(r io.Reader, source string) ([]*State, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", source, err)
	}
	objs, err := decodeObjects(data, source)
	if err != nil {
		return nil, err
	}
	var ds []*appsv1.Deployment
	var rss []*appsv1.ReplicaSet
	for _, o := range objs {
		switch {
		case o.d != nil:
			ds = append(ds, o.d)
		case o.rs != nil:
			rss = append(rss, o.rs)
		}
	}
	return group(ds, rss, source)
}

// ListNamespace reads every Deployment of namespace and the ReplicaSets their controller
// claims with one LIST of Deployments and one LIST of ReplicaSets (whatever the number of
// Deployments), and returns one State per Deployment, ordered by name.
//
// Errors: those of LoadLive's reads (one line naming the verb and the resource; the API
// status stays reachable with apierrors).
func ListNamespace(ctx context.Context, client kubernetes.Interface, namespace string) ([]*State, error) {
	dl, err := client.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, liveError("list", "deployments", namespace, "", err)
	}
	rl, err := client.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, liveError("list", "replicasets", namespace, "", err)
	}
	ds := make([]*appsv1.Deployment, 0, len(dl.Items))
	for i := range dl.Items {
		ds = append(ds, &dl.Items[i])
	}
	rss := make([]*appsv1.ReplicaSet, 0, len(rl.Items))
	for i := range rl.Items {
		rss = append(rss, &rl.Items[i])
	}
	return group(ds, rss, "cluster")
}

// group builds the State of each Deployment from the ReplicaSets of candidates its controller
// claims (newState). A ReplicaSet may appear in several States only as Foreign or as an orphan
// two Deployments would race to adopt, as in the cluster.
func group(ds []*appsv1.Deployment, candidates []*appsv1.ReplicaSet, source string) ([]*State, error) {
	out := make([]*State, 0, len(ds))
	for _, d := range ds {
		s, err := newState(d, candidates, source)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		out = append(out, s)
	}
	return out, nil
}

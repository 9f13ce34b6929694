package cluster

import (
	"fmt"
	"io"
	"os"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
)

// LoadFileAll reads a state file as LoadFile does and returns every Deployment in it, in the
// file's order, each with the ReplicaSets its controller claims among the file's
// (GroupReplicaSets, the rules of LoadReader): what LoadFleet returns of a cluster. path "-"
// reads standard input. A file with no Deployment gives an empty list, not an error: every
// Deployment a manifest set names is then a create.
//
// Errors: those of LoadReader's decoding (one line, naming the file, the document and the
// line); a Deployment whose selector is missing or invalid is a Member with Err.
func LoadFileAll(path string) ([]Member, error) {
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
func LoadReaderAll(r io.Reader, source string) ([]Member, error) {
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
	members := GroupReplicaSets(ds, rss, source)
	byNamespace := map[string]*feasibility.Cluster{}
	for _, m := range members {
		if m.State == nil {
			continue
		}
		ns := m.Deployment.Namespace
		if byNamespace[ns] == nil {
			byNamespace[ns] = checkObjectsOf(objs, ns, source)
		}
		m.State.CheckObjects = byNamespace[ns]
	}
	return members, nil
}

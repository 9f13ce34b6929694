//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// kindSetManifest is a Deployment web (2 replicas), a StatefulSet db (2 replicas) and a
// DaemonSet agent on fake-node-1 only (no toleration: other tests' tainted nodes get no
// pod), every container running image.
func kindSetManifest(image string) string {
	tmpl := `
    metadata: {labels: {app: %s}}
    spec:
      nodeSelector: {kubernetes.io/hostname: fake-node-1}
      containers: [{name: app, image: "` + image + `"}]`
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:` + fmt.Sprintf(tmpl, "web") + `
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: db}}
  template:` + fmt.Sprintf(tmpl, "db") + `
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:` + fmt.Sprintf(tmpl, "agent") + `
`
}

// previewSet runs `preview -f FILE -n ns -o json ARGS...` and returns the list's items by
// workload ("deployment/NAME" for a Deployment).
func previewSet(t *testing.T, c *framework.Cluster, ns, file string, args ...string) map[string]v1alpha1.RolloutPlan {
	t.Helper()
	res := c.Plugin(t, append([]string{"preview", "-f", file, "-n", ns, "-o", "json"}, args...)...)
	var l v1alpha1.RolloutPlanList
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &l) != nil {
		t.Fatalf("preview -f %s %v: exit %d\n%s\n%s", file, args, res.ExitCode, res.Stdout, res.Stderr)
	}
	out := map[string]v1alpha1.RolloutPlan{}
	for _, p := range l.Items {
		key := "deployment/" + p.Deployment.Name
		if p.Workload != nil {
			key = strings.ToLower(p.Workload.Kind) + "/" + p.Workload.Name
			if p.Workload.Namespace != ns {
				t.Errorf("%s: namespace %q, want %q", key, p.Workload.Namespace, ns)
			}
		}
		out[key] = p
	}
	if len(out) != 3 {
		t.Fatalf("preview -f %s: %d plans, want web, db and agent: %v", file, len(out), out)
	}
	return out
}

// podOps is a plan's pod operations as "Action POD NODE rREVISION", in order.
func podOps(p v1alpha1.RolloutPlan) []string {
	var out []string
	for _, op := range p.PodOperations {
		out = append(out, fmt.Sprintf("%s %s %s r%d", op.Action, op.Pod, op.Node, op.RevisionNumber))
	}
	return out
}

// TestPreviewKindsManifestSet previews a manifest set holding a Deployment, a StatefulSet and
// a DaemonSet: before they exist (every pod created), once applied (no pod operation), and an
// image change (the StatefulSet's ordinals from the highest down, the DaemonSet's pod per
// node), live and from `kubectl get ... -o yaml` of the same objects (the same plans).
func TestPreviewKindsManifestSet(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	ns := c.Namespace(t)
	dir := t.TempDir()
	v1, v2 := filepath.Join(dir, "v1.yaml"), filepath.Join(dir, "v2.yaml")
	for path, image := range map[string]string{v1: "nginx:1.18", v2: "nginx:1.19"} {
		if err := os.WriteFile(path, []byte(kindSetManifest(image)), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	fresh := previewSet(t, c, ns, v1)
	if got := podOps(fresh["statefulset/db"]); !cmp.Equal(got, []string{"Create db-0  r1", "Create db-1  r1"}) {
		t.Errorf("new StatefulSet: pod operations %v, want db-0 and db-1 created at revision 1", got)
	}
	if got := podOps(fresh["daemonset/agent"]); !cmp.Equal(got, []string{"Create  fake-node-1 r1"}) {
		t.Errorf("new DaemonSet: pod operations %v, want one pod created on fake-node-1", got)
	}
	if res := c.Kubectl(t, "apply", "-n", ns, "-f", v1); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	for _, ref := range []string{"sts/db", "ds/agent", "deploy/web"} {
		if res := c.Kubectl(t, "-n", ns, "rollout", "status", ref, "--timeout", "40s"); res.ExitCode != 0 {
			t.Fatalf("rollout status %s: %s", ref, res.Stderr)
		}
	}
	same := previewSet(t, c, ns, v1)
	for _, key := range []string{"statefulset/db", "daemonset/agent"} {
		if p := same[key]; len(p.PodOperations) != 0 || p.UpdateRevision != fresh[key].UpdateRevision {
			t.Errorf("%s applied unchanged: pod operations %v, update revision %s (predicted %s)", key, podOps(p), p.UpdateRevision, fresh[key].UpdateRevision)
		}
	}

	live := previewSet(t, c, ns, v2)
	sts, ds := live["statefulset/db"], live["daemonset/agent"]
	if want := []string{"Delete db-1  r1", "Create db-1  r2", "Delete db-0  r1", "Create db-0  r2"}; !cmp.Equal(podOps(sts), want) {
		t.Errorf("StatefulSet image change: pod operations %v, want %v", podOps(sts), want)
	}
	if len(ds.PodOperations) != 2 || ds.PodOperations[0].Action != "Delete" || ds.PodOperations[1].Action != "Create" ||
		ds.PodOperations[0].Node != "fake-node-1" || ds.PodOperations[1].Node != "fake-node-1" || ds.PodOperations[1].RevisionNumber != 2 {
		t.Errorf("DaemonSet image change: pod operations %v, want fake-node-1's pod deleted then created at revision 2", podOps(ds))
	}
	if web := live["deployment/web"]; web.NewReplicaSet.Revision != 2 {
		t.Errorf("Deployment: new ReplicaSet revision %d, want 2", web.NewReplicaSet.Revision)
	}

	res := c.Kubectl(t, "get", "-n", ns, "sts,ds,controllerrevisions,pods,nodes,deploy,rs", "-o", "yaml")
	state := filepath.Join(dir, "state.yaml")
	if res.ExitCode != 0 || os.WriteFile(state, []byte(res.Stdout), 0o600) != nil {
		t.Fatalf("kubectl get -o yaml: %s", res.Stderr)
	}
	offline := previewSet(t, c, ns, v2, "--state-file", state)
	for _, key := range []string{"statefulset/db", "daemonset/agent"} {
		l, f := live[key], offline[key]
		l.Nodes, f.Nodes = nil, nil // other tests' nodes come and go
		if diff := cmp.Diff(l, f); diff != "" {
			t.Errorf("%s: --state-file plan differs from live (-live +file):\n%s", key, diff)
		}
	}
	for _, ref := range []string{"sts/db", "ds/agent"} {
		one := c.Plugin(t, "preview", ref, "-n", ns, "--image", "app=nginx:1.19", "--state-file", state, "-o", "json")
		var p v1alpha1.RolloutPlan
		if one.ExitCode != 0 || json.Unmarshal([]byte(one.Stdout), &p) != nil {
			t.Fatalf("preview %s --state-file: exit %d\n%s", ref, one.ExitCode, one.Stderr)
		}
		key := map[string]string{"sts/db": "statefulset/db", "ds/agent": "daemonset/agent"}[ref]
		if !cmp.Equal(podOps(p), podOps(live[key])) || p.UpdateRevision != live[key].UpdateRevision {
			t.Errorf("preview %s --image --state-file: %v %s, want the manifest's %v %s", ref, podOps(p), p.UpdateRevision, podOps(live[key]), live[key].UpdateRevision)
		}
	}
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// requestLine matches a request in client-go's log at -v=6, in both of its forms:
// `GET https://host/path?query 200 OK in 3 milliseconds` and
// `"Response" verb="GET" url="https://host/path?query" status="200 OK"`.
var requestLine = regexp.MustCompile(`(?:^|\s|verb=")(GET|POST|PUT|PATCH|DELETE)"?\s+(?:url=")?https?://[^/\s"]+(/[^\s"]*)`)

// requests returns the API requests a command logged at -v=6 ("GET /apis/...?..."), in order.
func requests(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if m := requestLine.FindStringSubmatch(line); m != nil {
			out = append(out, m[1]+" "+m[2])
		}
	}
	return out
}

// createFleet creates n Deployments named prefix-0.. in ns with labels, 0 replicas, each with
// old ReplicaSets (revisions 1..olds, 0 replicas) made as orphans first, so the controller
// adopts them and creates revision olds+1 itself. Creates run concurrently (workers).
func createFleet(t testing.TB, c *framework.Cluster, ns, prefix string, n, olds, workers int, labels map[string]string) {
	t.Helper()
	createFleetWith(t, c.Client, ns, prefix, n, olds, workers, labels)
}

// createFleetWith is createFleet through client.
func createFleetWith(t testing.TB, client kubernetes.Interface, ns, prefix string, n, olds, workers int, labels map[string]string) {
	t.Helper()
	jobs := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := createOne(t, client, ns, fmt.Sprintf("%s-%d", prefix, i), olds, labels); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func createOne(t testing.TB, client kubernetes.Interface, ns, name string, olds int, labels map[string]string) error {
	ctx := t.Context()
	b := framework.NewDeployment(name).Replicas(0)
	d := b.Build()
	d.Namespace = ns
	for k, v := range labels {
		d.Labels[k] = v
	}
	for rev := 1; rev <= olds; rev++ {
		hash := fmt.Sprintf("old%d", rev)
		tmpl := d.Spec.Template.DeepCopy()
		tmpl.Labels["pod-template-hash"] = hash
		tmpl.Spec.Containers[0].Image = fmt.Sprintf("nginx:1.%d", rev)
		rs := &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{
				Name: name + "-" + hash, Namespace: ns, Labels: tmpl.Labels,
				Annotations: map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(rev)},
			},
			Spec: appsv1.ReplicaSetSpec{
				Replicas: ptr.To[int32](0),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name, "pod-template-hash": hash}},
				Template: *tmpl,
			},
		}
		if _, err := client.AppsV1().ReplicaSets(ns).Create(ctx, rs, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create replicaset %s/%s: %w", ns, rs.Name, err)
		}
	}
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create deployment %s/%s: %w", ns, name, err)
	}
	return nil
}

// waitSettled waits until want ReplicaSets of ns have a controller: the Deployment
// controller adopted the old ones and made the new ones. It waits at most 5 minutes plus 50ms
// per ReplicaSet (the controller adopts and creates them a few at a time).
func waitSettled(t testing.TB, c *framework.Cluster, ns string, want int) {
	t.Helper()
	limit := 5*time.Minute + time.Duration(want)*50*time.Millisecond
	deadline := time.Now().Add(limit)
	for {
		rss, err := c.Client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		owned := 0
		for i := range rss.Items {
			if metav1.GetControllerOf(&rss.Items[i]) != nil {
				owned++
			}
		}
		if owned == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("namespace %s: %d of %d ReplicaSets owned after %s", ns, owned, want, limit)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// planList runs preview with args and -o json and decodes the RolloutPlanList.
func planList(t *testing.T, c *framework.Cluster, args ...string) *v1alpha1.RolloutPlanList {
	t.Helper()
	res := c.Plugin(t, append([]string{"preview", "-o", "json"}, args...)...)
	if res.ExitCode != 0 {
		t.Fatalf("preview %v: exit %d\nstderr: %s", args, res.ExitCode, res.Stderr)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(res.Stdout), &l); err != nil || l.Kind != "RolloutPlanList" {
		t.Fatalf("preview %v: kind %q, %v\n%s", args, l.Kind, err, res.Stdout)
	}
	return &l
}

func planNames(l *v1alpha1.RolloutPlanList) []string {
	var out []string
	for _, p := range l.Items {
		out = append(out, p.Deployment.Namespace+"/"+p.Deployment.Name+" "+p.Outcome)
	}
	return out
}

// TestFleetAllNamespaces: -A -l previews the selected Deployments of two namespaces, in the
// API server's order, each exactly as preview of that one Deployment plans it.
func TestFleetAllNamespaces(t *testing.T) {
	c := framework.Get(t)
	nsA, nsB := c.Namespace(t), c.Namespace(t)
	mark := map[string]string{"fleet": nsA[len(nsA)-5:]}
	createFleet(t, c, nsA, "a", 2, 1, 2, mark)
	createFleet(t, c, nsB, "b", 2, 1, 2, mark)
	createFleet(t, c, nsB, "other", 1, 0, 1, nil)
	waitSettled(t, c, nsA, 4)
	waitSettled(t, c, nsB, 5)
	l := planList(t, c, "-A", "-l", "fleet="+mark["fleet"])
	want := []string{nsA + "/a-0 NoChange", nsA + "/a-1 NoChange", nsB + "/b-0 NoChange", nsB + "/b-1 NoChange"}
	slices.Sort(want)
	if d := cmp.Diff(want, planNames(l)); d != "" {
		t.Errorf("plans (-want +got):\n%s", d)
	}
	for _, p := range l.Items {
		one := previewPlan(t, c, p.Deployment.Namespace, p.Deployment.Name)
		if d := cmp.Diff(one, &p); d != "" {
			t.Errorf("%s/%s: the list's plan differs from preview of that Deployment (-one +list):\n%s", p.Deployment.Namespace, p.Deployment.Name, d)
		}
		if len(p.ReplicaSets) != 2 || p.NewReplicaSet.Revision != 2 {
			t.Errorf("%s/%s: %d ReplicaSets, new revision %d; want the adopted old one and revision 2", p.Deployment.Namespace, p.Deployment.Name, len(p.ReplicaSets), p.NewReplicaSet.Revision)
		}
	}
}

// TestFleetPreviewAllRequests: preview --all of a namespace of 50 Deployments and 150
// ReplicaSets sends only the paginated LISTs (pages of --chunk-size 20: 3 of Deployments, 8
// of ReplicaSets) and the feasibility checks' one LIST per kind, never a request per
// Deployment, and plans every Deployment. The small version of make bench-fleet.
func TestFleetPreviewAllRequests(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	createFleet(t, c, ns, "d", 50, 2, 8, nil)
	waitSettled(t, c, ns, 150)
	res := c.Plugin(t, "preview", "--all", "-n", ns, "--chunk-size", "20", "--summary", "-v=6")
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, lastLines(res.Stderr, 20))
	}
	var want []string
	for _, r := range []struct {
		resource string
		pages    int
	}{{"deployments", 3}, {"replicasets", 8}} {
		for i := range r.pages {
			q := "limit=20"
			if i > 0 {
				q = "continue="
			}
			want = append(want, fmt.Sprintf("GET /apis/apps/v1/namespaces/%s/%s?%s", ns, r.resource, q))
		}
	}
	got := requests(res.Stderr)
	// The feasibility checks (on by default) add one LIST per kind: the namespace's quotas,
	// limitranges, PDBs and HPAs, and the cluster's nodes and pods (capacity; quota finds the
	// namespace's pods among them), whatever the number of Deployments; their order is not
	// part of the contract.
	const live = "fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed&limit=500"
	wantChecks := []string{
		fmt.Sprintf("GET /api/v1/namespaces/%s/resourcequotas?limit=500", ns),
		fmt.Sprintf("GET /api/v1/namespaces/%s/limitranges?limit=500", ns),
		fmt.Sprintf("GET /apis/policy/v1/namespaces/%s/poddisruptionbudgets?limit=500", ns),
		fmt.Sprintf("GET /apis/autoscaling/v2/namespaces/%s/horizontalpodautoscalers?limit=500", ns),
		"GET /api/v1/nodes?limit=500",
		"GET /api/v1/pods?" + live,
	}
	var trimmed, checks []string
	for _, g := range got {
		if !strings.HasPrefix(g, "GET /apis/apps/") {
			checks = append(checks, g)
			continue
		}
		if j := strings.Index(g, "continue="); j >= 0 {
			g = g[:j+len("continue=")]
		}
		trimmed = append(trimmed, g)
	}
	if d := cmp.Diff(want, trimmed); d != "" {
		t.Errorf("requests (-want +got):\n%s\nall: %q", d, got)
	}
	slices.Sort(checks)
	slices.Sort(wantChecks)
	if d := cmp.Diff(wantChecks, checks); d != "" {
		t.Errorf("the checks' requests (-want +got):\n%s\nall: %q", d, got)
	}
	if rows := strings.Count(res.Stdout, "\n") - 1; rows != 50 || strings.Count(res.Stdout, "NoChange") != 50 {
		t.Errorf("%d rows:\n%s", rows, res.Stdout)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestFleetSelectorInFlight: -l previews the rest of a rollout in flight for one Deployment
// and NoChange for a settled one, each the plan preview of that Deployment makes; history -l
// gives each selected Deployment's history, as history of that Deployment does.
func TestFleetSelectorInFlight(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	web := heldDeployment(t, c, ns, framework.NewDeployment("web").Replicas(4).RollingUpdate("25%", "25%"))
	api := c.CreateDeployment(t, ns, framework.NewDeployment("api").Replicas(1))
	c.CreateDeployment(t, ns, framework.NewDeployment("other").Replicas(1))
	c.WaitForRollout(t, ns, api.Name, time.Minute)
	for _, name := range []string{"web", "api"} {
		c.UpdateDeployment(t, ns, name, func(d *appsv1.Deployment) { d.Labels["tier"] = "front" })
	}
	// web's new pods stay unready: its rollout is in flight.
	c.UpdateDeployment(t, ns, web.Name, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	if err := pollInFlight(t, c, ns, "web"); err != nil {
		t.Fatal(err)
	}
	l := planList(t, c, "-n", ns, "-l", "tier=front")
	if d := cmp.Diff([]string{ns + "/api NoChange", ns + "/web Complete"}, planNames(l)); d != "" {
		t.Fatalf("plans (-want +got):\n%s", d)
	}
	for _, p := range l.Items {
		one := previewPlan(t, c, ns, p.Deployment.Name)
		if d := cmp.Diff(one, &p); d != "" {
			t.Errorf("%s: the list's plan differs from preview of it (-one +list):\n%s", p.Deployment.Name, d)
		}
	}
	if len(l.Items[1].Steps) == 0 {
		t.Error("web: no steps for a rollout in flight")
	}
	human := c.Plugin(t, "preview", "-n", ns, "-l", "tier=front")
	if !strings.Contains(human.Stdout, "rollout in flight") || strings.Count(human.Stdout, "Deployment:     "+ns+"/") != 2 {
		t.Errorf("human output:\n%s", human.Stdout)
	}

	res := c.Plugin(t, "history", "-n", ns, "-l", "tier=front", "-o", "json")
	var hl struct {
		Kind  string
		Items []json.RawMessage
	}
	if err := json.Unmarshal([]byte(res.Stdout), &hl); err != nil || res.ExitCode != 0 || hl.Kind != "List" || len(hl.Items) != 2 {
		t.Fatalf("history -l: exit %d, %v\n%s%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	for i, name := range []string{"api", "web"} {
		one := c.Plugin(t, "history", "-n", ns, name, "-o", "json")
		var a, b any
		_ = json.Unmarshal([]byte(one.Stdout), &a)
		_ = json.Unmarshal(hl.Items[i], &b)
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("history of %s differs in the list (-one +list):\n%s", name, d)
		}
	}
}

// pollInFlight waits until the controller has made every write it can for Deployment name of
// ns (4 replicas, 25%/25%: at most 5 pods, at least 3 available; new pods held unready): new
// 0->1, old 4->3, new 1->2, then it waits; and the status observed.
func pollInFlight(t *testing.T, c *framework.Cluster, ns, name string) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		d, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		l, err := c.Client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil {
			return err
		}
		var counts []int32
		for _, rs := range l.Items {
			counts = append(counts, ptr.Deref(rs.Spec.Replicas, 0))
		}
		slices.Sort(counts)
		if slices.Equal(counts, []int32{2, 3}) && d.Status.ObservedGeneration == d.Generation && d.Status.UpdatedReplicas == 2 {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s/%s: the rollout did not reach new 2, old 3 in a minute", ns, name)
}

// TestFleetPreviewChangeDryRuns: preview -l with a change flag sends a server-side dry run per
// Deployment, several at a time: each plan in the list is the one preview of that Deployment
// alone makes (its own replicas, its own server-defaulted template and new ReplicaSet name),
// in the API server's order; the Deployment the change does not apply to (no container
// "app") is named on stderr in the one form of every verb over many, and nothing is written.
func TestFleetPreviewChangeDryRuns(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	var names []string
	for i := range 6 {
		d := framework.NewDeployment(fmt.Sprintf("d%d", i)).Replicas(int32(i + 1)).Build()
		d.Namespace, d.Labels["tier"] = ns, "front"
		if i == 3 {
			d.Spec.Template.Spec.Containers[0].Name = "sidecar"
		} else {
			names = append(names, d.Name)
		}
		if _, err := c.Client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Settled first: a dry run against a Deployment whose status the controller writes
	// meanwhile is refused as changed since it was read (as for preview of one).
	for i := range 6 {
		c.WaitForRollout(t, ns, fmt.Sprintf("d%d", i), time.Minute)
	}
	res := c.Plugin(t, "preview", "-n", ns, "-l", "tier=front", "--image", "app=nginx:1.27", "-o", "json")
	wantErr := "error: deployment.apps/d3: "
	if res.ExitCode != 1 || !strings.HasPrefix(res.Stderr, wantErr) || !strings.Contains(res.Stderr, "app") ||
		!strings.HasSuffix(res.Stderr, "\nerror: 1 Deployment(s) failed: deployment.apps/d3\n") || strings.Count(res.Stderr, "\n") != 2 {
		t.Fatalf("exit %d, want 1; stderr %q, want a line starting %q and the count", res.ExitCode, res.Stderr, wantErr)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(res.Stdout), &l); err != nil {
		t.Fatalf("decode: %v\n%s", err, res.Stdout)
	}
	var got []string
	for _, p := range l.Items {
		got = append(got, p.Deployment.Name)
	}
	if d := cmp.Diff(names, got); d != "" {
		t.Fatalf("plans (-want +got):\n%s", d)
	}
	for _, p := range l.Items {
		one := previewPlan(t, c, ns, p.Deployment.Name, "--image", "app=nginx:1.27")
		if d := cmp.Diff(one, &p); d != "" {
			t.Errorf("%s: the list's plan differs from preview of it (-one +list):\n%s", p.Deployment.Name, d)
		}
	}
	after, err := c.Client.AppsV1().Deployments(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range after.Items {
		if d.Generation != 1 || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.18" {
			t.Errorf("%s changed: generation %d, image %s", d.Name, d.Generation, d.Spec.Template.Spec.Containers[0].Image)
		}
	}
}

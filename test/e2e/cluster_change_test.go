//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// These tests hold pkg/cluster and pkg/change to what a v1.36.3 API server, its controllers
// and kubectl v1.36.3 really do.

// threeRevisions creates web (4 replicas of nginx:1.18), rolls it to nginx:1.19 and 1.20, and
// returns the live Deployment.
func threeRevisions(t *testing.T, c *framework.Cluster, ns string) *appsv1.Deployment {
	t.Helper()
	d := c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(4).Image("nginx:1.18"))
	c.WaitForRollout(t, ns, d.Name, time.Minute)
	for _, image := range []string{"nginx:1.19", "nginx:1.20"} {
		time.Sleep(1100 * time.Millisecond) // distinct creation seconds
		c.UpdateDeployment(t, ns, d.Name, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image })
		d = c.WaitForRollout(t, ns, d.Name, time.Minute)
	}
	return d
}

func TestLoadLiveMatchesCluster(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := threeRevisions(t, c, ns)

	s, err := cluster.LoadLive(t.Context(), c.Client, ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, rs := range c.ReplicaSetsOf(t, d) {
		want = append(want, rs.Name)
	}
	for _, rs := range s.ReplicaSets {
		got = append(got, rs.Name)
		tmpl := rs.Spec.Template.DeepCopy()
		delete(tmpl.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		if h := planner.ComputeHash(tmpl, s.Deployment.Status.CollisionCount); h != rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey] {
			t.Errorf("%s: recomputed hash %s, label %s", rs.Name, h, rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey])
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReplicaSets, oldest first (-cluster +LoadLive):\n%s", diff)
	}
	if len(s.Orphans) != 0 || s.Deployment.UID != d.UID {
		t.Errorf("orphans %d, uid %s (want none, %s)", len(s.Orphans), s.Deployment.UID, d.UID)
	}

	// The same state through a file of `kubectl get deploy,rs -o yaml`.
	res := c.Kubectl(t, "get", "deploy,rs", "-n", ns, "-o", "yaml")
	if res.ExitCode != 0 {
		t.Fatalf("kubectl get: %s", res.Stderr)
	}
	fs, err := cluster.LoadReader(strings.NewReader(res.Stdout), "state.yaml", ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	// kubectl get hides managedFields; the typed client keeps them.
	if diff := cmp.Diff(s.ReplicaSets, fs.ReplicaSets, cmpopts.IgnoreFields(metav1.ObjectMeta{}, "ManagedFields")); diff != "" {
		t.Errorf("file state differs from live state (-live +file):\n%s", diff)
	}
}

// SetImages + DryRunUpdate predict the new ReplicaSet's name (its pod-template-hash); the
// dry run stores nothing; the client-side defaults give the same template.
func TestDryRunPredictsNewReplicaSet(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(3))
	d = c.WaitForRollout(t, ns, d.Name, time.Minute)

	desired, err := change.SetImages(d, []string{"app=nginx:1.19"})
	if err != nil {
		t.Fatal(err)
	}
	server, err := kube.DryRunUpdate(t.Context(), c.Client, desired)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(server.Spec.Template, change.ApplyDefaults(desired).Spec.Template); diff != "" {
		t.Errorf("client-side template differs from the dry run's (-server +client):\n%s", diff)
	}
	after, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != d.ResourceVersion || after.Spec.Template.Spec.Containers[0].Image != "nginx:1.18" {
		t.Fatalf("the dry run changed the Deployment: rv %s -> %s, image %s", d.ResourceVersion, after.ResourceVersion, after.Spec.Template.Spec.Containers[0].Image)
	}
	predicted := planner.ReplicaSetName("web", planner.ComputeHash(&server.Spec.Template, server.Status.CollisionCount))

	if res := c.Kubectl(t, "set", "image", "-n", ns, "deploy/web", "app=nginx:1.19"); res.ExitCode != 0 {
		t.Fatalf("kubectl set image: %s", res.Stderr)
	}
	d = c.WaitForRollout(t, ns, "web", time.Minute)
	if !hasReplicas(c.ReplicaSetsOf(t, d), predicted, 3) {
		t.Errorf("the predicted new ReplicaSet %s does not run the 3 pods: %v", predicted, describe(c.ReplicaSetsOf(t, d)))
	}
}

// describe lists ReplicaSets as name=replicas (their order is by creation second, then name:
// a fast rollout creates two in the same second).
func describe(rss []appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, fmt.Sprintf("%s=%d", rs.Name, ptr.Deref(rs.Spec.Replicas, 0)))
	}
	return out
}

func TestFromManifestMatchesKubectlApply(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := write("first.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, labels: {app: api}}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}, annotations: {a: "1"}}
    spec:
      containers:
      - {name: api, image: busybox:1.36, env: [{name: A, value: "1"}, {name: B, value: "2"}]}
      - {name: side, image: nginx:1.18, resources: {limits: {cpu: "0.5"}}}
`)
	second := write("second.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, labels: {app: api}}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - {name: api, image: busybox:1.37, env: [{name: A, value: "1"}], ports: [{containerPort: 8080}]}
`)
	if res := c.Kubectl(t, "apply", "-n", ns, "-f", first); res.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", res.Stderr)
	}
	c.WaitForRollout(t, ns, "api", time.Minute)
	live, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "api", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	manifest, _ := os.ReadFile(second)
	got, err := change.FromManifest(live, manifest)
	if err != nil {
		t.Fatal(err)
	}
	res := c.Kubectl(t, "apply", "-n", ns, "--dry-run=server", "-o", "json", "-f", second)
	if res.ExitCode != 0 {
		t.Fatalf("kubectl apply --dry-run=server: %s", res.Stderr)
	}
	var want appsv1.Deployment
	if err := json.Unmarshal([]byte(res.Stdout), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Spec, got.Spec); diff != "" {
		t.Errorf("spec (-kubectl +FromManifest):\n%s", diff)
	}
	if diff := cmp.Diff(want.Annotations, got.Annotations); diff != "" {
		t.Errorf("annotations (-kubectl +FromManifest):\n%s", diff)
	}
	predicted := planner.ReplicaSetName("api", planner.ComputeHash(&got.Spec.Template, got.Status.CollisionCount))
	if res := c.Kubectl(t, "apply", "-n", ns, "-f", second); res.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", res.Stderr)
	}
	d := c.WaitForRollout(t, ns, "api", time.Minute)
	if !hasReplicas(c.ReplicaSetsOf(t, d), predicted, 1) {
		t.Errorf("the new ReplicaSet predicted from client-side apply and defaults, %s, does not run the pod: %v", predicted, describe(c.ReplicaSetsOf(t, d)))
	}
}

func TestToRevisionMatchesKubectlUndo(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	threeRevisions(t, c, ns)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) {
		metav1.SetMetaDataAnnotation(&d.ObjectMeta, "team", "x")
	})
	s, err := cluster.LoadLive(t.Context(), c.Client, ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		revision int64
		wantErr  string
	}{
		{revision: 9, wantErr: "unable to find specified revision 9 in history"},
	} {
		_, err := change.ToRevision(s.Deployment, s.Owned(), tc.revision)
		res := c.Kubectl(t, "rollout", "undo", "-n", ns, "deploy/web", fmt.Sprintf("--to-revision=%d", tc.revision))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(res.Stderr, tc.wantErr) {
			t.Errorf("revision %d: ours %v, kubectl %q; want both to say %q", tc.revision, err, res.Stderr, tc.wantErr)
		}
	}
	rb, err := change.ToRevision(s.Deployment, s.Owned(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Revision != 2 || rb.Skipped {
		t.Fatalf("previous revision %d skipped %v, want 2 and not skipped", rb.Revision, rb.Skipped)
	}
	if res := c.Kubectl(t, "rollout", "undo", "-n", ns, "deploy/web"); res.ExitCode != 0 {
		t.Fatalf("kubectl rollout undo: %s", res.Stderr)
	}
	after, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(after.Spec.Template, rb.Deployment.Spec.Template); diff != "" {
		t.Errorf("template (-kubectl +ToRevision):\n%s", diff)
	}
	// The controller renumbers the revision after kubectl's patch; the rest is kubectl's.
	delete(after.Annotations, deployutil.RevisionAnnotation)
	delete(rb.Deployment.Annotations, deployutil.RevisionAnnotation)
	if diff := cmp.Diff(after.Annotations, rb.Deployment.Annotations); diff != "" {
		t.Errorf("annotations (-kubectl +ToRevision):\n%s", diff)
	}
	d := c.WaitForRollout(t, ns, "web", time.Minute)
	if rss := c.ReplicaSetsOf(t, d); !hasReplicas(rss, rb.Target.Name, 4) {
		t.Errorf("after undo the target %s does not run the 4 pods: %v", rb.Target.Name, describe(rss))
	}
}

func hasReplicas(rss []appsv1.ReplicaSet, name string, n int32) bool {
	for _, rs := range rss {
		if rs.Name == name {
			return ptr.Deref(rs.Spec.Replicas, 0) == n
		}
	}
	return false
}

func TestRestartAndPauseMatchKubectl(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2))
	d = c.WaitForRollout(t, ns, d.Name, time.Minute)

	ours, err := change.Restart(d, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if res := c.Kubectl(t, "rollout", "restart", "-n", ns, "deploy/web"); res.ExitCode != 0 {
		t.Fatalf("kubectl rollout restart: %s", res.Stderr)
	}
	after, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stamp := after.Spec.Template.Annotations[change.RestartedAtAnnotation]
	if _, err := time.Parse(time.RFC3339, stamp); err != nil {
		t.Fatalf("kubectl's restartedAt %q: %v", stamp, err)
	}
	ours.Spec.Template.Annotations[change.RestartedAtAnnotation] = stamp
	if diff := cmp.Diff(after.Spec.Template, ours.Spec.Template); diff != "" {
		t.Errorf("template (-kubectl +Restart, timestamps aligned):\n%s", diff)
	}

	if res := c.Kubectl(t, "rollout", "pause", "-n", ns, "deploy/web"); res.ExitCode != 0 {
		t.Fatalf("kubectl rollout pause: %s", res.Stderr)
	}
	paused, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		ours error
	}{
		{[]string{"rollout", "restart"}, func() error { _, err := change.Restart(paused, time.Now()); return err }()},
		{[]string{"rollout", "undo"}, func() error {
			s, err := cluster.LoadLive(t.Context(), c.Client, ns, "web")
			if err != nil {
				return err
			}
			_, err = change.ToRevision(s.Deployment, s.Owned(), 0)
			return err
		}()},
	} {
		res := c.Kubectl(t, append(tc.args, "-n", ns, "deploy/web")...)
		if !errors.Is(tc.ours, change.ErrPaused) || res.ExitCode == 0 || !strings.Contains(res.Stderr, tc.ours.Error()) {
			t.Errorf("%v on a paused Deployment: ours %v, kubectl (exit %d) %q", tc.args, tc.ours, res.ExitCode, res.Stderr)
		}
	}
}

// Validate's messages are the API server's own.
func TestValidateMatchesServer(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(2))
	d := c.WaitForRollout(t, ns, "web", time.Minute)
	for name, mutate := range map[string]func(*appsv1.Deployment){
		"negative maxSurge": func(d *appsv1.Deployment) { d.Spec.Strategy.RollingUpdate.MaxSurge = testutil.IntOrPercent("-1") },
		"both zero": func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable = testutil.IntOrPercent("0%"), testutil.IntOrPercent("0")
		},
		"maxUnavailable 101%": func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = testutil.IntOrPercent("101%")
		},
		"Recreate with rolling": func(d *appsv1.Deployment) { d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType },
		"unknown type":          func(d *appsv1.Deployment) { d.Spec.Strategy.Type = "Blue" },
		"negative replicas":     func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](-3) },
		"labels mismatch":       func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "x"} },
	} {
		t.Run(name, func(t *testing.T) {
			bad := d.DeepCopy()
			mutate(bad)
			ours := change.Validate(bad)
			_, server := kube.DryRunUpdate(t.Context(), c.Client, bad)
			if ours == nil || server == nil || !apierrors.IsInvalid(server) || !strings.HasSuffix(server.Error(), ours.Error()) {
				t.Errorf("server: %v\nours:   %v", server, ours)
			}
		})
	}
}

func TestForbiddenErrors(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := c.CreateDeployment(t, ns, framework.NewDeployment("web"))
	cfg := *c.Config
	cfg.Impersonate.UserName = "rollplan-e2e-nobody"
	nobody, err := kubernetes.NewForConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cluster.LoadLive(t.Context(), nobody, ns, "web")
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rollplan needs permission to get deployments (apps)") {
		t.Errorf("LoadLive as nobody: %v", err)
	}
	_, err = kube.DryRunUpdate(t.Context(), nobody, d)
	if !errors.Is(err, kube.ErrDryRunForbidden) || !apierrors.IsForbidden(err) {
		t.Errorf("DryRunUpdate as nobody: %v", err)
	}
	_, err = cluster.LoadLive(t.Context(), c.Client, ns, "nope")
	if !apierrors.IsNotFound(err) || !strings.HasPrefix(err.Error(), fmt.Sprintf(`deployments.apps "nope" not found in namespace %q`, ns)) {
		t.Errorf("LoadLive of a missing Deployment: %v", err)
	}
}

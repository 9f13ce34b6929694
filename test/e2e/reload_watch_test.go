//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// watcher is `kubectl rollplan reload --watch` running in the background
// (framework.StartPlugin).
type watcher struct {
	*framework.Background
	stdout, stderr *framework.SyncBuffer
	done           <-chan struct{}
}

// startWatcher starts the plugin with `reload --watch ARGS` against the cluster. It is
// killed, and its stderr checked for a data race, when the test ends.
func startWatcher(t testing.TB, c *framework.Cluster, args ...string) *watcher {
	t.Helper()
	b := c.StartPlugin(t, nil, append([]string{"reload", "--watch"}, args...)...)
	return &watcher{Background: b, stdout: &b.Stdout, stderr: &b.Stderr, done: b.Done()}
}

// stop sends sig and returns the exit code (-1 when killed by the signal).
func (w *watcher) stop(t testing.TB, sig os.Signal) int {
	t.Helper()
	return w.Stop(t, sig, 30*time.Second)
}

// eventually polls cond every 100ms for at most timeout, failing with what and the
// watchers' output.
func (f *reloadFixture) eventually(what string, timeout time.Duration, cond func() bool, ws ...*watcher) {
	f.t.Helper()
	err := wait.PollUntilContextTimeout(f.t.Context(), 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		var out strings.Builder
		for _, w := range ws {
			out.WriteString("\nwatcher stdout:\n" + w.stdout.String() + "\nwatcher stderr:\n" + w.stderr.String())
		}
		f.t.Fatalf("waiting for %s: %v%s", what, err, out.String())
	}
}

// TestReloadWatchRestartsExactlyTheDeploymentsThatSeeTheChangedKey: the watcher adopts the
// opted-in Deployments at first sight (no restart), then an edit of key b restarts the
// Deployment reading b, not the one reading a, nor one reading b that did not opt in; the
// restart is one spec write under the field manager rollplan-reload, its rollout completes,
// and an Event names the key.
func TestReloadWatchRestartsExactlyTheDeploymentsThatSeeTheChangedKey(t *testing.T) {
	f := newReloadFixture(t)
	seesA := f.deployment("sees-a", "a", true)
	seesB := f.deployment("sees-b", "b", true)
	optedOut := f.deployment("opted-out", "b", false)
	w := startWatcher(t, f.c, "-n", f.ns, "--grace-period", "0")
	f.eventually("both opted-in Deployments adopted", time.Minute, func() bool {
		return adopted(f.get("sees-a")) && adopted(f.get("sees-b"))
	}, w)
	for _, d := range []*appsv1.Deployment{seesA, seesB, optedOut} {
		if n := f.replicaSets(d.Name); n != 1 || restartedWith(f.get(d.Name)) != "" {
			t.Errorf("%s: %d ReplicaSets at first sight, want 1 (no restart)", d.Name, n)
		}
	}

	f.setKey("b", "2")
	f.eventually("sees-b restarted", time.Minute, func() bool { return restartedWith(f.get("sees-b")) != "" }, w)
	f.c.WaitForRollout(t, f.ns, "sees-b", time.Minute)
	time.Sleep(2 * time.Second) // a wrong restart would have come by now (grace period 0)
	if n := f.replicaSets("sees-b"); n != 2 {
		t.Errorf("sees-b: %d ReplicaSets, want 2 (one restart)", n)
	}
	if b := f.get("sees-b"); !ownsTemplateAnnotation(b, "rollplan-reload") {
		t.Errorf("sees-b: field manager rollplan-reload does not own the template annotation: %+v", b.ManagedFields)
	}
	for _, d := range []*appsv1.Deployment{seesA, optedOut} {
		if n := f.replicaSets(d.Name); n != 1 || restartedWith(f.get(d.Name)) != "" {
			t.Errorf("%s restarted (%d ReplicaSets) by a change of a key it does not see or without opting in", d.Name, n)
		}
	}
	events, err := f.c.Client.CoreV1().Events(f.ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=sees-b,reason=ConfigReloaded"})
	if err != nil || len(events.Items) != 1 || !strings.Contains(events.Items[0].Message, "ConfigMap/app [b]") {
		t.Errorf("ConfigReloaded events on sees-b: %v (%v), want one naming ConfigMap/app [b]", events, err)
	}
	if !strings.Contains(w.stdout.String(), "deployment.apps/sees-b restarted") {
		t.Errorf("watcher stdout lacks the restart line:\n%s", w.stdout.String())
	}
	if code := w.stop(t, syscall.SIGINT); code != 0 {
		t.Errorf("watcher exit %d after SIGINT, want 0\nstderr:\n%s", code, w.stderr.String())
	}
}

// TestReloadWatchGracePeriodCompactsTwoEdits: two edits 500ms apart within a 3s grace period
// give one restart, with the second edit's content.
func TestReloadWatchGracePeriodCompactsTwoEdits(t *testing.T) {
	f := newReloadFixture(t)
	f.deployment("web", "a", true)
	w := startWatcher(t, f.c, "-n", f.ns, "--grace-period", "3s")
	f.eventually("web adopted", time.Minute, func() bool { return adopted(f.get("web")) }, w)
	f.setKey("a", "2")
	time.Sleep(500 * time.Millisecond)
	f.setKey("a", "3")
	f.eventually("web restarted", time.Minute, func() bool { return restartedWith(f.get("web")) != "" }, w)
	f.c.WaitForRollout(t, f.ns, "web", time.Minute)
	time.Sleep(5 * time.Second) // past another grace period: a second restart would be here
	after := f.get("web")
	if n := f.replicaSets("web"); n != 2 {
		t.Errorf("%d ReplicaSets, want 2: one restart for two edits within the grace period\nwatcher stdout:\n%s", n, w.stdout.String())
	}
	if n := strings.Count(w.stdout.String(), "restarted (namespace"); n != 1 {
		t.Errorf("%d restart lines, want 1:\n%s", n, w.stdout.String())
	}
	cm, err := f.c.Client.CoreV1().ConfigMaps(f.ns).Get(t.Context(), "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dec := reload.Decide(after, map[reload.ObjectKey]reload.Object{{Namespace: f.ns, Kind: reload.ConfigMap, Name: "app"}: reload.ConfigMapObject(cm)})
	if dec.Stale || dec.FirstSight() {
		t.Errorf("after the one restart: %v, want current with the last edit", dec)
	}
}

// TestReloadWatchKilledThenRestartedRestarts: a watcher adopts, is killed (SIGKILL), the
// config changes while none runs, and a new watcher restarts exactly the stale Deployment.
func TestReloadWatchKilledThenRestartedRestarts(t *testing.T) {
	f := newReloadFixture(t)
	f.deployment("sees-a", "a", true)
	f.deployment("sees-b", "b", true)
	first := startWatcher(t, f.c, "-n", f.ns, "--grace-period", "0")
	f.eventually("adopted", time.Minute, func() bool { return adopted(f.get("sees-a")) && adopted(f.get("sees-b")) }, first)
	first.stop(t, syscall.SIGKILL)

	f.setKey("a", "2")
	time.Sleep(time.Second)
	if restartedWith(f.get("sees-a")) != "" {
		t.Fatal("sees-a restarted with no watcher running")
	}
	second := startWatcher(t, f.c, "-n", f.ns, "--grace-period", "0")
	f.eventually("sees-a restarted by the new watcher", time.Minute, func() bool { return restartedWith(f.get("sees-a")) != "" }, second)
	f.c.WaitForRollout(t, f.ns, "sees-a", time.Minute)
	time.Sleep(2 * time.Second)
	if n := f.replicaSets("sees-a"); n != 2 {
		t.Errorf("sees-a: %d ReplicaSets, want 2 (one restart)", n)
	}
	if n := f.replicaSets("sees-b"); n != 1 || restartedWith(f.get("sees-b")) != "" {
		t.Errorf("sees-b restarted after the downtime although its key did not change")
	}
}

// TestReloadWatchLeaderElectionRestartsOnce: two watchers with --leader-elect; one edit
// restarts the Deployment once; after the leader stops (SIGTERM releases the Lease) the
// other takes over and restarts on the next edit.
func TestReloadWatchLeaderElectionRestartsOnce(t *testing.T) {
	f := newReloadFixture(t)
	f.deployment("web", "a", true)
	le := []string{"-n", f.ns, "--grace-period", "0", "--leader-elect", "--leader-elect-lease-duration", "4s",
		"--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "500ms"}
	w1 := startWatcher(t, f.c, le...)
	f.eventually("web adopted", time.Minute, func() bool { return adopted(f.get("web")) }, w1)
	w2 := startWatcher(t, f.c, le...)
	time.Sleep(2 * time.Second) // w2 has synced and campaigns
	f.setKey("a", "2")
	f.eventually("web restarted", time.Minute, func() bool { return restartedWith(f.get("web")) != "" }, w1, w2)
	f.c.WaitForRollout(t, f.ns, "web", time.Minute)
	time.Sleep(2 * time.Second)
	lines := strings.Count(w1.stdout.String(), "restarted (namespace") + strings.Count(w2.stdout.String(), "restarted (namespace")
	if n := f.replicaSets("web"); n != 2 || lines != 1 {
		t.Fatalf("%d ReplicaSets, %d restart lines; want one restart by one watcher\nw1:\n%s\nw2:\n%s", n, lines, w1.stdout.String(), w2.stdout.String())
	}
	leader, follower := w1, w2
	if strings.Contains(w2.stdout.String(), "restarted (namespace") {
		leader, follower = w2, w1
	}
	if code := leader.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("leader exit %d after SIGTERM, want 0\nstderr:\n%s", code, leader.stderr.String())
	}
	f.setKey("a", "3")
	f.eventually("the follower restarts", time.Minute, func() bool { return strings.Contains(follower.stdout.String(), "restarted (namespace") }, follower)
}

// TestReloadWatchShippedRoleRunsItAndNothingMore binds deploy/reload/rbac-namespace.yaml to
// the controller's ServiceAccount (deploy/reload/controller.yaml's name and namespace), with
// deploy/reload/restrict-patch.yaml, and runs the watcher as that ServiceAccount
// (impersonated): it adopts and restarts; as the same user, changing an image or another
// annotation is refused by the policy, and other namespaces, a get of a pod and deletes are
// forbidden.
func TestReloadWatchShippedRoleRunsItAndNothingMore(t *testing.T) {
	f := newReloadFixture(t)
	c := f.c
	f.deployment("web", "a", true)
	const sa = "system:serviceaccount:rollplan-reload:rollplan-reload"
	dir := filepath.Join(c.RootDir, "deploy", "reload")
	role, err := os.ReadFile(filepath.Join(dir, "rbac-namespace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	roleFile := filepath.Join(t.TempDir(), "rbac.yaml")
	if err := os.WriteFile(roleFile, bytes.ReplaceAll(role, []byte("namespace: default"), []byte("namespace: "+f.ns)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"apply", "-f", writeTemp(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: rollplan-reload\n---\n"+
			"apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: rollplan-reload\n  namespace: rollplan-reload\n")},
		{"apply", "-f", roleFile},
		{"apply", "-f", filepath.Join(dir, "restrict-patch.yaml")},
	} {
		if res := c.Kubectl(t, args...); res.ExitCode != 0 {
			t.Fatalf("kubectl %v: %s", args, res.Stderr)
		}
	}
	t.Cleanup(func() { // t.Context() has ended by now
		_, _ = c.Run(context.Background(), c.KubectlPath(), "delete", "--ignore-not-found", "-f", filepath.Join(dir, "restrict-patch.yaml"))
	})
	// The policy is enforced once the API server has loaded it: wait until a change it
	// refuses is refused.
	f.eventually("the policy enforced", time.Minute, func() bool {
		res := c.Kubectl(t, "annotate", "deploy/web", "-n", f.ns, "--as", sa, "--dry-run=server", "example.com/x=y")
		return res.ExitCode != 0 && strings.Contains(res.Stderr, "rollplan-reload-restrict-patch")
	})

	w := startWatcher(t, c, "-n", f.ns, "--grace-period", "0", "--as", sa)
	f.eventually("web adopted as the ServiceAccount", time.Minute, func() bool { return adopted(f.get("web")) }, w)
	f.setKey("a", "2")
	f.eventually("web restarted as the ServiceAccount", time.Minute, func() bool { return restartedWith(f.get("web")) != "" }, w)
	if strings.Contains(w.stderr.String(), "forbidden") {
		t.Errorf("the watcher hit a forbidden request:\n%s", w.stderr.String())
	}

	image := f.get("web").Spec.Template.Spec.Containers[0].Image
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"set", "image", "deploy/web", "app=nginx:1.27", "-n", f.ns}, "may change only"},
		{[]string{"annotate", "deploy/web", "example.com/x=y", "-n", f.ns}, "may change only"},
		{[]string{"scale", "deploy/web", "--replicas=5", "-n", f.ns}, "forbidden"},
		{[]string{"delete", "deploy/web", "-n", f.ns}, "forbidden"},
		{[]string{"get", "pod", "any", "-n", f.ns}, "forbidden"}, // list only, for the first sight
		{[]string{"get", "configmaps", "-n", "default"}, "forbidden"},
		{[]string{"get", "secret", "any", "-n", f.ns}, "forbidden"},
	} {
		res := c.Kubectl(t, append(tc.args, "--as", sa)...)
		if res.ExitCode == 0 || !strings.Contains(strings.ToLower(res.Stderr), tc.want) {
			t.Errorf("kubectl %v as the ServiceAccount: exit %d, stderr %q; want refused (%q)", tc.args, res.ExitCode, res.Stderr, tc.want)
		}
	}
	if now := f.get("web").Spec.Template.Spec.Containers[0].Image; now != image {
		t.Errorf("image %s -> %s", image, now)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "obj.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReloadWatchMaxConcurrentOneRolloutInFlight: three opted-in Deployments (4 replicas,
// maxSurge 1, maxUnavailable 0) read the same key; one edit with --max-concurrent 1 restarts
// all three, and a watch of the Deployments never sees two restarted rollouts in flight at
// once (`kubectl rollout status`'s rule).
func TestReloadWatchMaxConcurrentOneRolloutInFlight(t *testing.T) {
	f := newReloadFixture(t)
	names := []string{"one", "two", "three"}
	for _, n := range names {
		f.createRolling(framework.NewDeployment(n).Replicas(4), readsKey("app", "a"), optIn)
		f.c.WaitForRollout(t, f.ns, n, time.Minute)
	}
	w := startWatcher(t, f.c, "-n", f.ns, "--grace-period", "0", "--max-concurrent", "1")
	f.eventually("all adopted", time.Minute, func() bool {
		return adopted(f.get("one")) && adopted(f.get("two")) && adopted(f.get("three"))
	}, w)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	wi, err := f.c.Client.AppsV1().Deployments(f.ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	inFlight := map[string]bool{}
	maxInFlight, restarted := 0, map[string]bool{}
	go func() {
		for ev := range wi.ResultChan() {
			d, ok := ev.Object.(*appsv1.Deployment)
			if !ok {
				continue
			}
			_, done, _ := framework.RolloutStatus(d)
			mu.Lock()
			if restartedWith(d) != "" {
				restarted[d.Name] = true
				inFlight[d.Name] = !done
			}
			n := 0
			for _, v := range inFlight {
				if v {
					n++
				}
			}
			maxInFlight = max(maxInFlight, n)
			mu.Unlock()
		}
	}()
	f.setKey("a", "2")
	f.eventually("three restarts, all complete", 3*time.Minute, func() bool {
		mu.Lock()
		defer mu.Unlock()
		busy := false
		for _, v := range inFlight {
			busy = busy || v
		}
		return len(restarted) == 3 && !busy
	}, w)
	mu.Lock()
	defer mu.Unlock()
	if maxInFlight != 1 {
		t.Errorf("at most %d restarted rollouts in flight at once, want 1 (--max-concurrent 1)\nwatcher stdout:\n%s", maxInFlight, w.stdout.String())
	}
}

// TestReloadWatchMissingSecretRefuses: a Deployment whose pods read a Secret that does not
// exist (not optional) is neither adopted nor restarted when its ConfigMap changes; a
// ConfigReloadRefused Warning names the Secret; once the Secret exists, it is restarted (its
// config was written after its pods were created: first-sight evidence).
func TestReloadWatchMissingSecretRefuses(t *testing.T) {
	f := newReloadFixture(t)
	f.create(framework.NewDeployment("web"), optIn, func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}},
		}
	})
	w := startWatcher(t, f.c, "-n", f.ns, "--grace-period", "0")
	f.setKey("a", "2")
	f.eventually("a ConfigReloadRefused event naming secret/db", time.Minute, func() bool {
		ev, err := f.c.Client.CoreV1().Events(f.ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=web,reason=ConfigReloadRefused"})
		return err == nil && len(ev.Items) == 1 && strings.Contains(ev.Items[0].Message, "secret/db not found")
	}, w)
	if now := f.get("web"); adopted(now) || restartedWith(now) != "" {
		t.Fatalf("web written although secret/db is missing: annotations %v, template %v", now.Annotations, now.Spec.Template.Annotations)
	}
	// kwok runs the pods without the Secret: once they are there, the Secret is written a
	// second later (managedFields and creation times have 1 s resolution), after them.
	f.c.WaitForRollout(t, f.ns, "web", time.Minute)
	time.Sleep(1100 * time.Millisecond)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Data: map[string][]byte{"password": []byte("x")}}
	if _, err := f.c.Client.CoreV1().Secrets(f.ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// At first sight now: ConfigMap app and Secret db were written after web's pods were
	// created, so the pods are possibly stale and web is restarted (not adopted).
	f.eventually("web restarted once secret/db exists", time.Minute, func() bool { return restartedWith(f.get("web")) != "" }, w)
	if adopted(f.get("web")) {
		t.Error("web adopted although its config was written after its pods were created")
	}
}

//go:build e2e

package e2e

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// createTiered creates Deployments names in ns with the label tier=tier (1 replica each) and
// waits for their rollouts.
func createTiered(t *testing.T, c *framework.Cluster, ns, tier string, names ...string) {
	t.Helper()
	for _, name := range names {
		d := framework.NewDeployment(name).Replicas(1).Build()
		d.Namespace = ns
		d.Labels["tier"] = tier
		if _, err := c.Client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create deployment %s/%s: %v", ns, name, err)
		}
	}
	for _, name := range names {
		c.WaitForRollout(t, ns, name, time.Minute)
	}
}

// deployments returns the Deployments of ns by name.
func deployments(t *testing.T, c *framework.Cluster, ns string) map[string]*appsv1.Deployment {
	t.Helper()
	list, err := c.Client.AppsV1().Deployments(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*appsv1.Deployment{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out
}

// restarted returns the names of the Deployments of ns whose pod template carries
// kubectl.kubernetes.io/restartedAt, sorted.
func restarted(t *testing.T, c *framework.Cluster, ns string) []string {
	t.Helper()
	var out []string
	for name, d := range deployments(t, c, ns) {
		if _, ok := d.Spec.Template.Annotations[restartedAt]; ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// resultLines returns the lines of out that are kubectl result lines ("deployment.apps/...").
func resultLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "deployment.apps/") {
			lines = append(lines, l)
		}
	}
	return lines
}

// generations returns metadata.generation of every Deployment of ns: a client's spec write
// changes it, the controller's status writes do not.
func generations(t *testing.T, c *framework.Cluster, ns string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for name, d := range deployments(t, c, ns) {
		out[name] = d.Generation
	}
	return out
}

// TestRestartSelectorMatchesKubectl: `rollplan restart -l tier=x` over three Deployments
// labelled tier=x and a fourth labelled tier=y restarts exactly the Deployments
// `kubectl rollout restart deploy -l tier=x` restarts in a twin namespace, prints kubectl's
// result lines, and each restarted Deployment rolls out to a new ReplicaSet (revision 2).
func TestRestartSelectorMatchesKubectl(t *testing.T) {
	c := framework.Get(t)
	a, b := c.Namespace(t), c.Namespace(t)
	for _, ns := range []string{a, b} {
		createTiered(t, c, ns, "x", "api", "web", "worker")
		createTiered(t, c, ns, "y", "db")
	}
	ours := c.Plugin(t, "restart", "-n", a, "-l", "tier=x", "--yes")
	theirs := c.Kubectl(t, "rollout", "restart", "deploy", "-n", b, "-l", "tier=x")
	if ours.ExitCode != 0 || theirs.ExitCode != 0 {
		t.Fatalf("rollplan exit %d (%s), kubectl exit %d (%s)", ours.ExitCode, ours.Stderr, theirs.ExitCode, theirs.Stderr)
	}
	if got, want := resultLines(ours.Stdout), resultLines(theirs.Stdout); !slices.Equal(got, want) || len(want) != 3 {
		t.Errorf("result lines: rollplan %q, kubectl %q", got, want)
	}
	if n := strings.Count(ours.Stdout, "Restart:     deployment.apps/"); n != 3 {
		t.Errorf("%d previews, want 3:\n%s", n, ours.Stdout)
	}
	if got, want := restarted(t, c, a), restarted(t, c, b); !slices.Equal(got, want) || !slices.Equal(want, []string{"api", "web", "worker"}) {
		t.Errorf("restarted: rollplan %v, kubectl %v", got, want)
	}
	for _, ns := range []string{a, b} {
		for _, name := range []string{"api", "web", "worker", "db"} {
			d := c.WaitForRollout(t, ns, name, time.Minute)
			want := "2"
			if name == "db" {
				want = "1"
			}
			if got := d.Annotations["deployment.kubernetes.io/revision"]; got != want {
				t.Errorf("%s/%s: revision %s, want %s", ns, name, got, want)
			}
		}
	}
}

// TestPauseResumeAll: pause --all pauses every Deployment of the namespace; one already
// paused is named on stderr with kubectl's words and the exit is 1, the others paused;
// resume --all resumes them all.
func TestPauseResumeAll(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	createTiered(t, c, ns, "x", "a", "b", "c")
	if k := c.Kubectl(t, "rollout", "pause", "-n", ns, "deploy/b"); k.ExitCode != 0 {
		t.Fatalf("kubectl rollout pause: %s", k.Stderr)
	}
	res := c.Plugin(t, "pause", "-n", ns, "--all", "--yes")
	if res.ExitCode != 1 {
		t.Errorf("pause --all: exit %d, want 1\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if got := resultLines(res.Stdout); !slices.Equal(got, []string{"deployment.apps/a paused", "deployment.apps/c paused"}) {
		t.Errorf("pause --all: result lines %q", got)
	}
	wantErr := "error: deployment.apps/b: deployments.apps \"b\" is already paused\nerror: pause failed for 1 of 3 Deployments: deployment.apps/b\n"
	if res.Stderr != wantErr {
		t.Errorf("pause --all: stderr %q, want %q", res.Stderr, wantErr)
	}
	for name, d := range deployments(t, c, ns) {
		if !d.Spec.Paused {
			t.Errorf("%s is not paused", name)
		}
	}

	res = c.Plugin(t, "resume", "-n", ns, "--all", "--yes")
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Errorf("resume --all: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if got := resultLines(res.Stdout); !slices.Equal(got, []string{"deployment.apps/a resumed", "deployment.apps/b resumed", "deployment.apps/c resumed"}) {
		t.Errorf("resume --all: result lines %q", got)
	}
	for name, d := range deployments(t, c, ns) {
		if d.Spec.Paused {
			t.Errorf("%s is still paused", name)
		}
	}
}

// TestUndoSeveralNames: undo of three named Deployments to revision 2, where one has no
// revision 2: that one is named with kubectl's message and left unchanged (exit 1), the
// other two are rolled back to revision 2's image.
func TestUndoSeveralNames(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	createTiered(t, c, ns, "x", "a", "b", "c")
	for _, name := range []string{"a", "c"} {
		for _, image := range []string{"nginx:1.19", "nginx:1.20"} {
			c.UpdateDeployment(t, ns, name, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image })
			c.WaitForRollout(t, ns, name, time.Minute)
		}
	}
	before := generations(t, c, ns)
	res := c.Plugin(t, "undo", "-n", ns, "deploy/a", "deploy/b", "deploy/c", "--to-revision", "2", "--yes")
	if res.ExitCode != 1 {
		t.Errorf("exit %d, want 1\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if got := resultLines(res.Stdout); !slices.Equal(got, []string{"deployment.apps/a rolled back", "deployment.apps/c rolled back"}) {
		t.Errorf("result lines %q", got)
	}
	if !strings.HasPrefix(res.Stderr, "error: deployment.apps/b: unable to find specified revision 2 in history") ||
		!strings.HasSuffix(res.Stderr, "error: undo failed for 1 of 3 Deployments: deployment.apps/b\n") {
		t.Errorf("stderr %q", res.Stderr)
	}
	after := deployments(t, c, ns)
	for name, want := range map[string]string{"a": "nginx:1.19", "b": "nginx:1.18", "c": "nginx:1.19"} {
		if got := after[name].Spec.Template.Spec.Containers[0].Image; got != want {
			t.Errorf("%s: image %s, want %s", name, got, want)
		}
	}
	if after["b"].Generation != before["b"] {
		t.Errorf("b was written: generation %d -> %d", before["b"], after["b"].Generation)
	}
}

// TestManyDryRunWritesNothing: --dry-run=client and --dry-run=server over a selector print
// each preview and kubectl's dry-run result lines and change no Deployment; without a
// terminal and without --yes nothing is read or written.
func TestManyDryRunWritesNothing(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	createTiered(t, c, ns, "x", "a", "b")
	before := generations(t, c, ns)
	for _, tc := range []struct {
		args   []string
		suffix string
	}{
		{[]string{"restart", "-l", "tier=x", "--dry-run=client"}, " (dry run)"},
		{[]string{"restart", "-l", "tier=x", "--dry-run=server"}, " (server dry run)"},
		{[]string{"pause", "--all", "--dry-run=server"}, " (server dry run)"},
		{[]string{"undo", "deploy", "a", "b", "--dry-run=client"}, ""},
	} {
		res := c.Plugin(t, append([]string{"-n", ns}, tc.args...)...)
		lines := resultLines(res.Stdout)
		if tc.args[0] == "undo" {
			// No earlier revision: both named, nothing written.
			if res.ExitCode != 1 || len(lines) != 0 || strings.Count(res.Stderr, "no rollout history found") != 2 {
				t.Errorf("%v: exit %d\n%s%s", tc.args, res.ExitCode, res.Stdout, res.Stderr)
			}
			continue
		}
		verb := map[string]string{"restart": "restarted", "pause": "paused"}[tc.args[0]]
		want := []string{"deployment.apps/a " + verb + tc.suffix, "deployment.apps/b " + verb + tc.suffix}
		if res.ExitCode != 0 || !slices.Equal(lines, want) {
			t.Errorf("%v: exit %d, result lines %q, want %q\n%s", tc.args, res.ExitCode, lines, want, res.Stderr)
		}
	}
	res := c.Plugin(t, "-n", ns, "restart", "--all")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "standard input is not a terminal") || res.Stdout != "" {
		t.Errorf("restart --all without --yes: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if after := generations(t, c, ns); !maps.Equal(before, after) {
		t.Errorf("a dry run wrote: generations %v -> %v", before, after)
	}
	if got := restarted(t, c, ns); len(got) != 0 {
		t.Errorf("restarted by a dry run: %v", got)
	}
}

// TestResumeHeldAmongMany: resume of two named Deployments, one held by drive at step 1 and
// one paused by kubectl: the held one is handed back (original strategy, not paused, no drive
// annotation) and rolls out to the end, the other is resumed, each with its result line.
func TestResumeHeldAmongMany(t *testing.T) {
	s := newDriveSetup(t, 4, "25%", "25%")
	createTiered(t, s.c, s.ns, "x", "api")
	if k := s.c.Kubectl(t, "rollout", "pause", "-n", s.ns, "deploy/api"); k.ExitCode != 0 {
		t.Fatalf("kubectl rollout pause: %s", k.Stderr)
	}
	if res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--until-step", "1"); res.ExitCode != 4 {
		t.Fatalf("drive --until-step 1: exit %d\n%s", res.ExitCode, res.Stderr)
	}
	res := s.plugin(t, "resume", "deploy/web", "deploy/api", "--yes")
	if res.ExitCode != 0 {
		t.Fatalf("resume: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if got := resultLines(res.Stdout); !slices.Equal(got, []string{"deployment.apps/web handed back by drive", "deployment.apps/api resumed"}) {
		t.Errorf("result lines %q", got)
	}
	if !strings.Contains(res.Stdout, "resume hands it back to the controller where it stands") {
		t.Errorf("no hand-back preview:\n%s", res.Stdout)
	}
	web := s.c.WaitForRollout(t, s.ns, "web", time.Minute)
	if web.Spec.Paused || web.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || web.Annotations[drive.Annotation] != "" ||
		web.Spec.Template.Spec.Containers[0].Image != "nginx:1.19" {
		t.Errorf("web after the hand-back: paused %v, strategy %s, drive annotation %q, image %s", web.Spec.Paused,
			web.Spec.Strategy.Type, web.Annotations[drive.Annotation], web.Spec.Template.Spec.Containers[0].Image)
	}
	if api := deployments(t, s.c, s.ns)["api"]; api.Spec.Paused {
		t.Error("api is still paused")
	}
}

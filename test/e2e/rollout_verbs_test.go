//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

const (
	changeCause = "kubernetes.io/change-cause"
	restartedAt = "kubectl.kubernetes.io/restartedAt"
)

// makeHistory gives Deployment web in ns five revisions the way users make them, and leaves
// its history at
//
//	2 nginx:1.19   3 nginx:1.19 restarted   4 nginx:1.20   5 nginx:1.18 (was 1: a rollback)
//
// with an annotation example.com/team set on the Deployment afterwards. The restart uses a
// fixed restartedAt (the patch `kubectl rollout restart` sends) so that twins made in two
// namespaces are identical.
func makeHistory(t *testing.T, c *framework.Cluster, ns string) {
	t.Helper()
	c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(3).Image("nginx:1.18"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	step := func(mutate func(*appsv1.Deployment)) {
		c.UpdateDeployment(t, ns, "web", mutate)
		c.WaitForRollout(t, ns, "web", time.Minute)
	}
	step(func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19"
		d.Annotations[changeCause] = "image 1.19"
	})
	res := c.Kubectl(t, "-n", ns, "patch", "deploy/web", "-p",
		`{"spec":{"template":{"metadata":{"annotations":{"`+restartedAt+`":"2026-01-01T00:00:00Z"}}}}}`)
	if res.ExitCode != 0 {
		t.Fatalf("restart patch: %s", res.Stderr)
	}
	c.WaitForRollout(t, ns, "web", time.Minute)
	step(func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.20"
		delete(d.Spec.Template.Annotations, restartedAt)
		d.Annotations[changeCause] = "image 1.20"
	})
	if res := c.Kubectl(t, "-n", ns, "rollout", "undo", "deploy/web", "--to-revision=1"); res.ExitCode != 0 {
		t.Fatalf("kubectl rollout undo: %s", res.Stderr)
	}
	c.WaitForRollout(t, ns, "web", time.Minute)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Annotations["example.com/team"] = "payments" })
}

// fingerprint is what a client's write to ns/web changes: generation (spec), annotations
// and labels. The controller's status updates do not change it.
func fingerprint(t *testing.T, c *framework.Cluster, ns string) string {
	t.Helper()
	d := getDeployment(t, c, ns)
	b, err := json.Marshal([]any{d.Generation, d.Annotations, d.Labels, d.Spec})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func getDeployment(t *testing.T, c *framework.Cluster, ns string) *appsv1.Deployment {
	t.Helper()
	d, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rsSummary describes the ReplicaSets of ns/web: name -> revision, revision-history and
// spec.replicas. Twins have the same names (same Deployment name and templates).
func rsSummary(t *testing.T, c *framework.Cluster, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rs := range c.ReplicaSetsOf(t, getDeployment(t, c, ns)) {
		out[rs.Name] = fmt.Sprintf("revision %s history %q replicas %d", rs.Annotations["deployment.kubernetes.io/revision"],
			rs.Annotations["deployment.kubernetes.io/revision-history"], ptr.Deref(rs.Spec.Replicas, 1))
	}
	return out
}

// sameTwins fails t unless ns a and ns b hold the same Deployment spec and annotations and
// the same ReplicaSets.
func sameTwins(t *testing.T, c *framework.Cluster, a, b, when string) {
	t.Helper()
	da, db := getDeployment(t, c, a), getDeployment(t, c, b)
	if diff := cmp.Diff(db.Spec, da.Spec); diff != "" {
		t.Errorf("%s: spec differs (-kubectl +rollplan):\n%s", when, diff)
	}
	if diff := cmp.Diff(db.Annotations, da.Annotations); diff != "" {
		t.Errorf("%s: annotations differ (-kubectl +rollplan):\n%s", when, diff)
	}
	if diff := cmp.Diff(rsSummary(t, c, b), rsSummary(t, c, a)); diff != "" {
		t.Errorf("%s: replicasets differ (-kubectl +rollplan):\n%s", when, diff)
	}
}

var reuseRE = regexp.MustCompile(`the controller reuses (\S+) as revision (\d+)`)

// TestUndoMatchesKubectl rolls back twins, one with rollplan and one with kubectl v1.36.3
// (the cluster's own), to a restart revision, to the previous revision and to a plain
// revision, and checks after each that specs, annotations and ReplicaSets are identical, and
// that rollplan's preview named the ReplicaSet and revision the controller then used.
func TestUndoMatchesKubectl(t *testing.T) {
	c := framework.Get(t)
	a, b := c.Namespace(t), c.Namespace(t)
	makeHistory(t, c, a)
	makeHistory(t, c, b)
	sameTwins(t, c, a, b, "after the same history")

	// history: renumbered revision, restart tag, current marker.
	res := c.Plugin(t, "history", "-n", a, "deploy/web", "-o", "json")
	if res.ExitCode != 0 {
		t.Fatalf("history: exit %d: %s", res.ExitCode, res.Stderr)
	}
	var h v1alpha1.RolloutHistory
	if err := json.Unmarshal([]byte(res.Stdout), &h); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range h.Revisions {
		got = append(got, fmt.Sprintf("%d %v earlier=%v restart=%v current=%v", r.Revision, r.Images, r.EarlierRevisions, r.Restart, r.Current))
	}
	want := []string{
		"2 [nginx:1.19] earlier=[] restart=false current=false",
		"3 [nginx:1.19] earlier=[] restart=true current=false",
		"4 [nginx:1.20] earlier=[] restart=false current=false",
		"5 [nginx:1.18] earlier=[1] restart=false current=true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}

	// --revision prints what kubectl prints.
	ours, theirs := c.Plugin(t, "history", "-n", a, "deploy/web", "--revision", "3"), c.Kubectl(t, "rollout", "history", "-n", a, "deploy/web", "--revision", "3")
	if ours.ExitCode != 0 || ours.Stdout != theirs.Stdout {
		t.Errorf("history --revision 3: exit %d\nrollplan:\n%s\nkubectl:\n%s", ours.ExitCode, ours.Stdout, theirs.Stdout)
	}

	for _, n := range []string{"3", "0", "2"} {
		before := fingerprint(t, c, a)
		prev := c.Plugin(t, "undo", "-n", a, "deploy/web", "--to-revision", n, "--dry-run=client")
		if prev.ExitCode != 0 || !strings.Contains(prev.Stdout, "Outcome:     will roll back") {
			t.Fatalf("undo --to-revision %s --dry-run=client: exit %d\n%s%s", n, prev.ExitCode, prev.Stdout, prev.Stderr)
		}
		m := reuseRE.FindStringSubmatch(prev.Stdout)
		if m == nil {
			t.Fatalf("preview names no reused ReplicaSet:\n%s", prev.Stdout)
		}
		if after := fingerprint(t, c, a); after != before {
			t.Errorf("--dry-run=client changed the Deployment:\n%s\n%s", before, after)
		}

		ours := c.Plugin(t, "undo", "-n", a, "deploy/web", "--to-revision", n)
		theirs := c.Kubectl(t, "rollout", "undo", "-n", b, "deploy/web", "--to-revision", n)
		if ours.ExitCode != 0 || theirs.ExitCode != 0 {
			t.Fatalf("undo --to-revision %s: rollplan exit %d (%s), kubectl exit %d (%s)", n, ours.ExitCode, ours.Stderr, theirs.ExitCode, theirs.Stderr)
		}
		if last := lastLine(ours.Stdout); last != strings.TrimSpace(theirs.Stdout) {
			t.Errorf("undo --to-revision %s: rollplan says %q, kubectl %q", n, last, strings.TrimSpace(theirs.Stdout))
		}
		c.WaitForRollout(t, a, "web", time.Minute)
		c.WaitForRollout(t, b, "web", time.Minute)
		sameTwins(t, c, a, b, "after undo --to-revision "+n)
		if s := rsSummary(t, c, a)[m[1]]; !strings.HasPrefix(s, "revision "+m[2]+" ") {
			t.Errorf("undo --to-revision %s: preview said %s becomes revision %s; it is %q", n, m[1], m[2], s)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestOutcomesMatchKubectl checks the predicted outcome of undo for skip, not found and
// refuse, and that every refusal and success of undo, pause, resume and restart prints what
// kubectl prints, with its exit code, and changes nothing when kubectl changes nothing.
func TestOutcomesMatchKubectl(t *testing.T) {
	c := framework.Get(t)
	a, b := c.Namespace(t), c.Namespace(t)
	makeHistory(t, c, a)
	makeHistory(t, c, b)

	// step runs rollplan on a and kubectl on b with the same verb and arguments, and checks
	// rollplan's exit code, its last stdout line and its stderr against kubectl's. unchanged:
	// kubectl changed nothing, and neither may rollplan.
	step := func(name string, ours, theirs []string, unchanged bool) {
		t.Helper()
		fpA, fpB := fingerprint(t, c, a), fingerprint(t, c, b)
		o := c.Plugin(t, append([]string{"-n", a}, ours...)...)
		k := c.Kubectl(t, append([]string{"-n", b}, theirs...)...)
		if o.ExitCode != k.ExitCode {
			t.Errorf("%s: rollplan exit %d, kubectl exit %d\nrollplan: %s%s\nkubectl: %s%s", name, o.ExitCode, k.ExitCode, o.Stdout, o.Stderr, k.Stdout, k.Stderr)
		}
		if o.Stderr != k.Stderr {
			t.Errorf("%s: stderr: rollplan %q, kubectl %q", name, o.Stderr, k.Stderr)
		}
		if k.Stdout != "" && lastLine(o.Stdout) != strings.TrimSpace(k.Stdout) {
			t.Errorf("%s: stdout: rollplan %q, kubectl %q", name, lastLine(o.Stdout), k.Stdout)
		}
		if unchanged {
			if fp := fingerprint(t, c, a); fp != fpA {
				t.Errorf("%s: rollplan changed the Deployment:\n%s\n%s", name, fpA, fp)
			}
			if fp := fingerprint(t, c, b); fp != fpB {
				t.Errorf("%s: kubectl changed the Deployment: the test's premise is wrong", name)
			}
		}
	}
	predict := func(n, want string) {
		t.Helper()
		p := c.Plugin(t, "undo", "-n", a, "deploy/web", "--to-revision", n, "--dry-run=client")
		if !strings.Contains(p.Stdout, "Outcome:     "+want) {
			t.Errorf("undo --to-revision %s predicted\n%s\nwant outcome %q", n, p.Stdout, want)
		}
	}

	predict("5", "skipped")
	step("undo to the current revision", []string{"undo", "deploy/web", "--to-revision", "5"}, []string{"rollout", "undo", "deploy/web", "--to-revision", "5"}, true)
	predict("1", "revision not found")
	k := c.Kubectl(t, "-n", b, "rollout", "undo", "deploy/web", "--to-revision", "1")
	o := c.Plugin(t, "-n", a, "undo", "deploy/web", "--to-revision", "1")
	if k.ExitCode != 1 || o.ExitCode != 1 || !strings.HasPrefix(o.Stderr, strings.TrimSuffix(k.Stderr, "\n")) {
		t.Errorf("undo to renumbered revision 1: rollplan exit %d %q, kubectl exit %d %q", o.ExitCode, o.Stderr, k.ExitCode, k.Stderr)
	}

	step("pause", []string{"pause", "deploy/web"}, []string{"rollout", "pause", "deploy/web"}, false)
	step("pause again", []string{"pause", "deploy/web"}, []string{"rollout", "pause", "deploy/web"}, true)
	predict("2", "refused")
	step("undo while paused", []string{"undo", "deploy/web", "--to-revision", "2"}, []string{"rollout", "undo", "deploy/web", "--to-revision", "2"}, true)
	step("restart while paused", []string{"restart", "deploy/web"}, []string{"rollout", "restart", "deploy/web"}, true)
	step("resume", []string{"resume", "deploy/web"}, []string{"rollout", "resume", "deploy/web"}, false)
	step("resume again", []string{"resume", "deploy/web"}, []string{"rollout", "resume", "deploy/web"}, true)
	sameTwins(t, c, a, b, "after pause, refusals and resume")

	// restart: the same change as kubectl's but for the second restartedAt is taken at, and
	// the new ReplicaSet is the one the preview named.
	res := c.Plugin(t, "restart", "-n", a, "deploy/web", "-o", "json")
	k = c.Kubectl(t, "rollout", "restart", "-n", b, "deploy/web")
	if res.ExitCode != 0 || k.ExitCode != 0 || res.Stderr != k.Stdout {
		t.Fatalf("restart: rollplan exit %d stderr %q; kubectl exit %d stdout %q", res.ExitCode, res.Stderr, k.ExitCode, k.Stdout)
	}
	var plan v1alpha1.RolloutPlan
	if err := json.Unmarshal([]byte(res.Stdout), &plan); err != nil {
		t.Fatal(err)
	}
	c.WaitForRollout(t, a, "web", time.Minute)
	c.WaitForRollout(t, b, "web", time.Minute)
	da, db := getDeployment(t, c, a), getDeployment(t, c, b)
	for _, d := range []*appsv1.Deployment{da, db} {
		at, err := time.Parse(time.RFC3339, d.Spec.Template.Annotations[restartedAt])
		if err != nil || time.Since(at) > 2*time.Minute {
			t.Errorf("%s: restartedAt %q: %v", d.Namespace, d.Spec.Template.Annotations[restartedAt], err)
		}
		d.Spec.Template.Annotations[restartedAt] = "normalised"
	}
	if diff := cmp.Diff(db.Spec, da.Spec); diff != "" {
		t.Errorf("after restart: spec differs apart from restartedAt (-kubectl +rollplan):\n%s", diff)
	}
	if s, ok := rsSummary(t, c, a)[plan.NewReplicaSet.Name]; !ok || !strings.HasPrefix(s, fmt.Sprintf("revision %d ", plan.NewReplicaSet.Revision)) {
		t.Errorf("restart: preview named %s revision %d; replicasets %v", plan.NewReplicaSet.Name, plan.NewReplicaSet.Revision, rsSummary(t, c, a))
	}
}

// releaseN releases n held pods of ns matching selector.
func releaseN(t *testing.T, c *framework.Cluster, ns, selector string, n int) {
	t.Helper()
	held := c.HeldPods(t, ns, selector)
	if len(held) < n {
		t.Fatalf("%d held pods match %q, want at least %d", len(held), selector, n)
	}
	patch := []byte(`{"metadata":{"labels":{"` + framework.HoldLabel + `":null}}}`)
	for _, p := range held[:n] {
		if _, err := c.Client.CoreV1().Pods(ns).Patch(t.Context(), p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("release pod %s: %v", p.Name, err)
		}
	}
}

// waitReplicas waits until the ReplicaSets of ns/web have these spec.replicas, and the
// recorder has been quiet for a while.
func waitReplicas(t *testing.T, c *framework.Cluster, rec *framework.Recorder, ns string, want map[string]int32) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := map[string]int32{}
		for _, rs := range c.ReplicaSetsOf(t, getDeployment(t, c, ns)) {
			got[rs.Name] = ptr.Deref(rs.Spec.Replicas, 1)
		}
		if cmp.Equal(want, got) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replicas %v, want %v", got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rec.WaitQuiet(t, 3*time.Second, 30*time.Second)
}

// TestPauseMidRolloutWritesAsShown brings a rollout of 10 replicas (25%/25%) to new 10 pods
// (6 available) and old 2, 12 pods in all, by releasing held pods a few at a time; pausing it
// then makes the controller top up to replicas+maxSurge = 13. The writes the real controller
// makes after `rollplan pause` are exactly those the pause showed.
func TestPauseMidRolloutWritesAsShown(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := heldDeployment(t, c, ns, framework.NewDeployment("web").Replicas(10).Image("nginx:1.18").RollingUpdate("25%", "25%"))
	oldRS := c.ReplicaSetsOf(t, d)[0].Name
	rec := c.RecordReplicaSets(t, ns)
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19" })
	var newRS, hash string
	deadline := time.Now().Add(30 * time.Second)
	for newRS == "" && time.Now().Before(deadline) {
		for _, rs := range c.ReplicaSetsOf(t, d) {
			if rs.Name != oldRS {
				newRS, hash = rs.Name, rs.Labels["pod-template-hash"]
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if newRS == "" {
		t.Fatal("the controller made no new ReplicaSet")
	}
	sel := "pod-template-hash=" + hash
	waitReplicas(t, c, rec, ns, map[string]int32{oldRS: 8, newRS: 5})
	releaseN(t, c, ns, sel, 3)
	waitReplicas(t, c, rec, ns, map[string]int32{oldRS: 5, newRS: 8})
	releaseN(t, c, ns, sel, 2)
	waitReplicas(t, c, rec, ns, map[string]int32{oldRS: 3, newRS: 10})
	releaseN(t, c, ns, sel, 1)
	waitReplicas(t, c, rec, ns, map[string]int32{oldRS: 2, newRS: 10})
	_, err := c.WaitForDeployment(t.Context(), ns, "web", 30*time.Second, func(d *appsv1.Deployment) (string, bool, error) {
		s := d.Status
		return fmt.Sprintf("status %+v", s), s.ObservedGeneration == d.Generation && s.Replicas == 12 && s.AvailableReplicas == 8, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rec.WaitQuiet(t, 3*time.Second, 30*time.Second)

	before := len(rec.Writes())
	preview := c.Plugin(t, "pause", "-n", ns, "deploy/web", "--dry-run=client", "-o", "json")
	res := c.Plugin(t, "pause", "-n", ns, "deploy/web", "-o", "json")
	if preview.ExitCode != 0 || res.ExitCode != 0 || strings.TrimSpace(res.Stderr) != "deployment.apps/web paused" {
		t.Fatalf("pause: exit %d / %d: %s %s", preview.ExitCode, res.ExitCode, preview.Stderr, res.Stderr)
	}
	var shown, previewed v1alpha1.RolloutPlan
	if err := json.Unmarshal([]byte(res.Stdout), &shown); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(preview.Stdout), &previewed); err != nil {
		t.Fatal(err)
	}
	want := planWrites(&shown)
	if diff := cmp.Diff(planWrites(&previewed), want); diff != "" {
		t.Errorf("the dry run showed other writes than the pause (-dry run +pause):\n%s", diff)
	}
	if diff := cmp.Diff([]string{fmt.Sprintf("scale %s 10->11", newRS)}, want); diff != "" {
		t.Errorf("pause showed (-expected +shown):\n%s", diff)
	}
	rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= before+len(want) })
	got := scaleWrites(rec.WaitQuiet(t, 3*time.Second, 30*time.Second)[before:])
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the controller's writes after the pause differ from the shown ones (-shown +real):\n%s", diff)
	}
	if !getDeployment(t, c, ns).Spec.Paused {
		t.Error("the Deployment is not paused")
	}
}

// TestGuardsRefuseAfterAConcurrentChange sends rollplan's guarded patches (undo's JSON patch
// with its resourceVersion test, pause's merge patch with its resourceVersion) after the
// Deployment changed since the preview: the real API server refuses both and the change
// survives. kubectl's unguarded undo patch, sent the same way, overwrites it.
func TestGuardsRefuseAfterAConcurrentChange(t *testing.T) {
	c := framework.Get(t)
	ns := c.Namespace(t)
	makeHistory(t, c, ns)
	ctx := t.Context()
	state, err := cluster.LoadLive(ctx, c.Client, ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	u, err := rollout.PreviewUndo(state.Deployment, state.ReplicaSets, 2)
	if err != nil || u.Outcome != rollout.UndoRollBack {
		t.Fatalf("preview: %v %v", err, u)
	}
	pause, err := rollout.PreviewPause(state.Deployment, state.ReplicaSets)
	if err != nil {
		t.Fatal(err)
	}
	c.UpdateDeployment(t, ns, "web", func(d *appsv1.Deployment) { d.Annotations["example.com/owner"] = "someone else" })

	deployments := c.Client.AppsV1().Deployments(ns)
	_, err = deployments.Patch(ctx, "web", types.JSONPatchType, u.Patch.Guarded, metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) {
		t.Errorf("guarded undo patch after a change: %v, want 422 Invalid", err)
	}
	_, err = deployments.Patch(ctx, "web", types.StrategicMergePatchType, pause.Patch.Guarded, metav1.PatchOptions{})
	if !apierrors.IsConflict(err) {
		t.Errorf("guarded pause patch after a change: %v, want 409 Conflict", err)
	}
	d := getDeployment(t, c, ns)
	if d.Annotations["example.com/owner"] != "someone else" || d.Spec.Paused || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.18" {
		t.Errorf("the Deployment changed: annotations %v paused %v image %s", d.Annotations, d.Spec.Paused, d.Spec.Template.Spec.Containers[0].Image)
	}

	// What a guard prevents: kubectl's own patch replaces the annotations wholesale.
	if _, err := deployments.Patch(ctx, "web", types.JSONPatchType, u.Patch.Kubectl, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := getDeployment(t, c, ns).Annotations["example.com/owner"]; ok {
		t.Error("kubectl's unguarded patch kept the concurrent annotation: the premise of the guard is wrong")
	}

	// And through the binary: a server-side dry run says the server's result is the
	// prediction, and changes nothing.
	c.WaitForRollout(t, ns, "web", time.Minute)
	fp := fingerprint(t, c, ns)
	res := c.Plugin(t, "undo", "-n", ns, "deploy/web", "--to-revision", "4", "--dry-run=server")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Server dry run: accepted; the server's result has exactly the predicted pod template and annotations.") ||
		lastLine(res.Stdout) != "deployment.apps/web rolled back (server dry run)" {
		t.Errorf("undo --dry-run=server: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if got := fingerprint(t, c, ns); got != fp {
		t.Errorf("--dry-run=server changed the Deployment:\n%s\n%s", fp, got)
	}
}

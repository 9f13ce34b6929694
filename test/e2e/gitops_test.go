//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// The GitOps tests of issue 9: a restart by `kubectl rollplan reload` touches only the pod
// template annotation rollplan.dev/config-checksums, under its own field manager, so a GitOps
// tool applying the Deployment from Git (which never holds that annotation) keeps it:
// neither reverts it nor rolls the pods again. Each test applies "Git" (a ConfigMap and a
// Deployment reading one of its keys) as the tool does, changes the ConfigMap in Git and
// applies again, runs reload, then applies Git once more, as the tool's next sync or
// reconcile does.
//
// Flux: the real apply code of kustomize-controller (github.com/fluxcd/pkg/ssa with the
// controller's options: test/gitops/fluxapply, built into _output/bin by
// hack/cluster/build.sh). Argo CD: the real kubectl v1.36.3, as Argo CD's sync runs it
// (argoproj/gitops-engine pkg/utils/kube/resource_ops.go, newApplyOptionsCommon and
// newApplyOptions: `kubectl apply` with field manager argocd-controller, client-side by
// default; with the sync option ServerSideApply=true, server-side with --force-conflicts).

// gitManifest writes Git's manifest of ns into dir: ConfigMap app with key A = value, and
// Deployment web (2 replicas) whose container reads key A. It returns the file's path.
func gitManifest(t *testing.T, dir, ns, value string) string {
	t.Helper()
	doc := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  namespace: %[1]s
data:
  A: %[2]q
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: %[1]s
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: nginx:1.18
        env:
        - name: K_A
          valueFrom:
            configMapKeyRef:
              name: app
              key: A
`, ns, value)
	path := filepath.Join(dir, "app.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// gitopsApply applies a manifest file as one GitOps tool does; it returns the tool's output.
type gitopsApply func(t *testing.T, c *framework.Cluster, file string) string

// fluxApply applies file as Flux's kustomize-controller does (test/gitops/fluxapply): its
// output is the change set, one "Kind/namespace/name action" line per object.
func fluxApply(t *testing.T, c *framework.Cluster, file string) string {
	t.Helper()
	bin := filepath.Join(c.BinDir, "fluxapply")
	if dir := os.Getenv("ROLLPLAN_BIN"); dir != "" {
		bin = filepath.Join(dir, "fluxapply")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s not found: run hack/cluster/build.sh (make cluster-binaries) first", bin)
	}
	res, err := c.Run(t.Context(), bin, "-kubeconfig", c.Kubeconfig, "-f", file)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("fluxapply -f %s: exit %d, %v\nstdout:\n%s\nstderr:\n%s", file, res.ExitCode, err, res.Stdout, res.Stderr)
	}
	return res.Stdout
}

// argoApply applies file as Argo CD's sync does, client-side (its default) or server-side
// (ServerSideApply=true).
func argoApply(serverSide bool) gitopsApply {
	return func(t *testing.T, c *framework.Cluster, file string) string {
		t.Helper()
		args := []string{"apply", "-f", file, "--field-manager", "argocd-controller"}
		if serverSide {
			args = append(args, "--server-side", "--force-conflicts")
		}
		res := c.Kubectl(t, args...)
		if res.ExitCode != 0 {
			t.Fatalf("kubectl %v: exit %d\n%s%s", args, res.ExitCode, res.Stdout, res.Stderr)
		}
		return res.Stdout
	}
}

// gitopsRun is what one GitOps scenario saw.
type gitopsRun struct {
	ns, dir string
	// restarted is web after reload's restart (and its rollout).
	restarted *appsv1.Deployment
	// after is web after the next apply of the unchanged Git manifest and its rollout.
	after *appsv1.Deployment
	// rsRestarted and rsAfter are web's ReplicaSets at those two points.
	rsRestarted, rsAfter []string
	// runsBefore, runsRestarted and runsAfter name the ReplicaSet running web's pods before
	// the restart, after it, and after the apply that followed it.
	runsBefore, runsRestarted, runsAfter string
	// reapply is the tool's output of that apply.
	reapply string
}

// runGitOps: Git (A=1) applied, web rolled out and adopted by reload; Git changed (A=2) and
// applied; `reload deploy/web --yes` plus restartArgs restarts web; Git applied once more,
// unchanged, as the next sync or reconcile does.
func runGitOps(t *testing.T, apply gitopsApply, restartArgs ...string) gitopsRun {
	t.Helper()
	f := newReloadNamespace(t)
	c := f.c
	r := gitopsRun{ns: f.ns, dir: t.TempDir()}
	apply(t, c, gitManifest(t, r.dir, r.ns, "1"))
	c.WaitForRollout(t, r.ns, "web", time.Minute)
	f.mustReload("deploy/web", "--adopt", "--yes")

	git := gitManifest(t, r.dir, r.ns, "2")
	apply(t, c, git)
	r.runsBefore = f.currentReplicaSet("web")
	res := f.mustReload(append([]string{"deploy/web", "--yes"}, restartArgs...)...)
	if !strings.Contains(res.Stdout, "deployment.apps/web restarted") {
		t.Fatalf("reload did not restart web:\n%s", res.Stdout)
	}
	r.restarted = c.WaitForRollout(t, r.ns, "web", time.Minute)
	r.rsRestarted = f.replicaSetNames("web")
	r.runsRestarted = f.currentReplicaSet("web")
	if r.runsRestarted == r.runsBefore {
		t.Fatalf("the restart did not roll web to another ReplicaSet (%s)", r.runsBefore)
	}
	if restartedWith(r.restarted) == "" {
		t.Fatalf("no %s on web's pod template after the restart", reload.ChecksumsAnnotation)
	}

	r.reapply = apply(t, c, git)
	r.after = c.WaitForRollout(t, r.ns, "web", time.Minute)
	r.rsAfter = f.replicaSetNames("web")
	r.runsAfter = f.currentReplicaSet("web")
	t.Logf("the apply after the restart:\n%s", r.reapply)
	return r
}

// assertKept checks that the apply after the restart left web alone: the same checksums
// annotation, no spec write (generation), and no other ReplicaSet nor rollout.
func (r gitopsRun) assertKept(t *testing.T) {
	t.Helper()
	if got, want := restartedWith(r.after), restartedWith(r.restarted); got != want {
		t.Errorf("the apply from Git changed %s: %q -> %q", reload.ChecksumsAnnotation, want, got)
	}
	if r.after.Generation != r.restarted.Generation {
		t.Errorf("the apply from Git wrote web's spec: generation %d -> %d", r.restarted.Generation, r.after.Generation)
	}
	if !slices.Equal(r.rsAfter, r.rsRestarted) || r.runsAfter != r.runsRestarted {
		t.Errorf("after the apply from Git web runs %s of ReplicaSets %v, want %s of %v (those after the restart)",
			r.runsAfter, r.rsAfter, r.runsRestarted, r.rsRestarted)
	}
	if !ownsTemplateAnnotation(r.after, "rollplan-reload") {
		t.Errorf("field manager rollplan-reload no longer owns the annotation: %+v", r.after.ManagedFields)
	}
}

// TestGitOpsFluxKeepsTheRestart: kustomize-controller's apply (drift detection by server-side
// dry run, its managedFields cleanup, server-side apply) after a restart finds web unchanged
// and leaves the annotation owned by rollplan-reload.
func TestGitOpsFluxKeepsTheRestart(t *testing.T) {
	r := runGitOps(t, fluxApply)
	r.assertKept(t)
	if want := "Deployment/" + r.ns + "/web unchanged"; !strings.Contains(r.reapply, want) {
		t.Errorf("Flux's change set after the restart:\n%s\nwant %q", r.reapply, want)
	}
}

// TestGitOpsFluxKeepsADrivenRestart: the same with `reload --drive`: drive's writes (the
// takeover that carries the annotation, the ReplicaSets, the state, the hand-back) go under
// reload's field manager too (drive.Options.FieldManager), so Flux's next apply finds web
// unchanged; under kubectl-rollplan, drive's own, Flux would take the annotation over and
// remove it, as the control below shows for the one-write restart.
func TestGitOpsFluxKeepsADrivenRestart(t *testing.T) {
	r := runGitOps(t, fluxApply, "--drive")
	r.assertKept(t)
	if want := "Deployment/" + r.ns + "/web unchanged"; !strings.Contains(r.reapply, want) {
		t.Errorf("Flux's change set after the driven restart:\n%s\nwant %q", r.reapply, want)
	}
	for _, m := range r.after.ManagedFields {
		if m.Manager == kube.FieldManager {
			t.Errorf("a field of web is managed by %s after reload --drive: %+v", kube.FieldManager, m)
		}
	}
}

// TestGitOpsFluxRevertsAKubectlPrefixedManager is the control of the test above and the
// reason for reload's default field manager: written under kubectl-rollplan, the restart is
// taken over by kustomize-controller (its cleanup renames managers starting with "kubectl"
// to its own) and removed by its apply: web rolls back to the ReplicaSet of before.
func TestGitOpsFluxRevertsAKubectlPrefixedManager(t *testing.T) {
	r := runGitOps(t, fluxApply, "--field-manager", "kubectl-rollplan")
	if a := restartedWith(r.after); a != "" {
		t.Errorf("%s = %q after Flux's apply, want it removed", reload.ChecksumsAnnotation, a)
	}
	if r.after.Generation == r.restarted.Generation {
		t.Errorf("Flux's apply did not write web's spec (generation %d)", r.after.Generation)
	}
	if want := "Deployment/" + r.ns + "/web configured"; !strings.Contains(r.reapply, want) {
		t.Errorf("Flux's change set:\n%s\nwant %q", r.reapply, want)
	}
	// The template is Git's again: the controller rolls web back to the ReplicaSet of before
	// the restart, a second rollout.
	if r.runsAfter != r.runsBefore {
		t.Errorf("after Flux's apply web runs ReplicaSet %s, want %s of before the restart (the restart's was %s)",
			r.runsAfter, r.runsBefore, r.runsRestarted)
	}
}

// TestGitOpsArgoCDClientSideKeepsTheRestart: Argo CD's default sync (kubectl apply, a
// three-way merge against the last-applied-configuration) leaves an annotation Git never
// held alone; `kubectl diff` of Git after the restart shows nothing.
func TestGitOpsArgoCDClientSideKeepsTheRestart(t *testing.T) {
	r := runGitOps(t, argoApply(false))
	r.assertKept(t)
	if want := "deployment.apps/web unchanged"; !strings.Contains(r.reapply, want) {
		t.Errorf("kubectl apply after the restart:\n%s\nwant %q", r.reapply, want)
	}
	assertNoDiff(t, r, false)
}

// TestGitOpsArgoCDServerSideKeepsTheRestart: with ServerSideApply=true Argo CD's apply owns
// only the fields in Git; the annotation stays rollplan-reload's.
func TestGitOpsArgoCDServerSideKeepsTheRestart(t *testing.T) {
	r := runGitOps(t, argoApply(true))
	r.assertKept(t)
	assertNoDiff(t, r, true)
}

// assertNoDiff runs `kubectl diff -f` of the Git manifest (server-side with serverSide, as
// field manager argocd-controller) and fails t unless it exits 0 with no output.
func assertNoDiff(t *testing.T, r gitopsRun, serverSide bool) {
	t.Helper()
	c := framework.Get(t)
	args := []string{"diff", "-f", filepath.Join(r.dir, "app.yaml"), "--field-manager", "argocd-controller"}
	if serverSide {
		args = append(args, "--server-side", "--force-conflicts")
	}
	res := c.Kubectl(t, args...)
	t.Logf("kubectl %s: exit %d\n%s%s", strings.Join(args, " "), res.ExitCode, res.Stdout, res.Stderr)
	if res.ExitCode != 0 || res.Stdout != "" {
		t.Errorf("kubectl diff of Git after the restart: exit %d, want 0 and no output\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}

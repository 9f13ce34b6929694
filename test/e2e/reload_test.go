//go:build e2e

package e2e

import (
	"encoding/base64"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// TestReloadRestartsExactlyTheDeploymentsThatSeeTheChangedKey: ConfigMap app has keys A and
// B; sees-a reads A, sees-b reads B, sees-all takes every key (envFrom). After --adopt
// records the checksums, an edit of A restarts sees-a and sees-all and not sees-b; the
// restart writes only the pod template annotation, as field manager rollplan-reload. With
// --all only opted-in Deployments are looked at.
func TestReloadRestartsExactlyTheDeploymentsThatSeeTheChangedKey(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("app", map[string]string{"A": "1", "B": "1"})
	optIn := func(d *appsv1.Deployment) { d.Annotations = map[string]string{reload.ReloadAnnotation: "true"} }
	f.createRolling(framework.NewDeployment("sees-a").Replicas(2), func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{keyEnv("app", "A")}
		optIn(d)
	})
	f.createRolling(framework.NewDeployment("sees-b").Replicas(2), func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{keyEnv("app", "B")}
		optIn(d)
	})
	f.createRolling(framework.NewDeployment("sees-all").Replicas(2), func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}}}
	})
	for _, n := range []string{"sees-a", "sees-b", "sees-all"} {
		c.WaitForRollout(t, ns, n, time.Minute)
	}
	res := f.mustReload("deploy/sees-a", "deploy/sees-b", "deploy/sees-all", "--adopt", "--yes")
	if !strings.Contains(res.Stdout, "deployment.apps/sees-b config checksums adopted") {
		t.Fatalf("adopt output:\n%s", res.Stdout)
	}
	before := map[string][]string{}
	gens := map[string]int64{}
	for _, n := range []string{"sees-a", "sees-b", "sees-all"} {
		before[n] = f.replicaSetNames(n)
		gens[n] = f.get(n).Generation
	}

	f.setConfigMap("app", map[string]string{"A": "2", "B": "1"})
	// --all looks at opted-in Deployments only: sees-all is not opted in.
	res = f.mustReload("--all", "--yes")
	if !strings.Contains(res.Stdout, "deployment.apps/sees-a restarted") || strings.Contains(res.Stdout, "sees-all") ||
		strings.Contains(res.Stdout, "deployment.apps/sees-b restarted") {
		t.Fatalf("reload --all output:\n%s", res.Stdout)
	}
	if g := f.get("sees-b").Generation; g != gens["sees-b"] {
		t.Errorf("sees-b (reads key B only) was written: generation %d -> %d", gens["sees-b"], g)
	}
	if g := f.get("sees-all").Generation; g != gens["sees-all"] {
		t.Errorf("sees-all (not opted in) was written by --all: generation %d -> %d", gens["sees-all"], g)
	}
	// Named, sees-all restarts too (a name needs no opt-in); sees-b still does not.
	res = f.mustReload("deploy/sees-all", "deploy/sees-b", "--yes")
	if !strings.Contains(res.Stdout, "deployment.apps/sees-all restarted") || strings.Contains(res.Stdout, "sees-b restarted") {
		t.Fatalf("reload of sees-all and sees-b:\n%s", res.Stdout)
	}
	for n, want := range map[string]bool{"sees-a": true, "sees-b": false, "sees-all": true} {
		after := f.replicaSetNames(n)
		if restarted := !slices.Equal(after, before[n]); restarted != want {
			t.Errorf("%s: restarted = %v, want %v (replicasets %v -> %v)", n, restarted, want, before[n], after)
		}
	}
	a := f.get("sees-a")
	if a.Generation != gens["sees-a"]+1 {
		t.Errorf("sees-a: generation %d -> %d, want one spec write", gens["sees-a"], a.Generation)
	}
	if _, ok := a.Spec.Template.Annotations[reload.ChecksumsAnnotation]; !ok {
		t.Errorf("sees-a: no %s on the pod template after the restart", reload.ChecksumsAnnotation)
	}
	if !ownsTemplateAnnotation(a, "rollplan-reload") {
		t.Errorf("sees-a: field manager rollplan-reload does not own the template annotation: %+v", a.ManagedFields)
	}
	// Nothing changed since: a second run restarts nothing.
	res = f.mustReload("deploy/sees-a", "deploy/sees-all", "--yes")
	if !strings.Contains(res.Stdout, "Nothing to restart.") {
		t.Errorf("second reload:\n%s", res.Stdout)
	}
}

func ownsTemplateAnnotation(d *appsv1.Deployment, manager string) bool {
	for _, e := range d.ManagedFields {
		if e.Manager == manager && e.FieldsV1 != nil && strings.Contains(string(e.FieldsV1.Raw), `"f:`+reload.ChecksumsAnnotation+`"`) {
			return true
		}
	}
	return false
}

// TestReloadRestoringOldDataReusesTheOldReplicaSet: content 2 then 3 each restart web;
// restoring 2 makes the plan say the revision-2 ReplicaSet comes back, and the controller
// indeed scales that ReplicaSet up again instead of creating one.
func TestReloadRestoringOldDataReusesTheOldReplicaSet(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("app", map[string]string{"A": "1"})
	f.createRolling(framework.NewDeployment("web").Replicas(2), readsKey("app", "A"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	f.mustReload("deploy/web", "--adopt", "--yes")
	f.setConfigMap("app", map[string]string{"A": "2"})
	f.mustReload("deploy/web", "--yes")
	withTwo := f.currentReplicaSet("web")
	f.setConfigMap("app", map[string]string{"A": "3"})
	f.mustReload("deploy/web", "--yes")
	if f.currentReplicaSet("web") == withTwo {
		t.Fatal("content 3 did not make a new ReplicaSet")
	}
	count := len(f.replicaSetNames("web"))

	f.setConfigMap("app", map[string]string{"A": "2"})
	res := f.mustReload("deploy/web", "--yes")
	if !strings.Contains(res.Stdout, withTwo+" (revision 4), reused") || !strings.Contains(res.Stdout, "Config rollback: the pods of revision 2 (replicaset "+withTwo+")") {
		t.Errorf("the plan does not show %s reused:\n%s", withTwo, res.Stdout)
	}
	if got := f.currentReplicaSet("web"); got != withTwo {
		t.Errorf("after restoring content 2 the current ReplicaSet is %s, want %s (reused)", got, withTwo)
	}
	if n := len(f.replicaSetNames("web")); n != count {
		t.Errorf("ReplicaSets: %d -> %d: restoring old content created one", count, n)
	}
	// history names what changed per revision (the revision-2 ReplicaSet is revision 4 now):
	// 3 records configmap/app first (after the unrecorded 1), 4 changes it back.
	hist := c.Plugin(t, "history", "deploy/web", "-n", ns, "-o", "jsonpath={range .revisions[*]}{.revision}={.config}{\"\\n\"}{end}")
	if hist.ExitCode != 0 {
		t.Fatalf("history: %s", hist.Stderr)
	}
	if want := "1=\n3=[\"+configmap/app\"]\n4=[\"configmap/app\"]\n"; hist.Stdout != want {
		t.Errorf("history config per revision:\n%s\nwant\n%s", hist.Stdout, want)
	}
	if table := c.Plugin(t, "history", "deploy/web", "-n", ns); !strings.Contains(table.Stdout, "CONFIG") || !strings.Contains(table.Stdout, "configmap/app") {
		t.Errorf("history table has no CONFIG column naming configmap/app:\n%s", table.Stdout)
	}
}

// TestReloadRefusesAMissingSecret: a Deployment whose changed ConfigMap would restart it,
// but which reads a Secret that does not exist (not optional): reload refuses with one line
// naming it, exits 1 and writes nothing.
func TestReloadRefusesAMissingSecret(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("app", map[string]string{"A": "1"})
	f.createRolling(framework.NewDeployment("web").Replicas(1), func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{keyEnv("app", "A"), {Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}}}
		d.Spec.Template.Annotations = map[string]string{reload.ChecksumsAnnotation: `{"configmap/app":"0000","secret/db":"0000"}`}
	})
	c.WaitForRollout(t, ns, "web", time.Minute)
	before := f.fingerprint("web")
	res := f.reload("deploy/web", "--yes")
	if res.ExitCode != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	msg := strings.TrimSpace(res.Stderr)
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "secret/db not found") || !strings.Contains(msg, "nothing was written") {
		t.Errorf("stderr is not one line naming secret/db and saying nothing was written:\n%s", res.Stderr)
	}
	if after := f.fingerprint("web"); after != before {
		t.Errorf("the Deployment changed:\n%s\n->\n%s", before, after)
	}
}

// TestReloadMaxConcurrentOne: three Deployments share a ConfigMap; after it changes,
// `reload --all --max-concurrent 1` restarts all three, and the ReplicaSet writes show one
// rollout at a time: no Deployment's new ReplicaSet is created before the previous one's
// old ReplicaSet is scaled to 0.
func TestReloadMaxConcurrentOne(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("shared", map[string]string{"K": "1"})
	names := []string{"one", "two", "three"}
	for _, n := range names {
		f.createRolling(framework.NewDeployment(n).Replicas(3), func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{keyEnv("shared", "K")}
			d.Annotations = map[string]string{reload.StakaterAutoAnnotation: "true"}
		})
	}
	for _, n := range names {
		c.WaitForRollout(t, ns, n, time.Minute)
	}
	f.mustReload("--all", "--adopt", "--yes")
	old := map[string]string{}
	for _, n := range names {
		old[n] = f.currentReplicaSet(n)
	}
	rec := c.RecordReplicaSets(t, ns)
	f.setConfigMap("shared", map[string]string{"K": "2"})
	res := f.mustReload("--all", "--max-concurrent", "1", "--yes")
	for _, n := range names {
		if !strings.Contains(res.Stdout, "deployment.apps/"+n+" restarted") {
			t.Errorf("%s not restarted:\n%s", n, res.Stdout)
		}
	}
	writes := rec.WaitQuiet(t, 2*time.Second, time.Minute)
	inFlight := map[string]bool{}
	for _, w := range writes {
		dep := w.Name[:strings.LastIndex(w.Name, "-")]
		switch {
		case w.Op == framework.OpCreate:
			for other, on := range inFlight {
				if on && other != dep {
					t.Errorf("%s created while %s's rollout was in flight; writes: %v", w.Name, other, writes)
				}
			}
			inFlight[dep] = true
		case w.Op == framework.OpScale && w.Name == old[dep] && w.To == 0:
			inFlight[dep] = false
		}
	}
	if len(inFlight) != 3 {
		t.Errorf("rollouts seen: %v, want 3; writes: %v", inFlight, writes)
	}
}

// TestReloadNeverPrintsSecretValues: reload at -v=10 (client-go then logs request and
// response bodies) over a Deployment reading a Secret, changed, adopted and restarted:
// neither the value nor its base64 appears in any output, while other bodies are logged.
func TestReloadNeverPrintsSecretValues(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	const value = "s3cr3t-Value-7f2c91"
	secrets := c.Client.CoreV1().Secrets(ns)
	if _, err := secrets.Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Data: map[string][]byte{"password": []byte(value)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.createRolling(framework.NewDeployment("web").Replicas(1), func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}}
	})
	c.WaitForRollout(t, ns, "web", time.Minute)
	check := func(res framework.Result, what string) {
		t.Helper()
		out := res.Stdout + res.Stderr
		// client-go logs a protobuf body as a hex dump, 16 bytes a row: any 7 characters of
		// the value in a row are a leak (the 19-character value has at least 7 in one row).
		for _, leak := range []string{value, base64.StdEncoding.EncodeToString([]byte(value))} {
			for i := 0; i+7 <= len(leak); i++ {
				if strings.Contains(out, leak[i:i+7]) {
					t.Errorf("%s: output holds part of the secret value (%q of %q)", what, leak[i:i+7], leak)
					break
				}
			}
		}
		if !strings.Contains(res.Stderr, "Response Body") {
			t.Errorf("%s: -v=10 logged no response body at all: the test would not see a leak", what)
		}
	}
	check(f.mustReload("deploy/web", "--adopt", "--yes", "-v=10"), "adopt")
	s, err := secrets.Get(t.Context(), "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data["password"] = []byte(value + "-rotated")
	if _, err := secrets.Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	check(f.mustReload("deploy/web", "--dry-run=server", "-v=10"), "server dry run")
	res := f.mustReload("deploy/web", "--yes", "-v=10")
	check(res, "restart")
	if !strings.Contains(res.Stdout, "secret/db") || !strings.Contains(res.Stdout, "deployment.apps/web restarted") {
		t.Errorf("restart output:\n%s", res.Stdout)
	}
}

// TestPreviewConfigMapManifest: `preview -f` of a ConfigMap manifest (and of a Secret one)
// names the Deployments whose pods would see a changed key, each with the restart's plan,
// and changes nothing: not the ConfigMap, not the Deployments.
func TestPreviewConfigMapManifest(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("app", map[string]string{"A": "1", "B": "1"})
	for _, dk := range [][2]string{{"sees-a", "A"}, {"sees-b", "B"}} {
		f.createRolling(framework.NewDeployment(dk[0]).Replicas(2), readsKey("app", dk[1]))
		c.WaitForRollout(t, ns, dk[0], time.Minute)
	}
	dir := t.TempDir()
	file := dir + "/app.yaml"
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: " + ns + "\ndata:\n  A: \"2\"\n  B: \"1\"\n"
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	before := f.fingerprint("sees-a") + f.fingerprint("sees-b")
	res := c.Plugin(t, "preview", "-n", ns, "-f", file)
	if res.ExitCode != 0 {
		t.Fatalf("preview -f: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	for _, want := range []string{"configmap/app (namespace " + ns + ") would be updated (server-side dry run)",
		"Restart of deployment " + ns + "/sees-a (its pods would see a changed key of configmap/app):", "Outcome: Complete"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("preview output lacks %q:\n%s", want, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "sees-b") {
		t.Errorf("sees-b (key B, unchanged) is in the preview:\n%s", res.Stdout)
	}
	cm, err := c.Client.CoreV1().ConfigMaps(ns).Get(t.Context(), "app", metav1.GetOptions{})
	if err != nil || cm.Data["A"] != "1" {
		t.Errorf("the ConfigMap changed: %v %v", cm.Data, err)
	}
	if after := f.fingerprint("sees-a") + f.fingerprint("sees-b"); after != before {
		t.Errorf("a Deployment changed: %s -> %s", before, after)
	}

	// A Secret manifest: the Deployment reading it would restart; no value is printed.
	f.createRolling(framework.NewDeployment("db-user").Replicas(1), func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Optional: ptrTrue()}}}
	})
	c.WaitForRollout(t, ns, "db-user", time.Minute)
	const value = "pr3view-S3cret-x81"
	secretFile := dir + "/db.yaml"
	if err := os.WriteFile(secretFile, []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: "+ns+"\nstringData:\n  password: "+value+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = c.Plugin(t, "preview", "-n", ns, "-f", secretFile, "-v=10")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "secret/db (namespace "+ns+") would be created") || !strings.Contains(res.Stdout, "Restart of deployment "+ns+"/db-user") {
		t.Errorf("preview of the secret: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	for i := 0; i+7 <= len(value); i++ {
		if strings.Contains(res.Stdout+res.Stderr, value[i:i+7]) {
			t.Errorf("preview output holds part of the secret value (%q)", value[i:i+7])
			break
		}
	}
	if _, err := c.Client.CoreV1().Secrets(ns).Get(t.Context(), "db", metav1.GetOptions{}); err == nil {
		t.Error("the Secret was created by a preview")
	}
}

// TestReloadFirstSight: a Deployment without recorded checksums whose ConfigMap is edited
// after its pods were created is "possibly stale since T" (the edit's managedFields time),
// with that evidence, and reload restarts it; right after, nothing is stale.
func TestReloadFirstSight(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("app", map[string]string{"A": "1"})
	f.createRolling(framework.NewDeployment("web").Replicas(1), readsKey("app", "A"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	res := f.mustReload("deploy/web", "--dry-run=client")
	if !strings.Contains(res.Stdout, "no evidence of stale pods") || !strings.Contains(res.Stdout, "Nothing to restart.") {
		t.Fatalf("before the edit:\n%s", res.Stdout)
	}
	time.Sleep(1100 * time.Millisecond) // managedFields and creation times have 1 s resolution
	f.setConfigMap("app", map[string]string{"A": "2"})
	res = f.mustReload("deploy/web", "--yes")
	for _, want := range []string{"restart (possibly stale since ", "First sight: deployment " + ns + "/web: possibly stale since ",
		"configmap/app data written ", "after the oldest pod of replicaset web-", "deployment.apps/web restarted"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("first-sight reload lacks %q:\n%s", want, res.Stdout)
		}
	}
	res = f.mustReload("deploy/web", "--dry-run=client")
	if !strings.Contains(res.Stdout, "Nothing to restart.") || !strings.Contains(res.Stdout, "configmap/app[A]: current") {
		t.Errorf("after the restart:\n%s", res.Stdout)
	}
}

// TestReloadDrive: --drive walks the restart with drive (held, stepped, handed back); the
// Deployment ends on a new ReplicaSet whose template carries the checksums, with drive's
// annotation gone.
func TestReloadDrive(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("app", map[string]string{"A": "1"})
	f.createRolling(framework.NewDeployment("web").Replicas(2), readsKey("app", "A"))
	c.WaitForRollout(t, ns, "web", time.Minute)
	f.mustReload("deploy/web", "--adopt", "--yes")
	old := f.currentReplicaSet("web")
	f.setConfigMap("app", map[string]string{"A": "2"})
	res := f.mustReload("deploy/web", "--drive", "--yes")
	if !strings.Contains(res.Stdout, "deployment.apps/web restarted") || !strings.Contains(res.Stderr, "handed") {
		t.Errorf("reload --drive:\nstdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	}
	d := c.WaitForRollout(t, ns, "web", time.Minute)
	if cur := f.currentReplicaSet("web"); cur == old {
		t.Errorf("still on %s after the driven restart", cur)
	}
	if d.Spec.Template.Annotations[reload.ChecksumsAnnotation] == "" || d.Spec.Paused {
		t.Errorf("after the drive: template annotations %v, paused %v", d.Spec.Template.Annotations, d.Spec.Paused)
	}
	if _, held := d.Annotations["rollplan.dev/drive"]; held {
		t.Error("drive's annotation left on the Deployment")
	}
}

// TestReloadTimeoutStopsPacing: the first of two restarts never completes (its new pods stay
// unready): after --timeout reload names it, starts no further restart and exits 1.
func TestReloadTimeoutStopsPacing(t *testing.T) {
	f := newReloadNamespace(t)
	c, ns := f.c, f.ns
	f.setConfigMap("app", map[string]string{"A": "1"})
	env := func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{keyEnv("app", "A")}
	}
	f.createRolling(framework.NewDeployment("slow").Replicas(1).Hold(), env)
	stop := c.AutoRelease(t, ns, "app=slow")
	c.WaitForRollout(t, ns, "slow", time.Minute)
	stop()
	f.createRolling(framework.NewDeployment("next").Replicas(1), env)
	c.WaitForRollout(t, ns, "next", time.Minute)
	f.mustReload("deploy/slow", "deploy/next", "--adopt", "--yes")
	gen := f.get("next").Generation
	f.setConfigMap("app", map[string]string{"A": "2"})
	res := f.reload("deploy/slow", "deploy/next", "--timeout", "5s", "--yes")
	if res.ExitCode != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	for _, want := range []string{"the rollout of deployment " + ns + "/slow did not complete within 5s", "restart of deployment " + ns + "/next not started"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
		}
	}
	if g := f.get("next").Generation; g != gen {
		t.Errorf("next was restarted after slow timed out: generation %d -> %d", gen, g)
	}
}

//go:build e2e

package e2e

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// decodeReloadList decodes stdout as one RolloutPlanList and nothing else (unknown fields
// refused: the JSON is exactly the documented object).
func decodeReloadList(t *testing.T, res framework.Result) *v1alpha1.RolloutPlanList {
	t.Helper()
	var l v1alpha1.RolloutPlanList
	dec := json.NewDecoder(strings.NewReader(res.Stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil || dec.More() {
		t.Fatalf("stdout is not one RolloutPlanList (exit %d, %v):\n%s\nstderr:\n%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	return &l
}

// TestReloadOutputJSON: `reload -o json` over a stale Deployment (its ConfigMap key changed
// since --adopt recorded it; it also reads a Secret), a current one, and one refused for a
// missing Secret: stdout is one RolloutPlanList whose items carry each reference's state and
// the decision, the stale one's item is its restart's plan; the refusal exits 1 and writes
// nothing; no Secret value appears anywhere. Without the refused one, -o json --yes restarts
// the stale Deployment, with the result lines on stderr.
func TestReloadOutputJSON(t *testing.T) {
	f := newReloadNamespace(t)
	const value = "0utput-S3cret-v4lue"
	if _, err := f.c.Client.CoreV1().Secrets(f.ns).Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Data: map[string][]byte{"password": []byte(value)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.setConfigMap("app", map[string]string{"A": "1", "B": "1"})
	readsDB := func(name string) func(*appsv1.Deployment) {
		return func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}
		}
	}
	f.createRolling(framework.NewDeployment("stale").Replicas(2), readsKey("app", "A"), readsDB("db"))
	f.createRolling(framework.NewDeployment("current").Replicas(2), readsKey("app", "B"))
	f.createRolling(framework.NewDeployment("refused").Replicas(1), readsKey("app", "A"), readsDB("missing"))
	for _, n := range []string{"stale", "current", "refused"} {
		f.c.WaitForRollout(t, f.ns, n, time.Minute)
	}
	f.mustReload("deploy/stale", "deploy/current", "--adopt", "--yes")
	time.Sleep(1100 * time.Millisecond) // managedFields and creation times have 1 s resolution
	f.setConfigMap("app", map[string]string{"A": "2", "B": "1"})
	before := f.fingerprint("stale") + f.fingerprint("current") + f.fingerprint("refused")
	noSecret := func(res framework.Result, what string) {
		t.Helper()
		for _, leak := range []string{value, base64.StdEncoding.EncodeToString([]byte(value))} {
			if strings.Contains(res.Stdout+res.Stderr, leak) {
				t.Errorf("%s: the output holds the secret value (%q)", what, leak)
			}
		}
	}

	res := f.reload("deploy/stale", "deploy/current", "deploy/refused", "-o", "json", "--yes")
	noSecret(res, "with the refused one")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "secret/missing not found") {
		t.Errorf("exit %d, stderr %q; want 1 naming secret/missing", res.ExitCode, res.Stderr)
	}
	l := decodeReloadList(t, res)
	type row struct{ name, decision, states, outcome string }
	var got []row
	for _, p := range l.Items {
		if p.Config == nil {
			t.Fatalf("item %s has no config section", p.Deployment.Name)
		}
		var states []string
		for _, r := range p.Config.References {
			states = append(states, r.Kind+"/"+r.Name+"="+r.State)
		}
		got = append(got, row{p.Deployment.Name, p.Config.Decision, strings.Join(states, ","), p.Outcome})
	}
	want := []row{
		{"stale", "restart", "ConfigMap/app=changed,Secret/db=current", "Complete"},
		{"current", "none", "ConfigMap/app=current", "NoChange"},
		// Never recorded, and app written after its pods: first-sight evidence, still refused.
		{"refused", "refuse", "ConfigMap/app=possibly-stale,Secret/missing=missing", "NoChange"},
	}
	if len(got) != len(want) {
		t.Fatalf("items %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := l.Items[0]; !s.NewReplicaSet.Created || len(s.Steps) == 0 || s.NewReplicaSet.Name == f.currentReplicaSet("stale") {
		t.Errorf("stale's item is not its restart's plan: newReplicaSet %+v, %d steps", s.NewReplicaSet, len(s.Steps))
	}
	if after := f.fingerprint("stale") + f.fingerprint("current") + f.fingerprint("refused"); after != before {
		t.Errorf("a refused run wrote: %s -> %s", before, after)
	}

	res = f.reload("deploy/stale", "deploy/current", "-o", "json", "--yes")
	noSecret(res, "restart")
	if res.ExitCode != 0 {
		t.Fatalf("exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	l = decodeReloadList(t, res)
	if len(l.Items) != 2 || l.Items[0].Config.Decision != "restart" {
		t.Errorf("items: %+v", l.Items)
	}
	if !strings.Contains(res.Stderr, "deployment.apps/stale restarted") {
		t.Errorf("stderr lacks the result line:\n%s", res.Stderr)
	}
	if restartedWith(f.get("stale")) == "" || restartedWith(f.get("current")) != "" {
		t.Errorf("restarted: stale %q, current %q; want stale only", restartedWith(f.get("stale")), restartedWith(f.get("current")))
	}
	if res := f.reload("deploy/stale", "-o", "json"); res.ExitCode != 1 || !strings.Contains(res.Stderr, "pass --yes") || res.Stdout != "" {
		t.Errorf("-o without --yes: exit %d, stdout %q, stderr %q; want 1 asking for --yes, nothing printed", res.ExitCode, res.Stdout, res.Stderr)
	}
}

//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// reloadKindTemplate returns kind/name's (sts or ds) template checksums annotation and its
// adopted annotation, as stored.
func (f *reloadFixture) kindAnnotations(kind, name string) (tmpl, adopted string) {
	f.t.Helper()
	if kind == "sts" {
		s, err := f.c.Client.AppsV1().StatefulSets(f.ns).Get(f.t.Context(), name, metav1.GetOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		return s.Spec.Template.Annotations[reload.ChecksumsAnnotation], s.Annotations[reload.AdoptedAnnotation]
	}
	d, err := f.c.Client.AppsV1().DaemonSets(f.ns).Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return d.Spec.Template.Annotations[reload.ChecksumsAnnotation], d.Annotations[reload.AdoptedAnnotation]
}

// optInKind makes kind/name read key a of ConfigMap app (env) and opts it in to reload.
func (f *reloadFixture) optInKind(kind, name string) {
	f.t.Helper()
	patch := `{"metadata":{"annotations":{"` + reload.ReloadAnnotation + `":"true"}},"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"K_a","valueFrom":{"configMapKeyRef":{"name":"app","key":"a"}}}]}]}}}}`
	if res := f.c.Kubectl(f.t, "-n", f.ns, "patch", kind+"/"+name, "--type", "strategic", "-p", patch); res.ExitCode != 0 {
		f.t.Fatalf("patch %s/%s: %s", kind, name, res.Stderr)
	}
}

// TestReloadKindsOneShot: `reload --all --yes` records a StatefulSet's and a DaemonSet's
// checksums at first sight without restarting, ignores a key their pods do not see, and
// restarts them after a change of the key they see, waiting for the rollout.
func TestReloadKindsOneShot(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sts", "ds"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newReloadFixture(t)
			createKind(t, f.c, f.ns, kind, "w")
			f.optInKind(kind, "w")
			kindRolledOut(t, f.c, f.ns, kind+"/w")

			f.mustReload("--all", "--yes")
			tmpl, adopted := f.kindAnnotations(kind, "w")
			if tmpl != "" || adopted == "" {
				t.Fatalf("first sight: template %q, adopted %q; want adopted, no restart", tmpl, adopted)
			}
			f.setKey("b", "2")
			res := f.mustReload("--all", "--yes")
			if strings.Contains(res.Stdout, "restarted") {
				t.Fatalf("unseen key b changed: %s", res.Stdout)
			}
			f.setKey("a", "2")
			start := time.Now()
			res = f.mustReload("--all", "--yes", "--timeout", "40s")
			kindName := map[string]string{"sts": "statefulset", "ds": "daemonset"}[kind]
			if !strings.Contains(res.Stdout, kindName+".apps/w restarted") {
				t.Fatalf("key a changed: stdout %q, want %s.apps/w restarted", res.Stdout, kindName)
			}
			if tmpl, _ = f.kindAnnotations(kind, "w"); tmpl == "" {
				t.Fatal("no checksums in the template after the restart")
			}
			// reload waited for the rollout: it is complete now.
			k := f.c.Kubectl(t, "-n", f.ns, "rollout", "status", kind+"/w", "--watch=false")
			if k.ExitCode != 0 || !strings.Contains(k.Stdout, "complete") && !strings.Contains(k.Stdout, "successfully rolled out") {
				t.Errorf("after reload (%s): rollout status %q (exit %d)", time.Since(start), k.Stdout, k.ExitCode)
			}
			// Nothing changed since: nothing to restart.
			if res = f.mustReload("--all", "--yes"); strings.Contains(res.Stdout, "restarted") {
				t.Errorf("second run restarted again: %s", res.Stdout)
			}
		})
	}
}

// TestReloadKindsWatch: one `reload --watch` on a namespace holding a StatefulSet and a
// DaemonSet that read key a records both at first sight (informers, no restart), ignores a
// change of key b, and restarts both after a change of key a: the template checksums written,
// a ConfigReloaded Event naming the key on each, one line each.
func TestReloadKindsWatch(t *testing.T) {
	t.Parallel()
	f := newReloadFixture(t)
	for _, kind := range []string{"sts", "ds"} {
		createKind(t, f.c, f.ns, kind, "w")
		f.optInKind(kind, "w")
	}
	w := startWatcher(t, f.c, "-n", f.ns, "--grace-period", "0")
	f.eventually("first sight recorded", 30*time.Second, func() bool {
		_, s := f.kindAnnotations("sts", "w")
		_, d := f.kindAnnotations("ds", "w")
		return s != "" && d != ""
	}, w)
	f.setKey("b", "2")
	time.Sleep(2 * time.Second) // grace period 0: a wrong restart would have come by now
	for _, kind := range []string{"sts", "ds"} {
		if tmpl, _ := f.kindAnnotations(kind, "w"); tmpl != "" {
			t.Fatalf("%s/w restarted at first sight or for unread key b: template checksums %q\n%s", kind, tmpl, w.stdout.String())
		}
	}
	f.setKey("a", "3")
	f.eventually("both restarted after key a changed", 30*time.Second, func() bool {
		s, _ := f.kindAnnotations("sts", "w")
		d, _ := f.kindAnnotations("ds", "w")
		return s != "" && d != ""
	}, w)
	for _, kind := range []string{"StatefulSet", "DaemonSet"} {
		f.eventually(kind+" ConfigReloaded Event", 20*time.Second, func() bool {
			ev, err := f.c.Client.CoreV1().Events(f.ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=w,reason=ConfigReloaded"})
			return err == nil && len(ev.Items) == 1 && strings.Contains(ev.Items[0].Message, "ConfigMap/app [a]")
		}, w)
	}
	for _, line := range []string{"statefulset.apps/w restarted (namespace " + f.ns + ")", "daemonset.apps/w restarted (namespace " + f.ns + ")"} {
		if !strings.Contains(w.stdout.String(), line) {
			t.Errorf("watcher stdout lacks %q:\n%s", line, w.stdout.String())
		}
	}
	if code := w.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("watcher exit %d after SIGTERM, want 0\nstderr:\n%s", code, w.stderr.String())
	}
}

// TestReloadKindsNamed: named StatefulSets and DaemonSets, as kubectl names them.
// `reload sts/w ds/w --dry-run=client` shows both restarts and writes nothing, `-o json`
// lists both kinds in one list, and `reload sts/w --yes` restarts the StatefulSet alone and
// waits for its rollout.
func TestReloadKindsNamed(t *testing.T) {
	t.Parallel()
	f := newReloadFixture(t)
	for _, kind := range []string{"sts", "ds"} {
		createKind(t, f.c, f.ns, kind, "w")
		f.optInKind(kind, "w")
	}
	// The adoption patch is guarded by resourceVersion: let the controllers settle first.
	for _, kind := range []string{"sts", "ds"} {
		kindRolledOut(t, f.c, f.ns, kind+"/w")
	}
	// First sight: both adopted, as adoption lines, nothing restarted.
	res := f.mustReload("sts/w", "daemonset.apps/w", "--yes")
	for _, want := range []string{"statefulset.apps/w config checksums adopted", "daemonset.apps/w config checksums adopted"} {
		if !strings.Contains(res.Stdout, want) {
			t.Fatalf("first sight: stdout lacks %q:\n%s", want, res.Stdout)
		}
	}
	f.setKey("a", "2")

	res = f.mustReload("sts/w", "ds/w", "--dry-run=client")
	for _, want := range []string{"Restart of statefulset " + f.ns + "/w (changed: configmap/app)", "Restart of daemonset " + f.ns + "/w (changed: configmap/app)",
		"statefulset.apps/w restarted (dry run)", "daemonset.apps/w restarted (dry run)"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("--dry-run=client: stdout lacks %q:\n%s", want, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "No Deployments selected") {
		t.Errorf("--dry-run=client speaks of Deployments:\n%s", res.Stdout)
	}
	for _, kind := range []string{"sts", "ds"} {
		if tmpl, _ := f.kindAnnotations(kind, "w"); tmpl != "" {
			t.Fatalf("--dry-run=client wrote %s/w's template: %q", kind, tmpl)
		}
	}

	res = f.mustReload("sts/w", "ds/w", "--dry-run=client", "-o", "json")
	var list struct {
		Items []struct {
			Workload struct{ Kind, Name string } `json:"workload"`
			Config   struct{ Decision string }   `json:"config"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &list); err != nil {
		t.Fatalf("-o json: %v\n%s", err, res.Stdout)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Workload.Kind+"/"+it.Workload.Name+":"+it.Config.Decision)
	}
	if want := "StatefulSet/w:restart DaemonSet/w:restart"; strings.Join(got, " ") != want {
		t.Errorf("-o json items %v, want %s", got, want)
	}

	res = f.mustReload("sts/w", "--yes", "--timeout", "40s")
	if !strings.Contains(res.Stdout, "statefulset.apps/w restarted\n") || strings.Contains(res.Stdout, "daemonset") {
		t.Fatalf("reload sts/w --yes: stdout %q, want the StatefulSet restarted alone", res.Stdout)
	}
	if k := f.c.Kubectl(t, "-n", f.ns, "rollout", "status", "sts/w", "--watch=false"); k.ExitCode != 0 || !strings.Contains(k.Stdout, "complete") && !strings.Contains(k.Stdout, "successfully rolled out") {
		t.Errorf("after reload sts/w: rollout status %q (exit %d)", k.Stdout, k.ExitCode)
	}
	if tmpl, _ := f.kindAnnotations("ds", "w"); tmpl != "" {
		t.Errorf("reload sts/w restarted ds/w too: %q", tmpl)
	}
}

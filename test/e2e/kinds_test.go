//go:build e2e

package e2e

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// kindsPodTemplate is the pod template of the StatefulSets and DaemonSets of these tests:
// label app=name, one container "app" running image, on the kwok nodes (nodeSelector
// type=kwok, every taint tolerated, so a DaemonSet has a pod on each).
func kindsPodTemplate(name, image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			Containers:   []corev1.Container{{Name: "app", Image: image}},
			NodeSelector: map[string]string{"type": "kwok"},
			Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		},
	}
}

// createKind creates StatefulSet (2 replicas) or DaemonSet name running nginx:1.18.
func createKind(t *testing.T, c *framework.Cluster, ns, kind, name string) {
	t.Helper()
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	meta := metav1.ObjectMeta{Name: name}
	var err error
	if kind == "sts" {
		_, err = c.Client.AppsV1().StatefulSets(ns).Create(t.Context(), &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](2), Selector: sel, ServiceName: name, Template: kindsPodTemplate(name, "nginx:1.18"),
			PodManagementPolicy: appsv1.ParallelPodManagement,
		}}, metav1.CreateOptions{})
	} else {
		_, err = c.Client.AppsV1().DaemonSets(ns).Create(t.Context(), &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{
			Selector: sel, Template: kindsPodTemplate(name, "nginx:1.18"),
		}}, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("create %s/%s: %v", kind, name, err)
	}
}

// setKindImage sets the container image of kind/name (a new revision).
func setKindImage(t *testing.T, c *framework.Cluster, ns, kind, name, image string) {
	t.Helper()
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"` + image + `"}]}}}}`)
	res := c.Kubectl(t, "-n", ns, "patch", kind+"/"+name, "--type", "strategic", "-p", string(patch))
	if res.ExitCode != 0 {
		t.Fatalf("patch %s/%s: %s", kind, name, res.Stderr)
	}
}

// kindRolledOut runs `status KIND/NAME --watch` of the plugin and checks it ends complete with
// kubectl's last line, the same as `kubectl rollout status` then prints.
func kindRolledOut(t *testing.T, c *framework.Cluster, ns, ref string) {
	t.Helper()
	res := c.Plugin(t, "status", ref, "-n", ns, "--watch", "--timeout", "40s")
	lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
	if res.ExitCode != 0 || len(lines) == 0 {
		t.Fatalf("status %s --watch: exit %d\n%s\n%s", ref, res.ExitCode, res.Stdout, res.Stderr)
	}
	k := c.Kubectl(t, "-n", ns, "rollout", "status", ref, "--watch=false")
	if k.ExitCode != 0 || strings.TrimSpace(k.Stdout) != lines[len(lines)-1] {
		t.Errorf("status %s: last line %q, kubectl rollout status %q (exit %d)", ref, lines[len(lines)-1], strings.TrimSpace(k.Stdout), k.ExitCode)
	}
}

// kindHistory returns the plugin's WorkloadHistory of ref.
func kindHistory(t *testing.T, c *framework.Cluster, ns, ref string) *v1alpha1.WorkloadHistory {
	t.Helper()
	res := c.Plugin(t, "history", ref, "-n", ns, "-o", "json")
	var h v1alpha1.WorkloadHistory
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &h) != nil {
		t.Fatalf("history %s -o json: exit %d\n%s\n%s", ref, res.ExitCode, res.Stdout, res.Stderr)
	}
	return &h
}

var kubectlRevisionRE = regexp.MustCompile(`(?m)^(\d+)\s`)

// kubectlRevisions returns the revisions `kubectl rollout history` lists.
func kubectlRevisions(t *testing.T, c *framework.Cluster, ns, ref string) []int64 {
	t.Helper()
	res := c.Kubectl(t, "-n", ns, "rollout", "history", ref)
	var out []int64
	for _, m := range kubectlRevisionRE.FindAllStringSubmatch(res.Stdout, -1) {
		var n int64
		for _, ch := range m[1] {
			n = n*10 + int64(ch-'0')
		}
		out = append(out, n)
	}
	return out
}

// revisionsOf returns the revision numbers, ControllerRevision names and images of h.
func revisionsOf(h *v1alpha1.WorkloadHistory) (nums []int64, images []string) {
	for _, r := range h.Revisions {
		nums = append(nums, r.Revision)
		images = append(images, strings.Join(r.Images, ","))
	}
	return nums, images
}

// TestKindsHistoryUndoRestart, for a StatefulSet and a DaemonSet against their v1.36.3
// controllers: two revisions; the plugin's history against kubectl rollout history; undo
// --to-revision 1 by the plugin on one object and by kubectl on its twin give the same
// revisions (1 reused and renumbered 3) and template; restart adds kubectl's restartedAt and
// a revision; status --watch ends on kubectl rollout status's line; pause is refused.
func TestKindsHistoryUndoRestart(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)
	for _, kind := range []string{"sts", "ds"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ns := c.Namespace(t)
			ours, twin := kind+"/ours", kind+"/twin"
			for _, name := range []string{"ours", "twin"} {
				createKind(t, c, ns, kind, name)
			}
			for _, ref := range []string{ours, twin} {
				kindRolledOut(t, c, ns, ref)
			}
			for _, name := range []string{"ours", "twin"} {
				setKindImage(t, c, ns, kind, name, "nginx:1.19")
			}
			for _, ref := range []string{ours, twin} {
				kindRolledOut(t, c, ns, ref)
			}
			h := kindHistory(t, c, ns, ours)
			nums, images := revisionsOf(h)
			if want := kubectlRevisions(t, c, ns, ours); !slices.Equal(nums, want) || !slices.Equal(images, []string{"nginx:1.18", "nginx:1.19"}) {
				t.Fatalf("history: revisions %v %v, kubectl's %v", nums, images, want)
			}
			if h.Workload.TemplateRevision == nil || *h.Workload.TemplateRevision != 2 || h.Revisions[1].Pods == 0 || h.Revisions[1].Pods != h.Revisions[1].ReadyPods || h.Revisions[0].Pods != 0 {
				t.Errorf("history: template revision %v, pods %d/%d at 2, %d at 1", h.Workload.TemplateRevision, h.Revisions[1].ReadyPods, h.Revisions[1].Pods, h.Revisions[0].Pods)
			}
			rev1 := h.Revisions[0].ControllerRevision

			// Unknown revision: kubectl's error, nothing changed.
			res := c.Plugin(t, "undo", ours, "-n", ns, "--to-revision", "9")
			if res.ExitCode != 1 || !strings.Contains(res.Stderr, "unable to find specified revision 9 in history") {
				t.Errorf("undo --to-revision 9: exit %d %s", res.ExitCode, res.Stderr)
			}
			res = c.Plugin(t, "undo", ours, "-n", ns, "--to-revision", "1")
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, ours[len(kind)+1:]+" rolled back") {
				t.Fatalf("undo --to-revision 1: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
			}
			k := c.Kubectl(t, "-n", ns, "rollout", "undo", twin, "--to-revision", "1")
			if k.ExitCode != 0 {
				t.Fatalf("kubectl rollout undo: %s", k.Stderr)
			}
			for _, ref := range []string{ours, twin} {
				kindRolledOut(t, c, ns, ref)
			}
			h, ht := kindHistory(t, c, ns, ours), kindHistory(t, c, ns, twin)
			nums, images = revisionsOf(h)
			tnums, timages := revisionsOf(ht)
			if !slices.Equal(nums, []int64{2, 3}) || !slices.Equal(nums, tnums) || !slices.Equal(images, timages) || images[1] != "nginx:1.18" {
				t.Errorf("after undo: ours %v %v, kubectl's twin %v %v; want 2, 3 (1 renumbered) with nginx:1.18 at 3", nums, images, tnums, timages)
			}
			if h.Revisions[1].ControllerRevision != rev1 || *h.Workload.TemplateRevision != 3 {
				t.Errorf("after undo: revision 3 is %s (template revision %d), want %s reused", h.Revisions[1].ControllerRevision, *h.Workload.TemplateRevision, rev1)
			}

			// Back to the revision the template is: skipped, as kubectl skips it on the twin (the
			// template patch of the live object equals the revision's data, byte for byte).
			res = c.Plugin(t, "undo", ours, "-n", ns, "--to-revision", "3")
			k = c.Kubectl(t, "-n", ns, "rollout", "undo", twin, "--to-revision", "3")
			skipped := "skipped rollback (current template already matches revision 3)"
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, skipped) || !strings.Contains(k.Stdout, skipped) {
				t.Errorf("undo --to-revision 3: exit %d %q; kubectl %q", res.ExitCode, res.Stdout, k.Stdout)
			}

			res = c.Plugin(t, "restart", ours, "-n", ns)
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, " restarted\n") {
				t.Fatalf("restart: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
			}
			kindRolledOut(t, c, ns, ours)
			h = kindHistory(t, c, ns, ours)
			nums, _ = revisionsOf(h)
			if !slices.Equal(nums, []int64{2, 3, 4}) || *h.Workload.TemplateRevision != 4 {
				t.Errorf("after restart: revisions %v, template %d", nums, *h.Workload.TemplateRevision)
			}
			ann := c.Kubectl(t, "-n", ns, "get", ours, "-o", `jsonpath={.spec.template.metadata.annotations.kubectl\.kubernetes\.io/restartedAt}`)
			if _, err := time.Parse(time.RFC3339, ann.Stdout); err != nil {
				t.Errorf("restartedAt %q: %v", ann.Stdout, err)
			}
			pause := c.Plugin(t, "pause", ours, "-n", ns)
			kpause := c.Kubectl(t, "-n", ns, "rollout", "pause", ours)
			// kubectl: `error: statefulsets.apps "ours" pausing is not supported`, ours the same
			// line and what to do.
			want := strings.TrimSpace(kpause.Stderr) + ": "
			if pause.ExitCode != 1 || kpause.ExitCode == 0 || !strings.HasPrefix(pause.Stderr, want) {
				t.Errorf("pause: exit %d %q; kubectl %d %q", pause.ExitCode, pause.Stderr, kpause.ExitCode, kpause.Stderr)
			}
		})
	}
}

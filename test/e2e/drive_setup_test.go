//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// driveSetup is a namespace with a rolled-out Deployment "web" (nginx:1.18).
type driveSetup struct {
	c      *framework.Cluster
	ns     string
	d      *appsv1.Deployment
	old    string // the ReplicaSet of nginx:1.18
	bounds drive.Bounds
}

func newDriveSetup(t *testing.T, replicas int32, surge, unavailable string) *driveSetup {
	t.Helper()
	c := framework.Get(t)
	ns := c.Namespace(t)
	d := c.CreateDeployment(t, ns, framework.NewDeployment("web").Replicas(replicas).RollingUpdate(surge, unavailable))
	d = c.WaitForRollout(t, ns, d.Name, time.Minute)
	rss := c.ReplicaSetsOf(t, d)
	if len(rss) != 1 {
		t.Fatalf("before the drive: %d replicasets, want 1", len(rss))
	}
	b, err := drive.ResolveBounds(replicas, d.Spec.Strategy)
	if err != nil {
		t.Fatal(err)
	}
	return &driveSetup{c: c, ns: ns, d: d, old: rss[0].Name, bounds: b}
}

// drivePlanWrites is the plan of a drive from one old ReplicaSet at full size, as the recorder
// describes writes with the aliases "new" and "old".
func drivePlanWrites(t testing.TB, b drive.Bounds) []string {
	t.Helper()
	steps, err := drive.PlanSteps(b, drive.Start{New: drive.Counts{Name: "new"}, Old: []drive.Counts{{Name: "old", Replicas: b.Replicas, Available: b.Replicas}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, st := range steps {
		switch {
		case st.Create:
			out = append(out, fmt.Sprintf("create new 0->%d", st.New.To))
		case st.New.From != st.New.To:
			out = append(out, fmt.Sprintf("scale new %d->%d", st.New.From, st.New.To))
		}
		for _, o := range st.Old {
			out = append(out, fmt.Sprintf("scale old %d->%d", o.From, o.To))
		}
	}
	return out
}

// describe gives the recorder's writes with aliases: old for s.old, new for any other.
func (s *driveSetup) describe(writes []framework.RSWrite) []string {
	var out []string
	for _, w := range writes {
		alias := map[string]string{s.old: "old", w.Name: "new"}
		if w.Name == s.old {
			alias = map[string]string{s.old: "old"}
		}
		out = append(out, w.Describe(alias))
	}
	return out
}

// plugin runs the plugin with -n ns.
func (s *driveSetup) plugin(t testing.TB, args ...string) framework.Result {
	t.Helper()
	return s.c.Plugin(t, append(args, "-n", s.ns)...)
}

// assertHandedBack checks the end state of a complete drive: rollout status done at
// revision (as `kubectl rollout status --revision` says), observedGeneration current, the
// original strategy, not paused, no drive annotation anywhere, every ReplicaSet's
// spec.replicas last set by drive, the new ReplicaSet at replicas with image.
func (s *driveSetup) assertHandedBack(t *testing.T, revision int, image string, replicas int32) {
	t.Helper()
	c, ns := s.c, s.ns
	res := c.Kubectl(t, "rollout", "status", "deploy/web", "-n", ns, "--revision="+strconv.Itoa(revision), "--timeout=60s")
	if res.ExitCode != 0 {
		t.Fatalf("kubectl rollout status --revision=%d: exit %d: %s%s", revision, res.ExitCode, res.Stdout, res.Stderr)
	}
	d, err := c.Client.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Status.ObservedGeneration != d.Generation {
		t.Errorf("observedGeneration %d, generation %d", d.Status.ObservedGeneration, d.Generation)
	}
	if got := d.Annotations["deployment.kubernetes.io/revision"]; got != strconv.Itoa(revision) {
		t.Errorf("revision %q, want %d", got, revision)
	}
	if diff := cmp.Diff(s.d.Spec.Strategy, d.Spec.Strategy); diff != "" {
		t.Errorf("strategy not restored (-want +got):\n%s", diff)
	}
	if d.Spec.Paused || drive.IsHeld(d) {
		t.Errorf("after the hand-back: paused %v, held %v", d.Spec.Paused, drive.IsHeld(d))
	}
	if d.Status.Replicas != replicas || d.Status.UpdatedReplicas != replicas || d.Status.AvailableReplicas != replicas {
		t.Errorf("status replicas/updated/available %d/%d/%d, want %d", d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas, replicas)
	}
	for _, rs := range c.ReplicaSetsOf(t, d) {
		if _, ok := rs.Annotations[drive.Annotation]; ok {
			t.Errorf("ReplicaSet %s still carries a copy of %s", rs.Name, drive.Annotation)
		}
		if m := driveReplicasManager(rs); m != kube.FieldManager {
			t.Errorf("ReplicaSet %s: spec.replicas last set by %q, want %s", rs.Name, m, kube.FieldManager)
		}
		img := rs.Spec.Template.Spec.Containers[0].Image
		want := int32(0)
		if img == image {
			want = replicas
		}
		if ptr.Deref(rs.Spec.Replicas, 1) != want {
			t.Errorf("ReplicaSet %s (%s) has %d replicas, want %d", rs.Name, img, ptr.Deref(rs.Spec.Replicas, 1), want)
		}
	}
}

// driveReplicasManager returns the manager owning spec.replicas in rs's managed fields.
func driveReplicasManager(rs appsv1.ReplicaSet) string {
	for _, mf := range rs.ManagedFields {
		if mf.FieldsV1 == nil || mf.Subresource != "" {
			continue
		}
		var f map[string]map[string]any
		if json.Unmarshal(mf.FieldsV1.Raw, &f) == nil {
			if _, ok := f["f:spec"]["f:replicas"]; ok {
				return mf.Manager
			}
		}
	}
	return ""
}

// driveEvents returns the reasons of the kubectl-rollplan Events on deployment web.
func (s *driveSetup) driveEvents(t testing.TB) []string {
	t.Helper()
	sel := fields.AndSelectors(fields.OneTermEqualSelector("involvedObject.name", "web"), fields.OneTermEqualSelector("source", kube.FieldManager))
	list, err := s.c.Client.CoreV1().Events(s.ns).List(t.Context(), metav1.ListOptions{FieldSelector: sel.String()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Reason)
	}
	return out
}

func countOf(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

// startDrive starts the plugin with args and -n s.ns in the background (framework.StartPlugin),
// with env added to the cluster's environment (a later KUBECONFIG= wins).
func (s *driveSetup) startDrive(t testing.TB, env []string, args ...string) *framework.Background {
	t.Helper()
	return s.c.StartPlugin(t, env, append(args, "-n", s.ns)...)
}

// manifest writes a manifest of s.d with image and, with hold, the hold label on the pod
// template (its pods then stay unready until released), and returns its path.
func (s *driveSetup) manifest(t testing.TB, image string, hold bool) string {
	t.Helper()
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: s.d.Name, Namespace: s.ns, Labels: s.d.Labels},
		Spec:       *s.d.Spec.DeepCopy(),
	}
	d.Spec.Template.Spec.Containers[0].Image = image
	framework.SetHold(&d.Spec.Template, hold)
	b, err := yaml.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitHeldAt waits until the drive state of web says step >= step (or fails t).
func (s *driveSetup) waitState(t testing.TB, timeout time.Duration, cond func(*drive.State, *appsv1.Deployment) bool) *appsv1.Deployment {
	t.Helper()
	d, err := s.c.WaitForDeployment(t.Context(), s.ns, "web", timeout, func(d *appsv1.Deployment) (string, bool, error) {
		st, err := drive.ReadState(d)
		if err != nil {
			return "", false, err
		}
		return fmt.Sprintf("state %+v", st), st != nil && cond(st, d), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

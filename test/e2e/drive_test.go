//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
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

// TestDriveFullRollout drives a 10-replica Deployment from nginx:1.18 to nginx:1.19 with
// the deployment-controller running, for three strategies. While drive holds the
// Deployment the controller makes no ReplicaSet replica write (no ScalingReplicaSet event,
// and every ReplicaSet write is exactly the drive's plan); a watch of every pod shows the
// pods never above replicas+maxSurge (+1 when maxSurge is 0) and availability never below
// replicas-maxUnavailable; after the hand-back the rollout is complete at revision 2.
func TestDriveFullRollout(t *testing.T) {
	for _, tc := range []struct{ name, surge, unavailable string }{
		{"25%-25%", "25%", "25%"},
		{"maxSurge 0", "0", "25%"},
		{"maxUnavailable 0", "25%", "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newDriveSetup(t, 10, tc.surge, tc.unavailable)
			b := s.bounds
			maxPods := int(b.MaxPods())
			if b.MaxSurge == 0 {
				maxPods++ // the one extra pod
			}
			mon := watchPods(t, s.c, s.ns, maxPods, int(b.MinAvailable()))
			rec := s.c.RecordReplicaSets(t, s.ns)
			began := time.Now()
			res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes")
			took := time.Since(began)
			if res.ExitCode != 0 {
				t.Fatalf("drive: exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
			}
			t.Logf("drive took %s:\n%s%s", took.Round(time.Millisecond), res.Stdout, res.Stderr)
			writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
			if diff := cmp.Diff(drivePlanWrites(t, b), s.describe(writes)); diff != "" {
				t.Errorf("ReplicaSet writes differ from the drive's plan (-plan +seen):\n%s", diff)
			}
			if ev := rec.Events(); len(ev) != 0 {
				t.Errorf("the deployment-controller scaled ReplicaSets during or after the drive: %v", ev)
			}
			mon.assertBounds(t)
			s.assertHandedBack(t, 2, "nginx:1.19", 10)
			reasons := s.driveEvents(t)
			if got, want := countOf(reasons, drive.ReasonScaled)+countOf(reasons, drive.ReasonCreated), len(writes); got != want {
				t.Errorf("%d Rollplan Created/Scaled events for %d ReplicaSet writes: %v", got, want, reasons)
			}
			for _, r := range []string{drive.ReasonTakeover, drive.ReasonHandBack} {
				if countOf(reasons, r) != 1 {
					t.Errorf("%d %s events, want 1: %v", countOf(reasons, r), r, reasons)
				}
			}
		})
	}
}

// startDrive starts the plugin with args and -n s.ns in the background (framework.StartPlugin),
// with env added to the cluster's environment (a later KUBECONFIG= wins).
func (s *driveSetup) startDrive(t testing.TB, env []string, args ...string) *framework.Background {
	t.Helper()
	return s.c.StartPlugin(t, env, append(args, "-n", s.ns)...)
}

// TestDriveCrashResume kills the driver process (SIGKILL) at random points of a drive, 12
// times, runs drive again each time (with --force, or after the lease expired), and checks
// that every run reaches the same end: the writes of the plan exactly, no controller
// scaling, the bounds held throughout, complete at revision 2.
func TestDriveCrashResume(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("ROLLPLAN_E2E_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (ROLLPLAN_E2E_SEED reproduces it)", seed)
	rng := rand.New(rand.NewPCG(seed, 4))
	strategies := [][2]string{{"25%", "25%"}, {"0", "25%"}, {"25%", "0"}}
	for run := range 12 {
		st := strategies[run%len(strategies)]
		t.Run(fmt.Sprintf("run %d %s-%s", run, st[0], st[1]), func(t *testing.T) {
			s := newDriveSetup(t, 10, st[0], st[1])
			b := s.bounds
			maxPods := int(b.MaxPods())
			if b.MaxSurge == 0 {
				maxPods++
			}
			want := drivePlanWrites(t, b)
			mon := watchPods(t, s.c, s.ns, maxPods, int(b.MinAvailable()))
			rec := s.c.RecordReplicaSets(t, s.ns)
			// Kill after k ReplicaSet writes (k = -1: after a random delay, maybe before the
			// takeover; k = len(want): after the last write, during the hand-back), plus up
			// to 40 ms.
			k := rng.IntN(len(want)+2) - 1
			jitter := time.Duration(rng.IntN(40)) * time.Millisecond
			args := []string{"drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--lease-duration", "4s"}
			first := s.startDrive(t, nil, args...)
			deadline := time.Now().Add(60 * time.Second)
			if k < 0 {
				time.Sleep(time.Duration(rng.IntN(400))*time.Millisecond + jitter)
			} else {
				for len(rec.Writes()) < k && !first.Exited() && time.Now().Before(deadline) {
					time.Sleep(2 * time.Millisecond)
				}
				time.Sleep(jitter)
			}
			killedAt := len(rec.Writes())
			finished := first.Exited()
			first.Stop(t, syscall.SIGKILL, time.Minute)
			t.Logf("kill point k=%d+%s: killed after %d writes (exited on its own first: %v)", k, jitter, killedAt, finished)

			second := args
			if run%2 == 0 {
				second = append(second, "--force")
			} else {
				time.Sleep(4500 * time.Millisecond) // the dead driver's lease expires
			}
			res := s.plugin(t, second...)
			if res.ExitCode != 0 {
				t.Fatalf("drive again: exit %d\nstdout:\n%s\nstderr:\n%s\nfirst run stderr:\n%s", res.ExitCode, res.Stdout, res.Stderr, first.Stderr.String())
			}
			writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
			if diff := cmp.Diff(want, s.describe(writes)); diff != "" {
				t.Errorf("writes across the kill differ from the plan (-plan +seen):\n%s\nfirst run stderr:\n%s\nsecond run stderr:\n%s", diff, first.Stderr.String(), res.Stderr)
			}
			if ev := rec.Events(); len(ev) != 0 {
				t.Errorf("the deployment-controller scaled ReplicaSets: %v", ev)
			}
			mon.assertBounds(t)
			s.assertHandedBack(t, 2, "nginx:1.19", 10)
		})
	}
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

// TestDriveHoldAndAbort drives one step (--until-step 1: exit code 4, held), checks the
// status report, then aborts: the previous ReplicaSet comes back up first, the new one goes
// down, the previous template is restored and the rollout is complete at revision 3 (the
// previous ReplicaSet renumbered, as after kubectl rollout undo), within the bounds.
func TestDriveHoldAndAbort(t *testing.T) {
	s := newDriveSetup(t, 10, "25%", "25%")
	b := s.bounds
	mon := watchPods(t, s.c, s.ns, int(b.MaxPods()), int(b.MinAvailable()))
	rec := s.c.RecordReplicaSets(t, s.ns)
	res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--until-step", "1")
	if res.ExitCode != 4 {
		t.Fatalf("drive --until-step 1: exit %d, want 4 (held)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	status := s.plugin(t, "drive", "status", "deploy/web")
	if status.ExitCode != 0 {
		t.Fatalf("drive status: exit %d: %s", status.ExitCode, status.Stderr)
	}
	for _, want := range []string{"Held:        yes", "Step:        1 of 3", "none running", "--until-step 1 reached", "web-"} {
		if !strings.Contains(status.Stdout, want) {
			t.Errorf("drive status lacks %q:\n%s", want, status.Stdout)
		}
	}
	var report v1alpha1.DriveStatus
	js := s.plugin(t, "drive", "status", "deploy/web", "-o", "json")
	if err := json.Unmarshal([]byte(js.Stdout), &report); err != nil {
		t.Fatalf("drive status -o json: %v\n%s", err, js.Stdout)
	}
	if !report.Held || report.Driving || report.State.Step != 1 || len(report.ReplicaSets) != 2 {
		t.Errorf("status report: held %v driving %v step %d, %d replicasets", report.Held, report.Driving, report.State.Step, len(report.ReplicaSets))
	}
	res = s.plugin(t, "abort", "deploy/web", "--yes")
	if res.ExitCode != 0 {
		t.Fatalf("abort: exit %d\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	t.Logf("abort:\n%s%s", res.Stdout, res.Stderr)
	writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	// Forward step 1 (new 0->3, old 10->5), then the walk back, planned the same way with
	// the roles swapped: old up first, new down.
	back, err := drive.PlanSteps(b, drive.Start{New: drive.Counts{Name: "old", Replicas: 5, Available: 5}, NewExists: true,
		Old: []drive.Counts{{Name: "new", Replicas: 3, Available: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	wantWrites := []string{"create new 0->3", "scale old 10->5"}
	for _, st := range back {
		if st.New.From != st.New.To {
			wantWrites = append(wantWrites, fmt.Sprintf("scale old %d->%d", st.New.From, st.New.To))
		}
		for _, o := range st.Old {
			wantWrites = append(wantWrites, fmt.Sprintf("scale new %d->%d", o.From, o.To))
		}
	}
	if diff := cmp.Diff(wantWrites, s.describe(writes)); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("the deployment-controller scaled ReplicaSets: %v", ev)
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 3, "nginx:1.18", 10)
}

// TestDriveProgressTimeout holds a drive whose new pods never become ready: after
// --progress-timeout it exits with code 4, names the pods, and the Deployment stays held
// with the reason; resuming it later (drive again, pods released) completes it.
func TestDriveProgressTimeout(t *testing.T) {
	s := newDriveSetup(t, 4, "1", "0")
	mon := watchPods(t, s.c, s.ns, int(s.bounds.MaxPods()), int(s.bounds.MinAvailable()))
	res := s.plugin(t, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes", "--progress-timeout", "3s")
	if res.ExitCode != 4 {
		t.Fatalf("drive: exit %d, want 4\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	for _, want := range []string{"0 of 1 pods available", "Pending"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
		}
	}
	d := s.waitState(t, 10*time.Second, func(st *drive.State, _ *appsv1.Deployment) bool { return st.Holder == "" })
	st, _ := drive.ReadState(d)
	if !strings.Contains(st.HeldReason, "timed out") {
		t.Errorf("held reason %q, want a timeout", st.HeldReason)
	}
	stop := s.c.AutoRelease(t, s.ns, "")
	res = s.plugin(t, "drive", "deploy/web", "--yes")
	stop()
	if res.ExitCode != 0 {
		t.Fatalf("drive again: exit %d\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 2, "nginx:1.19", 4)
}

// TestDriveConcurrentEdit edits the held Deployment's template while drive waits: drive
// stops with a message naming the edit, writes nothing more, and the edit is kept. A
// ReplicaSet scaled by hand stops it the same way, naming the field manager.
func TestDriveConcurrentEdit(t *testing.T) {
	t.Run("template", func(t *testing.T) {
		s := newDriveSetup(t, 4, "1", "0")
		rec := s.c.RecordReplicaSets(t, s.ns)
		drv := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes")
		rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 1 })
		time.Sleep(300 * time.Millisecond)
		s.c.UpdateDeployment(t, s.ns, "web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.20" })
		code := drv.Wait(t, 30*time.Second)
		if code != 1 || !strings.Contains(drv.Stderr.String(), "was edited while drive held it") || !strings.Contains(drv.Stderr.String(), "spec.template") {
			t.Fatalf("drive after a template edit: exit %d, want 1 with the edit named\nstderr:\n%s", code, drv.Stderr.String())
		}
		writes := rec.WaitQuiet(t, 2*time.Second, 20*time.Second)
		if len(writes) != 1 {
			t.Errorf("writes %v, want only the create", s.describe(writes))
		}
		d, err := s.c.Client.AppsV1().Deployments(s.ns).Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.20" || !drive.IsHeld(d) || !d.Spec.Paused {
			t.Errorf("after the stop: image %s, held %v, paused %v; want the edit kept and the Deployment held", img, drive.IsHeld(d), d.Spec.Paused)
		}
	})
	t.Run("replicaset scaled by hand", func(t *testing.T) {
		s := newDriveSetup(t, 4, "1", "0")
		rec := s.c.RecordReplicaSets(t, s.ns)
		drv := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes")
		rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 1 })
		res := s.c.Kubectl(t, "scale", "rs", s.old, "-n", s.ns, "--replicas=2")
		if res.ExitCode != 0 {
			t.Fatalf("kubectl scale rs: %s", res.Stderr)
		}
		code := drv.Wait(t, 30*time.Second)
		if code != 1 || !strings.Contains(drv.Stderr.String(), "was scaled by kubectl") {
			t.Fatalf("drive after kubectl scale rs: exit %d, want 1 naming kubectl\nstderr:\n%s", code, drv.Stderr.String())
		}
		rs, err := s.c.Client.AppsV1().ReplicaSets(s.ns).Get(t.Context(), s.old, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ptr.Deref(rs.Spec.Replicas, 0) != 2 {
			t.Errorf("old ReplicaSet at %d, want the hand-made 2 kept", ptr.Deref(rs.Spec.Replicas, 0))
		}
	})
}

// TestDriveReplicasChange scales the held Deployment (kubectl scale, as an autoscaler
// would) while drive waits: the paused controller ignores it, drive re-plans with the new
// bounds and ends with 14 new replicas.
func TestDriveReplicasChange(t *testing.T) {
	s := newDriveSetup(t, 10, "25%", "25%")
	// Bounds over the whole run: 10 replicas (at most 13, at least 8 available), then 14
	// (at most 18, at least 11).
	mon := watchPods(t, s.c, s.ns, 18, 8)
	rec := s.c.RecordReplicaSets(t, s.ns)
	drv := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes")
	rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 1 })
	res := s.c.Kubectl(t, "scale", "deploy/web", "-n", s.ns, "--replicas=14")
	if res.ExitCode != 0 {
		t.Fatalf("kubectl scale: %s", res.Stderr)
	}
	s.waitState(t, 30*time.Second, func(st *drive.State, _ *appsv1.Deployment) bool { return st.Replicas == 14 })
	stop := s.c.AutoRelease(t, s.ns, "")
	code := drv.Wait(t, 90*time.Second)
	stop()
	if code != 0 {
		t.Fatalf("drive: exit %d\nstderr:\n%s", code, drv.Stderr.String())
	}
	if !strings.Contains(drv.Stderr.String(), "changed from 10 to 14 while held") {
		t.Errorf("drive did not say it re-planned:\n%s", drv.Stderr.String())
	}
	rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("the deployment-controller scaled ReplicaSets: %v", ev)
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 2, "nginx:1.19", 14)
}

// TestDriveTwoDrivers: a second driver is refused while the first one's lease is valid;
// with --force it takes over and the first one stops without writing; the second one
// completes the rollout.
func TestDriveTwoDrivers(t *testing.T) {
	s := newDriveSetup(t, 4, "1", "0")
	rec := s.c.RecordReplicaSets(t, s.ns)
	first := s.startDrive(t, nil, "drive", "deploy/web", "-f", s.manifest(t, "nginx:1.19", true), "--yes")
	rec.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 1 })
	res := s.plugin(t, "drive", "deploy/web", "--yes")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "is being driven by") {
		t.Fatalf("second driver without --force: exit %d, want 1 and the holder named\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	second := s.startDrive(t, nil, "drive", "deploy/web", "--yes", "--force")
	code := first.Wait(t, 30*time.Second)
	if code != 1 || !strings.Contains(first.Stderr.String(), "lost the hold") {
		t.Fatalf("first driver after the takeover: exit %d, want 1 (lost the hold)\nstderr:\n%s", code, first.Stderr.String())
	}
	stop := s.c.AutoRelease(t, s.ns, "")
	code = second.Wait(t, 90*time.Second)
	stop()
	if code != 0 {
		t.Fatalf("second driver: exit %d\nstderr:\n%s", code, second.Stderr.String())
	}
	if !strings.Contains(s.c.Kubectl(t, "get", "events", "-n", s.ns).Stdout, drive.ReasonLease) {
		t.Errorf("no %s event", drive.ReasonLease)
	}
	rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("the deployment-controller scaled ReplicaSets: %v", ev)
	}
	s.assertHandedBack(t, 2, "nginx:1.19", 4)
}

// TestDriveUnpauseGuard: without the guard, `kubectl rollout resume` on a held Deployment
// is accepted and the controller (strategy Recreate) scales the old ReplicaSet to 0 at once
// (the hazard); with `kubectl rollplan guard install` the same edit is refused, and the
// hand-back (drive.HandBack, what `kubectl rollplan resume` calls) still passes.
func TestDriveUnpauseGuard(t *testing.T) {
	c := framework.Get(t)
	if ok, err := drive.GuardInstalled(t.Context(), c.Client); err != nil || ok {
		t.Fatalf("the guard is installed already (%v): this test needs it absent at first", err)
	}
	t.Run("without the guard", func(t *testing.T) {
		s := newDriveSetup(t, 10, "25%", "25%")
		rec := s.c.RecordReplicaSets(t, s.ns)
		if res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--until-step", "1"); res.ExitCode != 4 {
			t.Fatalf("drive --until-step 1: exit %d\n%s", res.ExitCode, res.Stderr)
		}
		if res := s.c.Kubectl(t, "rollout", "resume", "deploy/web", "-n", s.ns); res.ExitCode != 0 {
			t.Fatalf("kubectl rollout resume: exit %d: %s", res.ExitCode, res.Stderr)
		}
		rec.WaitFor(t, 30*time.Second, func(_ []framework.RSWrite, ev []framework.ScalingEvent) bool {
			for _, e := range ev {
				if e.ReplicaSet == s.old && e.To == 0 && e.From == 5 {
					return true
				}
			}
			return false
		})
		t.Logf("controller writes after the unguarded resume: %v", rec.Events())
	})
	t.Run("with the guard", func(t *testing.T) {
		if res := c.Plugin(t, "guard", "install"); res.ExitCode != 0 {
			t.Fatalf("guard install: %s", res.Stderr)
		}
		t.Cleanup(func() {
			if err := drive.UninstallGuard(context.Background(), c.Client); err != nil {
				t.Errorf("uninstall the guard: %v", err)
			}
		})
		s := newDriveSetup(t, 10, "25%", "25%")
		rec := s.c.RecordReplicaSets(t, s.ns)
		res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--until-step", "1")
		if res.ExitCode != 4 || strings.Contains(res.Stderr, "guard is not installed") {
			t.Fatalf("drive --until-step 1: exit %d\n%s", res.ExitCode, res.Stderr)
		}
		// The policy takes effect once the API server has loaded it: retry for a while.
		var last framework.Result
		deadline := time.Now().Add(20 * time.Second)
		for {
			last = s.c.Kubectl(t, "rollout", "resume", "deploy/web", "-n", s.ns)
			if last.ExitCode != 0 || time.Now().After(deadline) {
				break
			}
			// Accepted before the policy was active: re-pause and try again.
			s.c.Kubectl(t, "rollout", "pause", "deploy/web", "-n", s.ns)
			time.Sleep(500 * time.Millisecond)
		}
		if last.ExitCode == 0 || !strings.Contains(last.Stderr, "held by kubectl rollplan drive") {
			t.Fatalf("kubectl rollout resume with the guard: exit %d, want a refusal naming drive: %s", last.ExitCode, last.Stderr)
		}
		hb, err := drive.HandBack(t.Context(), s.c.Client, s.ns, "web", drive.HandBackOptions{Wait: true})
		if err != nil {
			t.Fatalf("hand back with the guard installed: %v", err)
		}
		if hb.Deployment.Spec.Paused || hb.Deployment.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
			t.Errorf("after the hand-back: paused %v, strategy %s", hb.Deployment.Spec.Paused, hb.Deployment.Spec.Strategy.Type)
		}
		// The controller now finishes natively from step 1's state, as a rolling update.
		s.c.WaitForRollout(t, s.ns, "web", time.Minute)
		t.Logf("controller writes after the hand-back: %v", rec.Events())
	})
}

// TestDriveDryRunAndRefusals: --dry-run (client and server) prints the plan and where it
// differs from the controller's, and changes nothing; a Deployment with
// revisionHistoryLimit 0 is refused with the reason.
func TestDriveDryRunAndRefusals(t *testing.T) {
	s := newDriveSetup(t, 10, "0", "25%")
	before := s.c.Kubectl(t, "get", "deploy,rs", "-n", s.ns, "-o", "jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}").Stdout
	for _, mode := range []string{"--dry-run", "--dry-run=server"} {
		res := s.plugin(t, "drive", "deploy/web", "--image", "app=nginx:1.19", mode)
		if res.ExitCode != 0 {
			t.Fatalf("drive %s: exit %d\n%s", mode, res.ExitCode, res.Stderr)
		}
		for _, want := range []string{"extra pod (maxSurge 0)", "The controller (v1.36.3", "Where drive differs, and why:", "maxSurge is 0", "(dry run: nothing changed)"} {
			if !strings.Contains(res.Stdout, want) {
				t.Errorf("drive %s: output lacks %q:\n%s", mode, want, res.Stdout)
			}
		}
		if mode == "--dry-run=server" && !strings.Contains(res.Stdout, "the API server accepts the takeover write") {
			t.Errorf("drive --dry-run=server did not report the server dry run:\n%s", res.Stdout)
		}
	}
	after := s.c.Kubectl(t, "get", "deploy,rs", "-n", s.ns, "-o", "jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}").Stdout
	if before != after {
		t.Errorf("a dry run changed objects:\nbefore %s\nafter  %s", before, after)
	}

	c, ns := s.c, s.ns
	d := c.CreateDeployment(t, ns, framework.NewDeployment("nohistory").Replicas(2).RevisionHistoryLimit(0))
	c.WaitForRollout(t, ns, d.Name, time.Minute)
	res := c.Plugin(t, "drive", "deploy/nohistory", "-n", ns, "--image", "app=nginx:1.19", "--yes")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "revisionHistoryLimit 0") {
		t.Errorf("drive of a Deployment with revisionHistoryLimit 0: exit %d, want 1 with the reason: %s", res.ExitCode, res.Stderr)
	}
}

// TestDriveAdoptInFlight: the controller's own rollout stalls (new pods held at new 5, old
// 8); drive refuses it without --adopt, and with --adopt takes it over where it stands and
// finishes it without a controller write, within the bounds.
func TestDriveAdoptInFlight(t *testing.T) {
	s := newDriveSetup(t, 10, "25%", "25%")
	pre := s.c.RecordReplicaSets(t, s.ns)
	s.c.UpdateDeployment(t, s.ns, "web", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.19"
		framework.SetHold(&d.Spec.Template, true)
	})
	pre.WaitFor(t, 30*time.Second, func(w []framework.RSWrite, _ []framework.ScalingEvent) bool { return len(w) >= 3 })
	pre.WaitQuiet(t, 2*time.Second, 30*time.Second)
	pre.Stop()

	res := s.plugin(t, "drive", "deploy/web", "--yes")
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "rollout in flight") || !strings.Contains(res.Stderr, "--adopt") {
		t.Fatalf("drive without --adopt: exit %d, want 1 naming --adopt: %s", res.ExitCode, res.Stderr)
	}
	mon := watchPods(t, s.c, s.ns, int(s.bounds.MaxPods()), int(s.bounds.MinAvailable()))
	rec := s.c.RecordReplicaSets(t, s.ns)
	drv := s.startDrive(t, nil, "drive", "deploy/web", "--adopt", "--yes")
	s.waitState(t, 30*time.Second, func(*drive.State, *appsv1.Deployment) bool { return true })
	stop := s.c.AutoRelease(t, s.ns, "")
	code := drv.Wait(t, 90*time.Second)
	stop()
	if code != 0 {
		t.Fatalf("drive --adopt: exit %d\n%s", code, drv.Stderr.String())
	}
	t.Logf("drive --adopt:\n%s%s", drv.Stdout.String(), drv.Stderr.String())
	writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("the deployment-controller scaled ReplicaSets after the adoption: %v (drive wrote %v)", ev, s.describe(writes))
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 2, "nginx:1.19", 10)
}

// TestDrivePromptOnTerminal runs drive on a pseudo-terminal (util-linux `script`): it asks
// before each step; "c" then "h" makes step 1 and holds (exit 4); run again, "a" at the next
// prompt aborts: walked back and handed back with the previous template (exit 0).
func TestDrivePromptOnTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no `script` command (util-linux) to give drive a terminal")
	}
	s := newDriveSetup(t, 4, "25%", "25%")
	run := func(answers string, args ...string) (int, string) {
		cmdline := strings.Join(append([]string{s.c.PluginPath()}, append(args, "-n", s.ns)...), " ")
		cmd := exec.Command(script, "-qfec", cmdline, "/dev/null")
		cmd.Env = s.c.Env()
		cmd.Stdin = strings.NewReader(answers)
		out, _ := cmd.CombinedOutput()
		framework.CheckRace(t, cmdline, string(out))
		return cmd.ProcessState.ExitCode(), strings.ReplaceAll(string(out), "\r", "")
	}
	code, out := run("c\nh\n", "drive", "deploy/web", "--image", "app=nginx:1.19")
	if code != 4 || !strings.Contains(out, "step 1/3: create web-") || !strings.Contains(out, "[c]ontinue, [h]old, [a]bort?") ||
		!strings.Contains(out, "held at the prompt before step 2/3") {
		t.Fatalf("first run: exit %d, want 4 after step 1 and a hold at the prompt:\n%s", code, out)
	}
	code, out = run("a\n", "drive", "deploy/web")
	if code != 0 || !strings.Contains(out, "walked back") {
		t.Fatalf("second run: exit %d, want 0 after an abort at the prompt:\n%s", code, out)
	}
	s.assertHandedBack(t, 3, "nginx:1.18", 4)
}

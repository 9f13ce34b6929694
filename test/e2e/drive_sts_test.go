//go:build e2e

package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// createSettledSts creates StatefulSet name (3 replicas, OrderedReady, image nginx:1.18) in
// ns and waits until its three pods are Ready on one revision; it returns that revision.
func createSettledSts(t *testing.T, c *framework.Cluster, ns, name string) string {
	t.Helper()
	_, err := c.Client.AppsV1().StatefulSets(ns).Create(t.Context(), &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](3), ServiceName: name, Template: kindsPodTemplate(name, "nginx:1.18"),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create sts/%s: %v", name, err)
	}
	s := waitSts(t, c, ns, name, "3 pods Ready on one revision", func(s *appsv1.StatefulSet) bool {
		return s.Status.ObservedGeneration == s.Generation && s.Status.ReadyReplicas == 3 && s.Status.UpdatedReplicas == 3 && s.Status.CurrentRevision == s.Status.UpdateRevision
	})
	return s.Status.CurrentRevision
}

// waitSts polls sts/name every 200 ms (30 s at most) until ok.
func waitSts(t *testing.T, c *framework.Cluster, ns, name, what string, ok func(*appsv1.StatefulSet) bool) *appsv1.StatefulSet {
	t.Helper()
	var s *appsv1.StatefulSet
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		var err error
		if s, err = c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), name, metav1.GetOptions{}); err == nil && ok(s) {
			return s
		}
	}
	t.Fatalf("sts/%s: not %s within 30 s: status %+v", name, what, s.Status)
	return nil
}

// podRevisions returns pod NAME-i's controller-revision-hash label and creation time, by ordinal.
func podRevisions(t *testing.T, c *framework.Cluster, ns, name string) (revs []string, created []time.Time) {
	t.Helper()
	for i := range 3 {
		p, err := c.Client.CoreV1().Pods(ns).Get(t.Context(), name+"-"+string(rune('0'+i)), metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get pod %s-%d: %v", name, i, err)
		}
		revs = append(revs, p.Labels[appsv1.ControllerRevisionHashLabelKey])
		created = append(created, p.CreationTimestamp.Time)
	}
	return revs, created
}

// TestDriveSts (issue 21), against the v1.36.3 StatefulSet controller: a walk with --step 1
// to completion, highest ordinal first; and a walk whose new pod is held: exit 4 with the
// closing block, then drive abort puts every pod back on the old revision.
func TestDriveSts(t *testing.T) {
	t.Parallel()
	c := framework.Get(t)

	t.Run("complete", func(t *testing.T) {
		t.Parallel()
		ns := c.Namespace(t)
		old := createSettledSts(t, c, ns, "db")
		res := c.Plugin(t, "drive", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--step", "1", "--timeout", "30s")
		if res.ExitCode != 0 {
			t.Fatalf("drive: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		// One line per step, the partition walking down from replicas: 3 -> 2 -> 1 -> 0.
		out := res.Stdout
		for _, step := range []string{"partition 3 -> 2", "partition 2 -> 1", "partition 1 -> 0", "done, 3 pods"} {
			i := strings.Index(out, step)
			if i < 0 {
				t.Fatalf("drive output lacks %q after the previous step:\n%s", step, res.Stdout)
			}
			out = out[i:]
		}
		s, err := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), "db", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p := s.Spec.UpdateStrategy.RollingUpdate; p == nil || ptr.Deref(p.Partition, -1) != 0 {
			t.Errorf("partition after drive: %+v, want 0", s.Spec.UpdateStrategy)
		}
		if s.Status.CurrentRevision != s.Status.UpdateRevision || s.Status.UpdateRevision == old {
			t.Errorf("revisions after drive: current %s update %s (old %s)", s.Status.CurrentRevision, s.Status.UpdateRevision, old)
		}
		revs, created := podRevisions(t, c, ns, "db")
		for i, r := range revs {
			if r != s.Status.UpdateRevision {
				t.Errorf("pod db-%d on revision %s, want %s", i, r, s.Status.UpdateRevision)
			}
		}
		// Replaced highest ordinal first: db-2 is the oldest new pod, db-0 the newest.
		if created[2].After(created[1]) || created[1].After(created[0]) {
			t.Errorf("pods created at %v (ordinals 0, 1, 2): want the highest ordinal replaced first", created)
		}
	})

	t.Run("hold-abort", func(t *testing.T) {
		t.Parallel()
		ns := c.Namespace(t)
		old := createSettledSts(t, c, ns, "db")
		// The new revision's pods stay Pending (kwok's hold stage); the partition at replicas
		// keeps the controller from replacing any pod before drive walks it.
		patch := `{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":3}},"template":{"metadata":{"labels":{"` + framework.HoldLabel + `":"` + framework.HoldValue + `"}}}}}`
		if _, err := c.Client.AppsV1().StatefulSets(ns).Patch(t.Context(), "db", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res := c.Plugin(t, "drive", "sts/db", "-n", ns, "--step", "1", "--timeout", "4s")
		if res.ExitCode != 4 || !strings.Contains(res.Stdout, "partition 3 -> 2") ||
			!strings.Contains(res.Stderr, "held at partition 2 of 3") || !strings.Contains(res.Stderr, "kubectl rollplan drive abort sts/db -n "+ns) {
			t.Fatalf("drive of a held pod: exit %d after %s, want 4 with the closing block\n%s\n%s", res.ExitCode, time.Since(start), res.Stdout, res.Stderr)
		}
		res = c.Plugin(t, "drive", "abort", "sts/db", "-n", ns)
		if res.ExitCode != 0 || !strings.Contains(res.Stdout, "revision "+old+" restored") || !strings.Contains(res.Stdout, "deleted pod db-2") {
			t.Fatalf("drive abort: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		s := waitSts(t, c, ns, "db", "rolled back", func(s *appsv1.StatefulSet) bool {
			return s.Status.ObservedGeneration == s.Generation && s.Status.ReadyReplicas == 3 && s.Status.UpdatedReplicas == 3 && s.Status.CurrentRevision == s.Status.UpdateRevision
		})
		if s.Status.UpdateRevision != old || ptr.Deref(s.Spec.UpdateStrategy.RollingUpdate.Partition, -1) != 0 {
			t.Errorf("after abort: update revision %s (want the old %s), partition %v", s.Status.UpdateRevision, old, s.Spec.UpdateStrategy.RollingUpdate.Partition)
		}
		revs, _ := podRevisions(t, c, ns, "db")
		for i, r := range revs {
			if r != old {
				t.Errorf("pod db-%d on revision %s after abort, want the old %s", i, r, old)
			}
		}
	})

	// Another driver's valid lease: drive is refused with one line and writes nothing;
	// --force takes the lease and the walk completes, leaving no lease behind.
	t.Run("lease", func(t *testing.T) {
		t.Parallel()
		ns := c.Namespace(t)
		createSettledSts(t, c, ns, "db")
		exp := time.Now().Add(5 * time.Minute).UTC().Format(time.RFC3339)
		lease := `{"holder":"alice@elsewhere pid 1/ab","expires":"` + exp + `"}`
		body := `{"metadata":{"annotations":{"rollplan.dev/drive-lease":` + strconv.Quote(lease) + `}}}`
		before, err := c.Client.AppsV1().StatefulSets(ns).Patch(t.Context(), "db", types.MergePatchType, []byte(body), metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res := c.Plugin(t, "drive", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--step", "3", "--timeout", "30s")
		want := "statefulset " + ns + "/db is being driven by alice@elsewhere pid 1/ab (lease valid until " + exp + "): wait, or pass --force if that driver is gone"
		if res.ExitCode != 1 || !strings.Contains(res.Stderr, want) || strings.Count(strings.TrimSpace(res.Stderr), "\n") != 0 {
			t.Fatalf("second drive: exit %d, want 1 and %q\n%s\n%s", res.ExitCode, want, res.Stdout, res.Stderr)
		}
		if now, _ := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), "db", metav1.GetOptions{}); now.ResourceVersion != before.ResourceVersion {
			t.Errorf("refused drive wrote: resourceVersion %s -> %s", before.ResourceVersion, now.ResourceVersion)
		}
		res = c.Plugin(t, "drive", "sts/db", "-n", ns, "--image", "app=nginx:1.19", "--step", "3", "--timeout", "30s", "--force")
		if res.ExitCode != 0 || !strings.Contains(res.Stdout, "took the lease from alice@elsewhere pid 1/ab (--force)") {
			t.Fatalf("drive --force: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		if now, _ := c.Client.AppsV1().StatefulSets(ns).Get(t.Context(), "db", metav1.GetOptions{}); now.Annotations["rollplan.dev/drive-lease"] != "" {
			t.Errorf("lease left after the drive: %s", now.Annotations["rollplan.dev/drive-lease"])
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{{"drive", "ds/x", "--image", "a=b"}, {"drive", "abort", "deploy/x"}} {
			res := c.Plugin(t, args...)
			if res.ExitCode != 1 || strings.Count(strings.TrimSpace(res.Stderr), "\n") != 0 {
				t.Errorf("%v: exit %d, want 1 with one line: %q", args, res.ExitCode, res.Stderr)
			}
		}
	})
}

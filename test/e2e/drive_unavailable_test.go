//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

// TestDrivePodsLoseAvailability: two pods of the new ReplicaSet stop being Ready (kwok's
// pod-unready stage) after step 1 of a 10-replica drive (25%/25%: at least 8 available).
// Drive does not scale an old pod down for them: its step waits for the new pods, holds
// when --progress-timeout passes (exit 4) and names the two pods with why; the old
// ReplicaSet keeps its 5 pods, and no write of drive takes availability below what the
// two lost pods left. Once they are replaced, the next run finishes the drive.
func TestDrivePodsLoseAvailability(t *testing.T) {
	s := newDriveSetup(t, 10, "25%", "25%")
	b := s.bounds
	// The two pods the test takes away are below the floor by themselves; drive must not
	// take a third.
	mon := watchPods(t, s.c, s.ns, int(b.MaxPods()), int(b.MinAvailable())-2)
	rec := s.c.RecordReplicaSets(t, s.ns)
	d := s.startDrive(t, nil, "drive", "deploy/web", "--image", "app=nginx:1.19", "--yes", "--interval", "1s", "--progress-timeout", "15s")
	waitWrites(t, rec, d, 2) // step 1: create new 0->3, scale old 10->5
	newRS := rec.Writes()[0].Name
	pods := s.podsOf(t, newRS)
	if len(pods) < 2 {
		t.Fatalf("new ReplicaSet %s has %d pods after step 1, want 3", newRS, len(pods))
	}
	lost := pods[:2]
	s.c.MakeUnready(t, s.ns, lost...)
	select {
	case <-d.Done():
	case <-time.After(2 * time.Minute):
		t.Fatalf("drive still runs 2 minutes after the pods lost availability\nstderr:\n%s", d.Stderr.String())
	}
	stderr := d.Stderr.String()
	if code := d.ExitCode(); code != 4 {
		t.Fatalf("drive: exit %d, want 4 (held)\nstderr:\n%s", code, stderr)
	}
	for _, want := range append([]string{"timed out", "RollplanTestUnready", "kubectl rollplan abort deploy/web"}, lost...) {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	writes := rec.WaitQuiet(t, 2*time.Second, 30*time.Second)
	if diff := cmp.Diff([]string{"create new 0->3", "scale old 10->5", "scale new 3->8"}, s.describe(writes)); diff != "" {
		t.Errorf("ReplicaSet writes (-want +got): no old pod goes while new pods are not available:\n%s", diff)
	}
	dep, err := s.c.Client.AppsV1().Deployments(s.ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := drive.ReadState(dep)
	if err != nil || st == nil || st.Holder != "" || !strings.Contains(st.HeldReason, "timed out") {
		t.Fatalf("drive state %+v (%v): want held, released, with the timeout as reason", st, err)
	}

	// Replace the two pods (the ReplicaSet controller creates Ready ones): the next run
	// finishes the drive.
	for _, p := range lost {
		if err := s.c.Client.CoreV1().Pods(s.ns).Delete(t.Context(), p, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	res := s.plugin(t, "drive", "deploy/web", "--yes")
	if res.ExitCode != 0 {
		t.Fatalf("drive again: exit %d\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	mon.assertBounds(t)
	s.assertHandedBack(t, 2, "nginx:1.19", 10)
}

// podsOf returns the names of the pods of ReplicaSet name that are not being deleted, in
// name order.
func (s *driveSetup) podsOf(t testing.TB, name string) []string {
	t.Helper()
	rs, err := s.c.Client.AppsV1().ReplicaSets(s.ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.c.Client.CoreV1().Pods(s.ns).List(t.Context(), metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

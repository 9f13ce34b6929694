package drive

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
)

func TestStatus(t *testing.T) {
	d, old, newRS := held(t, PhaseForward, "alice@host pid 1/ab", now.Add(20*time.Second))
	snap := &Snapshot{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old, newRS}}
	snap.State, _ = ReadState(d)
	r := Status(snap, now)
	if !r.Held || !r.Driving || r.StepsLeft != 2 || r.Next == nil || len(r.Edits) != 0 {
		t.Fatalf("report: held %v driving %v left %d next %v edits %v", r.Held, r.Driving, r.StepsLeft, r.Next, r.Edits)
	}
	var roles []string
	for _, rs := range r.ReplicaSets {
		roles = append(roles, rs.Role)
	}
	if diff := cmp.Diff([]string{"previous", "new"}, roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	// The human form of this report: printer.TestPrintDriveStatus.
	if r.Kind != "DriveStatus" || r.State == nil || r.State.Holder != "alice@host pid 1/ab" || r.Bounds == nil || r.Bounds.MaxSurge != 3 {
		t.Errorf("object: kind %q state %+v bounds %+v", r.Kind, r.State, r.Bounds)
	}
	// An edit shows.
	d.Spec.Paused = false
	if r := Status(snap, now); len(r.Edits) != 1 || !strings.Contains(r.Edits[0], "paused") {
		t.Errorf("edits %v, want spec.paused", r.Edits)
	}
}

package stsdrive

import (
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/drive/objlease"
)

func TestStatus(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s, _ := settled(1, "db-2", "db-1")
	s.Status.UpdatedReplicas, s.Status.ReadyReplicas = 1, 2
	s.Annotations = map[string]string{objlease.Annotation: `{"holder":"alice@h pid 1/ab","expires":"2026-01-01T12:00:20Z"}`}
	r := Status(s, now)
	st := r.StatefulSet
	if r.WorkloadKind != "StatefulSet" || r.Kind != "DriveStatus" || !r.Held || !r.Driving || st == nil || st.Holder != "alice@h pid 1/ab" || !st.LeaseValid ||
		!st.LeaseExpires.Equal(now.Add(20*time.Second)) || st.Partition != 1 || st.Replicas != 2 || st.UpdatedReplicas != 1 || st.UpdateRevision != "db-2" {
		t.Errorf("status %+v, statefulSet %+v", r, st)
	}
	if r := Status(s, now.Add(time.Minute)); r.Driving || r.StatefulSet.LeaseValid || r.StatefulSet.Holder == "" {
		t.Errorf("expired lease: driving %v, %+v", r.Driving, r.StatefulSet)
	}
	s.Annotations[objlease.Annotation] = "garbage"
	if r := Status(s, now); r.Problem == "" || r.Driving {
		t.Errorf("bad lease: %+v", r)
	}
	done, _ := settled(0, "db-2", "db-2")
	if r := Status(done, now); r.Held || r.Driving || r.StatefulSet.Holder != "" {
		t.Errorf("a finished walk: %+v", r)
	}
}

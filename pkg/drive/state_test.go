package drive

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReadState(t *testing.T) {
	d, _, _ := held(t, PhaseForward, "alice", now.Add(time.Minute))
	s, err := ReadState(d)
	if err != nil || s == nil {
		t.Fatalf("ReadState: %v, %v", s, err)
	}
	if !s.LeaseValid(now) || s.LeaseValid(now.Add(2*time.Minute)) {
		t.Error("lease validity does not follow LeaseExpires")
	}
	if diff := cmp.Diff(Bounds{10, 3, 2}, s.Bounds()); diff != "" {
		t.Errorf("bounds (-want +got):\n%s", diff)
	}
	d.Annotations[Annotation] = "{not json"
	if _, err := ReadState(d); err == nil || !strings.Contains(err.Error(), "edited by hand") {
		t.Errorf("bad annotation: %v", err)
	}
	d.Annotations[Annotation] = `{"version":9}`
	if _, err := ReadState(d); err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("future version: %v", err)
	}
	delete(d.Annotations, Annotation)
	if s, err := ReadState(d); s != nil || err != nil || IsHeld(d) {
		t.Errorf("not held: %v, %v, IsHeld %v", s, err, IsHeld(d))
	}
}

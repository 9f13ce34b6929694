package objlease

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func obj(ann map[string]string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Name: "db", Namespace: "ns", ResourceVersion: "7", Annotations: ann}
}

func TestAcquire(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	held := encode("alice@h pid 1/ab", now, time.Minute)
	for _, tc := range []struct {
		name      string
		ann       map[string]string
		at        time.Time
		force     bool
		wantErr   bool
		wantTaken string
		wantAdd   string
	}{
		{name: "no annotations", ann: nil, at: now, wantAdd: "/metadata/annotations"},
		{name: "free", ann: map[string]string{"x": "y"}, at: now, wantAdd: "/metadata/annotations/rollplan.dev~1drive-lease"},
		{name: "held by another", ann: map[string]string{Annotation: held}, at: now.Add(30 * time.Second), wantErr: true},
		{name: "held, forced", ann: map[string]string{Annotation: held}, at: now.Add(30 * time.Second), force: true, wantTaken: "alice@h pid 1/ab", wantAdd: "/metadata/annotations/rollplan.dev~1drive-lease"},
		{name: "lapsed", ann: map[string]string{Annotation: held}, at: now.Add(time.Minute), wantAdd: "/metadata/annotations/rollplan.dev~1drive-lease"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops, val, taken, err := Acquire(obj(tc.ann), "statefulset ns/db", "bob@h pid 2/cd", tc.at, time.Minute, tc.force)
			var he *HeldError
			if tc.wantErr {
				if !errors.As(err, &he) || !strings.Contains(err.Error(), "is being driven by alice@h pid 1/ab (lease valid until 2026-01-01T10:01:00Z)") {
					t.Fatalf("err = %v, want a HeldError naming alice", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if taken != tc.wantTaken {
				t.Errorf("taken = %q, want %q", taken, tc.wantTaken)
			}
			if len(ops) != 2 || ops[0].Op != "test" || ops[0].Value != "7" || ops[1].Path != tc.wantAdd {
				t.Errorf("ops = %+v", ops)
			}
			l, err := Read(obj(map[string]string{Annotation: val}))
			if err != nil || l.Holder != "bob@h pid 2/cd" || !l.Expires.Equal(tc.at.Add(time.Minute)) {
				t.Errorf("lease written = %+v, %v", l, err)
			}
		})
	}
}

func TestRenewReleaseDue(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	v := encode("bob", now, 30*time.Second)
	if Due(v, now.Add(19*time.Second), 30*time.Second) {
		t.Error("due 19 s into a 30 s lease")
	}
	if !Due(v, now.Add(20*time.Second), 30*time.Second) {
		t.Error("not due 20 s into a 30 s lease")
	}
	ops, nv := Renew(v, "bob", now.Add(20*time.Second), 30*time.Second)
	if ops[0].Op != "test" || ops[0].Value != v || ops[1].Op != "replace" || ops[1].Value != nv || nv == v {
		t.Errorf("renew ops = %+v", ops)
	}
	if r := Release(nv); r[0].Value != nv || r[1].Op != "remove" {
		t.Errorf("release ops = %+v", r)
	}
	if _, err := Read(obj(map[string]string{Annotation: "{"})); err == nil {
		t.Error("Read of a broken annotation: no error")
	}
}

package reload

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func entry(manager string, at time.Time, fields string) metav1.ManagedFieldsEntry {
	t := metav1.NewTime(at)
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, Time: &t,
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

var t0 = time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)

func TestLastDataWrite(t *testing.T) {
	tests := []struct {
		name   string
		fields []metav1.ManagedFieldsEntry
		want   DataWrite
		found  bool
	}{
		{name: "no managedFields", found: false},
		{name: "one creator owning data", fields: []metav1.ManagedFieldsEntry{entry("kubectl-create", t0, `{"f:data":{".":{},"f:A":{}}}`)},
			want: DataWrite{Time: t0, Manager: "kubectl-create"}, found: true},
		{name: "the latest owner of data wins; a later label-only manager does not count",
			fields: []metav1.ManagedFieldsEntry{
				entry("kubectl-create", t0, `{"f:data":{"f:A":{}}}`),
				entry("kubectl-edit", t0.Add(time.Hour), `{"f:data":{"f:B":{}}}`),
				entry("labeler", t0.Add(2*time.Hour), `{"f:metadata":{"f:labels":{"f:x":{}}}}`),
			}, want: DataWrite{Time: t0.Add(time.Hour), Manager: "kubectl-edit"}, found: true},
		{name: "binaryData counts", fields: []metav1.ManagedFieldsEntry{entry("m", t0, `{"f:binaryData":{"f:k":{}}}`)},
			want: DataWrite{Time: t0, Manager: "m"}, found: true},
		{name: "a secret's stringData counts", fields: []metav1.ManagedFieldsEntry{entry("apply", t0, `{"f:stringData":{"f:k":{}}}`)},
			want: DataWrite{Time: t0, Manager: "apply"}, found: true},
		{name: "a data key inside metadata does not count", fields: []metav1.ManagedFieldsEntry{entry("m", t0, `{"f:metadata":{"f:data":{}}}`)}},
		{name: "malformed FieldsV1 is skipped", fields: []metav1.ManagedFieldsEntry{entry("m", t0, `not json`)}},
		{name: "an entry without time is skipped", fields: []metav1.ManagedFieldsEntry{{Manager: "m", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := LastDataWrite(tt.fields)
			if found != tt.found {
				t.Fatalf("found = %v, want %v", found, tt.found)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LastDataWrite (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssessFirstSight(t *testing.T) {
	first := Decide(webDeployment(), baseObjects()) // configmap/app, configmap/extra, secret/db: unrecorded
	pods := Pods{ReplicaSet: "web-abc", OldestCreated: t0}
	tests := []struct {
		name      string
		d         Decision
		pods      Pods
		writes    map[string]DataWrite
		stale     bool
		since     time.Time
		evidence  []string
		unknown   []string
		inSummary string
	}{
		{name: "every config written before the pods: no evidence", d: first, pods: pods,
			writes:    map[string]DataWrite{"configmap/app": {t0.Add(-time.Hour), "a"}, "configmap/extra": {t0.Add(-time.Minute), "a"}, "secret/db": {t0.Add(-time.Hour), "a"}},
			inSummary: "no evidence of stale pods"},
		{name: "written in the same second as the pods: taken as seen", d: first, pods: pods,
			writes: map[string]DataWrite{"configmap/app": {t0, "a"}, "configmap/extra": {t0, "a"}, "secret/db": {t0, "a"}}},
		{name: "two written after the pods: possibly stale since the earlier", d: first, pods: pods,
			writes: map[string]DataWrite{"configmap/app": {t0.Add(2 * time.Hour), "kubectl-edit"}, "configmap/extra": {t0.Add(-time.Hour), "a"}, "secret/db": {t0.Add(time.Hour), "kubectl-apply"}},
			stale:  true, since: t0.Add(time.Hour),
			evidence: []string{"configmap/app", "secret/db"}, inSummary: "possibly stale since 2026-11-24T09:00:00Z: configmap/app data written 2026-11-24T10:00:00Z by kubectl-edit, after the oldest pod of replicaset web-abc was created 2026-11-24T08:00:00Z"},
		{name: "no pods: nothing runs stale", d: first, pods: Pods{ReplicaSet: "web-abc"},
			writes: map[string]DataWrite{"configmap/app": {t0.Add(time.Hour), "a"}}, unknown: []string{"configmap/extra", "secret/db"}},
		{name: "unknown writes are listed, not counted", d: first, pods: pods, writes: nil,
			unknown: []string{"configmap/app", "configmap/extra", "secret/db"}, inSummary: "last write unknown (no managedFields) for configmap/app, configmap/extra, secret/db"},
		{name: "recorded references are not looked at", d: Decide(recorded(t, webDeployment(), baseObjects()), baseObjects()), pods: pods,
			writes: map[string]DataWrite{"configmap/app": {t0.Add(time.Hour), "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := AssessFirstSight(tt.d, tt.pods, tt.writes)
			if a.PossiblyStale != tt.stale || !a.Since.Equal(tt.since) {
				t.Errorf("PossiblyStale, Since = %v, %v; want %v, %v", a.PossiblyStale, a.Since, tt.stale, tt.since)
			}
			var ev []string
			for _, e := range a.Evidence {
				ev = append(ev, e.Ref)
			}
			if diff := cmp.Diff(tt.evidence, ev); diff != "" {
				t.Errorf("evidence (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.unknown, a.Unknown); diff != "" {
				t.Errorf("unknown (-want +got):\n%s", diff)
			}
			if !strings.Contains(a.Summary(), tt.inSummary) {
				t.Errorf("Summary %q does not contain %q", a.Summary(), tt.inSummary)
			}
		})
	}
}

func TestDecisionFirstSight(t *testing.T) {
	if !Decide(webDeployment(), baseObjects()).FirstSight() {
		t.Error("FirstSight false for a Deployment without recorded checksums")
	}
	if Decide(recorded(t, webDeployment(), baseObjects()), baseObjects()).FirstSight() {
		t.Error("FirstSight true for a recorded Deployment")
	}
}

func TestOldestPodOf(t *testing.T) {
	pod := func(name, owner, kind string, created time.Time, deleting bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
		if owner != "" {
			p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: owner, Controller: ptr.To(true)}}
		}
		if deleting {
			now := metav1.NewTime(created)
			p.DeletionTimestamp = &now
		}
		return p
	}
	pods := []*corev1.Pod{
		pod("old-rs-pod", "web-old", "ReplicaSet", t0.Add(-time.Hour), false),
		pod("terminating", "web-cur", "ReplicaSet", t0.Add(-30*time.Minute), true),
		pod("orphan", "", "", t0.Add(-20*time.Minute), false),
		pod("same-name-other-kind", "web-cur", "StatefulSet", t0.Add(-10*time.Minute), false),
		pod("cur-2", "web-cur", "ReplicaSet", t0.Add(time.Minute), false),
		pod("cur-1", "web-cur", "ReplicaSet", t0, false),
	}
	if diff := cmp.Diff(Pods{ReplicaSet: "web-cur", OldestCreated: t0}, OldestPodOf("web-cur", pods)); diff != "" {
		t.Errorf("OldestPodOf (-want +got):\n%s", diff)
	}
	if got := OldestPodOf("web-new", pods); !got.OldestCreated.IsZero() || got.ReplicaSet != "web-new" {
		t.Errorf("OldestPodOf of a ReplicaSet without pods = %+v, want no pod", got)
	}
}

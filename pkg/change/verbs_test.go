package change_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// history builds web at revision 3 (nginx:1.20) with ReplicaSets of revisions 1 (1.18),
// 2 (1.19) and 3, like the bundled sample, with annotations that kubectl's rollback moves.
func history(paused bool) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := testutil.Deployment("web").Replicas(10).Image("nginx:1.20").Revision(3).Paused(paused).
		Annotation("team", "x").Annotation("only-on-deployment", "y").
		Annotation(corev1.LastAppliedConfigAnnotation, "{}").Build()
	rss := []*appsv1.ReplicaSet{
		testutil.ReplicaSetFor(d).Image("nginx:1.18").Revision(1).Replicas(0).Created(1).Annotation("team", "x").Annotation("note", "first").Build(),
		testutil.ReplicaSetFor(d).Image("nginx:1.19").Revision(2).RevisionHistory("").Replicas(0).Created(2).Annotation("team", "x").Annotation("other", "y").Build(),
		testutil.ReplicaSetFor(d).Revision(3).Created(3).Annotation("team", "x").Build(),
	}
	return d, rss
}

func TestToRevision(t *testing.T) {
	tests := []struct {
		name         string
		revision     int64
		rss          func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet
		wantImage    string
		wantRevision int64
		wantSkipped  bool
	}{
		{name: "0 is the previous revision", revision: 0, wantImage: "nginx:1.19", wantRevision: 2},
		{name: "an explicit revision", revision: 1, wantImage: "nginx:1.18", wantRevision: 1},
		{name: "the current revision is skipped", revision: 3, wantImage: "nginx:1.20", wantRevision: 3, wantSkipped: true},
		{name: "previous ignores ReplicaSet order", revision: 0, wantImage: "nginx:1.19", wantRevision: 2,
			rss: func(_ *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				return []*appsv1.ReplicaSet{rss[2], rss[1], rss[0]}
			}},
		{name: "orphans are not history", revision: 0, wantImage: "nginx:1.19", wantRevision: 2,
			rss: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				orphan := testutil.ReplicaSetFor(d).Image("nginx:9").Revision(5).Orphan().Build()
				return append(rss, orphan)
			}},
		{name: "a non-numeric revision is skipped", revision: 0, wantImage: "nginx:1.19", wantRevision: 2,
			rss: func(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
				bad := testutil.ReplicaSetFor(d).Image("nginx:9").Annotation(deployutil.RevisionAnnotation, "x").Build()
				return append(rss, bad)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, rss := history(false)
			if tc.rss != nil {
				rss = tc.rss(d, rss)
			}
			before := d.DeepCopy()
			got, err := change.ToRevision(d, rss, tc.revision)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, d); diff != "" {
				t.Errorf("input mutated:\n%s", diff)
			}
			if img := got.Deployment.Spec.Template.Spec.Containers[0].Image; img != tc.wantImage || got.Revision != tc.wantRevision || got.Skipped != tc.wantSkipped {
				t.Errorf("image %s revision %d skipped %v; want %s %d %v", img, got.Revision, got.Skipped, tc.wantImage, tc.wantRevision, tc.wantSkipped)
			}
			if _, ok := got.Deployment.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; ok {
				t.Errorf("the restored template keeps the pod-template-hash label")
			}
			if got.Skipped {
				if diff := cmp.Diff(d, got.Deployment); diff != "" {
					t.Errorf("a skipped rollback changed the Deployment:\n%s", diff)
				}
				return
			}
			// The template is the target's, minus the hash label: the controller will find
			// the target ReplicaSet as the new one.
			want := got.Target.Spec.Template.DeepCopy()
			delete(want.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
			if diff := cmp.Diff(*want, got.Deployment.Spec.Template); diff != "" {
				t.Errorf("template (-target +got):\n%s", diff)
			}
		})
	}
}

// kubectl replaces the Deployment's annotations by the target ReplicaSet's, keeping its own
// revision and last-applied; annotations only on the Deployment are dropped (seen on a
// v1.36.3 cluster with `kubectl rollout undo`).
func TestToRevisionAnnotations(t *testing.T) {
	d, rss := history(false)
	got, err := change.ToRevision(d, rss, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		deployutil.RevisionAnnotation:      "3",
		corev1.LastAppliedConfigAnnotation: "{}",
		"team":                             "x",
		"other":                            "y",
	}
	if diff := cmp.Diff(want, got.Deployment.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}

func TestToRevisionErrors(t *testing.T) {
	d, rss := history(false)
	paused, prss := history(true)
	single := testutil.Deployment("solo").Build()
	tests := []struct {
		name     string
		d        *appsv1.Deployment
		rss      []*appsv1.ReplicaSet
		revision int64
		want     string
		paused   bool
	}{
		{name: "unknown revision", d: d, rss: rss, revision: 7, want: `unable to find specified revision 7 in history (revisions of deployment "web": 1, 2, 3)`},
		{name: "negative revision", d: d, rss: rss, revision: -1, want: `unable to find specified revision -1 in history (revisions of deployment "web": 1, 2, 3)`},
		{name: "no ReplicaSets", d: single, revision: 2, want: `unable to find specified revision 2 in history (deployment "solo" has no revisions)`},
		{name: "only one revision", d: single, rss: []*appsv1.ReplicaSet{testutil.ReplicaSetFor(single).Build()}, revision: 0, want: `no rollout history found for deployment "solo"`},
		{name: "paused", d: paused, rss: prss, revision: 0, paused: true,
			want: "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := change.ToRevision(tc.d, tc.rss, tc.revision)
			if err == nil {
				t.Fatalf("no error; got revision %d", got.Revision)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, tc.want)
			}
			if errors.Is(err, change.ErrPaused) != tc.paused {
				t.Errorf("errors.Is(err, ErrPaused) = %v, want %v", !tc.paused, tc.paused)
			}
		})
	}
}

func TestRestart(t *testing.T) {
	now := time.Date(2024, 3, 1, 12, 30, 0, 0, time.FixedZone("CET", 3600))
	d := testutil.Deployment("web").TemplateAnnotation("keep", "me").Build()
	got, err := change.Restart(d, now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"keep": "me", change.RestartedAtAnnotation: "2024-03-01T12:30:00+01:00"}
	if diff := cmp.Diff(want, got.Spec.Template.Annotations); diff != "" {
		t.Errorf("template annotations (-want +got):\n%s", diff)
	}
	if _, ok := d.Spec.Template.Annotations[change.RestartedAtAnnotation]; ok {
		t.Errorf("input mutated")
	}
	if planner.ComputeHash(&got.Spec.Template, nil) == planner.ComputeHash(&d.Spec.Template, nil) {
		t.Errorf("restart did not change the template hash")
	}
	// A Deployment without template annotations gets the map.
	if got, err := change.Restart(testutil.Deployment("web").Build(), now.UTC()); err != nil || got.Spec.Template.Annotations[change.RestartedAtAnnotation] != "2024-03-01T11:30:00Z" {
		t.Errorf("restart without annotations: %v, %v", got.Spec.Template.Annotations, err)
	}
	_, err = change.Restart(testutil.Deployment("web").Paused(true).Build(), now)
	if err == nil || err.Error() != "can't restart paused deployment (run rollout resume first)" || !errors.Is(err, change.ErrPaused) {
		t.Errorf("paused: error %v, want kubectl's message matching ErrPaused", err)
	}
}

func TestPauseResume(t *testing.T) {
	running := testutil.Deployment("web").Build()
	paused := testutil.Deployment("web").Paused(true).Build()
	if got, err := change.Pause(running); err != nil || !got.Spec.Paused || running.Spec.Paused {
		t.Errorf("Pause: paused=%v err=%v input paused=%v", got.Spec.Paused, err, running.Spec.Paused)
	}
	if _, err := change.Pause(paused); !errors.Is(err, change.ErrAlreadyPaused) || err.Error() != "is already paused" {
		t.Errorf("Pause of paused: %v", err)
	}
	if got, err := change.Resume(paused); err != nil || got.Spec.Paused || !paused.Spec.Paused {
		t.Errorf("Resume: paused=%v err=%v input paused=%v", got.Spec.Paused, err, paused.Spec.Paused)
	}
	if _, err := change.Resume(running); !errors.Is(err, change.ErrNotPaused) || err.Error() != "is not paused" {
		t.Errorf("Resume of running: %v", err)
	}
}

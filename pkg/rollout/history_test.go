package rollout

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// row is the part of a Revision the table tests compare.
type row struct {
	Revision  int64
	Earlier   []int64
	Images    []string
	Ready     string
	Cause     string
	Current   bool
	Restart   bool
	CleanedUp bool
}

func rows(h *History) []row {
	var out []row
	for _, r := range h.Revisions {
		out = append(out, row{
			Revision: r.Revision, Earlier: r.EarlierRevisions, Images: r.Images,
			Ready: fmtReady(r), Cause: r.ChangeCause, Current: r.Current, Restart: r.Restart,
			CleanedUp: r.DeletedAtNextRollout,
		})
	}
	return out
}

func fmtReady(r Revision) string {
	return string(rune('0'+r.ReadyReplicas)) + "/" + string(rune('0'+r.Replicas))
}

func TestBuildHistory(t *testing.T) {
	t.Run("renumbered revision, restart tag and cleanup of the two oldest revisions", func(t *testing.T) {
		d, rss := webHistory(2)
		h := BuildHistory(d, rss)
		want := []row{
			{Revision: 2, Images: []string{"nginx:1.19"}, Ready: "0/0", Cause: "image 1.19", CleanedUp: true},
			{Revision: 3, Images: []string{"nginx:1.19"}, Ready: "0/0", Cause: "image 1.19", Restart: true, CleanedUp: true},
			{Revision: 4, Earlier: []int64{1}, Images: []string{"nginx:1.18"}, Ready: "0/0", Cause: "create"},
			{Revision: 5, Images: []string{"nginx:1.20"}, Ready: "3/3", Cause: "image 1.20", Current: true},
		}
		if diff := cmp.Diff(want, rows(h)); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int64{2, 3}, h.Cleanup); diff != "" {
			t.Errorf("cleanup (-want +got):\n%s", diff)
		}
		if h.PendingTemplate || h.CleanupError != "" || h.Current().Revision != 5 {
			t.Errorf("pending %v, cleanup error %q, current %d; want false, \"\", 5", h.PendingTemplate, h.CleanupError, h.Current().Revision)
		}
		if got, want := h.Find(3).RestartedAt, restartedAt; got != want {
			t.Errorf("restartedAt of revision 3 = %q, want %q", got, want)
		}
		if got := h.Find(5).PodTemplateHash; got == "" || h.Find(5).ReplicaSet.Name != "web-"+got {
			t.Errorf("hash of revision 5 = %q, replicaset %s; want the name's suffix", got, h.Find(5).ReplicaSet.Name)
		}
	})
	t.Run("limit 10 deletes nothing; unset limit forecasts nothing", func(t *testing.T) {
		d, rss := webHistory(10)
		if h := BuildHistory(d, rss); len(h.Cleanup) != 0 || h.CleanupError != "" {
			t.Errorf("limit 10: cleanup %v (%q), want none", h.Cleanup, h.CleanupError)
		}
		d.Spec.RevisionHistoryLimit = nil
		if h := BuildHistory(d, rss); len(h.Cleanup) != 0 {
			t.Errorf("no limit: cleanup %v, want none", h.Cleanup)
		}
	})
	t.Run("limit 3 deletes only revision 2 (oldest revision, not oldest ReplicaSet)", func(t *testing.T) {
		d, rss := webHistory(3)
		h := BuildHistory(d, rss)
		if diff := cmp.Diff([]int64{2}, h.Cleanup); diff != "" {
			t.Errorf("cleanup (-want +got):\n%s", diff)
		}
	})
	t.Run("paused with a pending template: no current revision", func(t *testing.T) {
		d, rss := webHistory(10)
		d.Spec.Paused = true
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.21"
		h := BuildHistory(d, rss)
		if !h.PendingTemplate || h.Current() != nil || !h.Paused {
			t.Errorf("pending %v current %v paused %v; want true, nil, true", h.PendingTemplate, h.Current(), h.Paused)
		}
	})
	t.Run("orphans and invalid revisions are not history", func(t *testing.T) {
		d, rss := webHistory(10)
		orphan := testutil.ReplicaSet("web-orphan", "web").Created(5).Build()
		bad := testutil.ReplicaSetFor(testutil.Deployment("web").Image("nginx:1.17").Build()).OwnedBy(d).
			Created(6).Replicas(0).Annotation(deployutil.RevisionAnnotation, "x").Build()
		h := BuildHistory(d, append([]*appsv1.ReplicaSet{orphan, bad}, rss...))
		if diff := cmp.Diff([]int64{2, 3, 4, 5}, h.Numbers()); diff != "" {
			t.Errorf("revisions (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"web-orphan"}, h.Orphans); diff != "" {
			t.Errorf("orphans (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{bad.Name}, h.Unrevisioned); diff != "" {
			t.Errorf("unrevisioned (-want +got):\n%s", diff)
		}
	})
	t.Run("a second restart is a restart; a restart plus an image change is not", func(t *testing.T) {
		d, rss := webHistory(10)
		t1 := testutil.Deployment("web").Replicas(3).Image("nginx:1.20").Build()
		again := testutil.ReplicaSetFor(t1).OwnedBy(d).TemplateAnnotation("kubectl.kubernetes.io/restartedAt", "2024-01-01T00:09:00Z").
			Created(9).Replicas(0).Revision(6).Build()
		twice := testutil.ReplicaSetFor(t1).OwnedBy(d).TemplateAnnotation("kubectl.kubernetes.io/restartedAt", "2024-01-01T00:10:00Z").
			Created(10).Replicas(0).Revision(7).Build()
		both := testutil.ReplicaSetFor(t1).Image("nginx:1.21").OwnedBy(d).TemplateAnnotation("kubectl.kubernetes.io/restartedAt", "2024-01-01T00:11:00Z").
			Created(11).Replicas(0).Revision(8).Build()
		h := BuildHistory(d, append(rss, again, twice, both))
		for rev, want := range map[int64]bool{5: false, 6: true, 7: true, 8: false} {
			if got := h.Find(rev).Restart; got != want {
				t.Errorf("revision %d restart = %v, want %v", rev, got, want)
			}
		}
	})
}

func TestRevisionTemplateDropsHash(t *testing.T) {
	d, rss := webHistory(10)
	h := BuildHistory(d, rss)
	tmpl := h.Find(5).Template()
	if _, ok := tmpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; ok {
		t.Errorf("Template() keeps the pod-template-hash label: %v", tmpl.Labels)
	}
	if diff := cmp.Diff(d.Spec.Template, *tmpl); diff != "" {
		t.Errorf("revision 5's template is not the Deployment's (-want +got):\n%s", diff)
	}
}

// TestHistoryConfig: each revision names the config whose content changed from the previous
// revision, from the checksums annotation reload writes; a restoring revision (a config
// rollback) names it too.
func TestHistoryConfig(t *testing.T) {
	d := testutil.Deployment("web").Replicas(2).Build()
	sums := func(app, db string) string {
		return reload.EncodeChecksums(map[string]string{"configmap/app": app, "secret/db": db})
	}
	rs := func(created int, rev int64, annotation string) *appsv1.ReplicaSet {
		b := testutil.ReplicaSetFor(d).OwnedBy(d).Created(created).Replicas(0).Revision(rev)
		if annotation != "" {
			b = b.TemplateAnnotation(reload.ChecksumsAnnotation, annotation)
		}
		return b.Build()
	}
	rss := []*appsv1.ReplicaSet{
		rs(1, 1, ""),
		rs(2, 2, sums("a1", "d1")),
		rs(3, 3, sums("a2", "d1")),
		rs(4, 4, sums("a2", "d2")),
		rs(5, 5, reload.EncodeChecksums(map[string]string{"configmap/app": "a2"})),
		rs(6, 6, "{broken"),
	}
	h := BuildHistory(d, rss)
	if !h.ConfigRecorded {
		t.Fatal("ConfigRecorded false")
	}
	var got [][]string
	var malformed []bool
	for _, r := range h.Revisions {
		got = append(got, r.Config)
		malformed = append(malformed, r.ConfigMalformed)
	}
	want := [][]string{nil, {"+configmap/app", "+secret/db"}, {"configmap/app"}, {"secret/db"}, {"-secret/db"}, nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Config per revision (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, false, false, false, false, true}, malformed); diff != "" {
		t.Errorf("ConfigMalformed (-want +got):\n%s", diff)
	}
	if BuildHistory(d, []*appsv1.ReplicaSet{rs(1, 1, "")}).ConfigRecorded {
		t.Error("ConfigRecorded true without any checksums annotation")
	}
}

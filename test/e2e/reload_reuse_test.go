//go:build e2e

package e2e

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// revisionObjects are the names of the ReplicaSets (deploy) or ControllerRevisions (sts)
// of ref's workload w, with their revision numbers ("name=3"), sorted.
func (f *reloadFixture) revisionObjects(kind string) []string {
	f.t.Helper()
	var out []string
	if kind == "deploy" {
		for _, rs := range f.c.ReplicaSetsOf(f.t, f.get("w")) {
			out = append(out, rs.Name+"="+rs.Annotations["deployment.kubernetes.io/revision"])
		}
	} else {
		list, err := f.c.Client.AppsV1().ControllerRevisions(f.ns).List(f.t.Context(), metav1.ListOptions{LabelSelector: "app=w"})
		if err != nil {
			f.t.Fatal(err)
		}
		for _, cr := range list.Items {
			out = append(out, cr.Name+"="+strconv.FormatInt(cr.Revision, 10))
		}
	}
	slices.Sort(out)
	return out
}

// latestRevision is the name and number of the highest-numbered "name=N" of revs.
func latestRevision(revs []string) (string, int64) {
	var name string
	var num int64 = -1
	for _, r := range revs {
		n, v, _ := strings.Cut(r, "=")
		if i, err := strconv.ParseInt(v, 10, 64); err == nil && i > num {
			name, num = n, i
		}
	}
	return name, num
}

// rolloutHistory is the REVISION column of `kubectl rollout history ref`.
func (f *reloadFixture) rolloutHistory(ref string) []string {
	f.t.Helper()
	res := f.c.Kubectl(f.t, "-n", f.ns, "rollout", "history", ref)
	if res.ExitCode != 0 {
		f.t.Fatalf("kubectl rollout history %s: %s", ref, res.Stderr)
	}
	var out []string
	for _, line := range strings.Split(res.Stdout, "\n") {
		if fs := strings.Fields(line); len(fs) > 0 && fs[0] >= "0" && fs[0] <= "9" {
			out = append(out, fs[0])
		}
	}
	return out
}

// TestReloadAdoptedRevisionReused: `reload --adopt` at a=1 (revision N, no checksums in
// the template), a=2 and `reload --yes` (revision N+1), then a=1 again: the plan says
// `reused`, and `reload --yes` gives back revision N's template: the controller renumbers
// that ReplicaSet / ControllerRevision N+2 and creates none (`kubectl rollout history`
// loses N and gains N+2; a Deployment: 2, 3).
func TestReloadAdoptedRevisionReused(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"deploy", "sts"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newReloadFixture(t)
			ref := kind + "/w"
			if kind == "deploy" {
				f.deployment("w", "a", true)
				f.c.WaitForRollout(t, f.ns, "w", time.Minute)
			} else {
				createKind(t, f.c, f.ns, kind, "w")
				f.optInKind(kind, "w")
				kindRolledOut(t, f.c, f.ns, ref)
			}
			f.mustReload(ref, "--adopt", "--yes")
			name, num := latestRevision(f.revisionObjects(kind))
			f.setKey("a", "2")
			f.mustReload(ref, "--yes", "--timeout", "40s")
			mid := f.revisionObjects(kind)
			_, midNum := latestRevision(mid)
			if midNum != num+1 {
				t.Fatalf("after the change: revisions %v, want a new one numbered %d", mid, num+1)
			}
			histMid := f.rolloutHistory(ref)

			f.setKey("a", "1")
			plan := f.mustReload(ref, "--dry-run=client")
			if !strings.Contains(plan.Stdout, "reused") {
				t.Errorf("the plan of the restore does not say reused:\n%s", plan.Stdout)
			}
			f.mustReload(ref, "--yes", "--timeout", "40s")
			final := f.revisionObjects(kind)
			want := strconv.FormatInt(midNum+1, 10)
			if len(final) != len(mid) || !slices.Contains(final, name+"="+want) {
				t.Errorf("after the restore: revisions %v, want %d, %s (the adopted revision %d) renumbered %s, no new one", final, len(mid), name, num, want)
			}
			wantHist := append(slices.DeleteFunc(slices.Clone(histMid), func(s string) bool { return s == strconv.FormatInt(num, 10) }), want)
			if h := f.rolloutHistory(ref); !slices.Equal(h, wantHist) {
				t.Errorf("kubectl rollout history %s: revisions %v, want %v (before the restore: %v)", ref, h, wantHist, histMid)
			}
		})
	}
}

package drive

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
)

func TestCompareSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		surge, unavailable string
		want, notWant      []string
	}{
		{"25%", "25%", []string{"order:", "keeps one old pod"}, []string{"maxSurge is 0"}},
		{"0", "25%", []string{"maxSurge is 0", "11 at most"}, nil},
	} {
		d, old := rolledOut()
		d.Spec.Strategy = testutil.RollingUpdate(tc.surge, tc.unavailable)
		tk, err := PlanTakeover(clusterState(d, old), withImage(d, "nginx:1.19"), false)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compare(tk)
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(c.Differences, "\n")
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s/%s: differences lack %q:\n%s", tc.surge, tc.unavailable, w, all)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(all, w) {
				t.Errorf("%s/%s: differences say %q:\n%s", tc.surge, tc.unavailable, w, all)
			}
		}
		if len(c.Controller.Steps) == 0 {
			t.Error("no controller steps")
		}
	}
}

func clusterState(d *appsv1.Deployment, rss ...*appsv1.ReplicaSet) *cluster.State {
	return &cluster.State{Deployment: d, ReplicaSets: rss}
}

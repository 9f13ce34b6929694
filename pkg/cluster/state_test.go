package cluster

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

func names(rss []*appsv1.ReplicaSet) []string {
	out := []string{}
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}

func TestNewStateClaims(t *testing.T) {
	d := testutil.Deployment("web").Build()
	other := testutil.Deployment("api").Build()
	tests := []struct {
		name                 string
		d                    *appsv1.Deployment
		rss                  []*appsv1.ReplicaSet
		wantRSs, wantOrphans []string
		wantForeign          []string
	}{
		{
			name:    "owned and matching is claimed",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSetFor(d).Name("a").Build()},
			wantRSs: []string{"a"}, wantOrphans: []string{}, wantForeign: []string{},
		},
		{
			name:    "orphan with matching labels is adopted",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSet("loose", "web").Build()},
			wantRSs: []string{"loose"}, wantOrphans: []string{"loose"}, wantForeign: []string{},
		},
		{
			name:    "orphan with other labels is ignored",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSet("loose", "api").Build()},
			wantRSs: []string{}, wantOrphans: []string{}, wantForeign: []string{},
		},
		{
			name:    "owned by another controller is foreign",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSetFor(d).Name("theirs").ControlledBy("apps/v1", "Deployment", "web", "another-uid").Build()},
			wantRSs: []string{}, wantOrphans: []string{}, wantForeign: []string{"theirs"},
		},
		{
			name:    "owned but labels no longer match is released, not claimed",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSetFor(d).Name("stale").Label("app", "moved").Build()},
			wantRSs: []string{}, wantOrphans: []string{}, wantForeign: []string{},
		},
		{
			name:    "owned and being deleted is still claimed",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSetFor(d).Name("going").Deleting(5).Build()},
			wantRSs: []string{"going"}, wantOrphans: []string{}, wantForeign: []string{},
		},
		{
			name:    "orphan being deleted is not adopted",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSet("going", "web").Deleting(5).Build()},
			wantRSs: []string{}, wantOrphans: []string{}, wantForeign: []string{},
		},
		{
			name:    "a Deployment being deleted adopts nothing",
			d:       testutil.Deployment("web").Deleting(5).Build(),
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSet("loose", "web").Build(), testutil.ReplicaSetFor(d).Name("mine").Build()},
			wantRSs: []string{"mine"}, wantOrphans: []string{}, wantForeign: []string{},
		},
		{
			name:    "another namespace is ignored",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSetFor(d).Name("elsewhere").Namespace("prod").Build(), testutil.ReplicaSet("o", "web").Namespace("prod").Build()},
			wantRSs: []string{}, wantOrphans: []string{}, wantForeign: []string{},
		},
		{
			name:    "another Deployment's ReplicaSet with other labels is ignored",
			d:       d,
			rss:     []*appsv1.ReplicaSet{testutil.ReplicaSetFor(other).Name("api-1").Build()},
			wantRSs: []string{}, wantOrphans: []string{}, wantForeign: []string{},
		},
		{
			name: "without a UID, ownerRef kind and name decide (hand-written files)",
			d:    testutil.Deployment("web").UID("").Build(),
			rss: []*appsv1.ReplicaSet{
				testutil.ReplicaSetFor(d).Name("by-name").ControlledBy("apps/v1", "Deployment", "web", "").Build(),
				testutil.ReplicaSetFor(d).Name("other-name").ControlledBy("apps/v1", "Deployment", "web2", "").Build(),
			},
			wantRSs: []string{"by-name"}, wantOrphans: []string{}, wantForeign: []string{"other-name"},
		},
		{
			name: "sorted by creation time, then name",
			d:    d,
			rss: []*appsv1.ReplicaSet{
				testutil.ReplicaSetFor(d).Name("c").Created(2).Build(),
				testutil.ReplicaSetFor(d).Name("b").Created(1).Build(),
				testutil.ReplicaSet("a", "web").Created(2).Build(),
				testutil.ReplicaSetFor(d).Name("d").Created(0).Build(),
			},
			wantRSs: []string{"d", "b", "a", "c"}, wantOrphans: []string{"a"}, wantForeign: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newState(tc.d, tc.rss, "test")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{"ReplicaSets": names(s.ReplicaSets), "Orphans": names(s.Orphans), "Foreign": names(s.Foreign)}
			want := map[string][]string{"ReplicaSets": tc.wantRSs, "Orphans": tc.wantOrphans, "Foreign": tc.wantForeign}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("selection (-want +got):\n%s", diff)
			}
			for _, o := range s.Orphans {
				if !s.IsOrphan(o) {
					t.Errorf("IsOrphan(%s) = false", o.Name)
				}
			}
			owned := names(s.Owned())
			for _, o := range tc.wantOrphans {
				for _, n := range owned {
					if n == o {
						t.Errorf("Owned() includes orphan %s", o)
					}
				}
			}
			if len(owned)+len(s.Orphans) != len(s.ReplicaSets) {
				t.Errorf("Owned() %v + Orphans %v != ReplicaSets %v", owned, names(s.Orphans), names(s.ReplicaSets))
			}
		})
	}
}

func TestNewStateSelectorErrors(t *testing.T) {
	tests := map[string]*appsv1.Deployment{
		"nil selector": testutil.Deployment("web").Selector(nil).Build(),
	}
	bad := testutil.Deployment("web").Build()
	bad.Spec.Selector.MatchExpressions = append(bad.Spec.Selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: "tier", Operator: "Bogus", Values: []string{"x"}})
	tests["invalid operator"] = bad
	for name, d := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := newState(d, nil, "test")
			if err == nil {
				t.Fatal("no error")
			}
			if want := "deployment default/web has"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name the Deployment (%q)", err, want)
			}
		})
	}
}

// TestStateOfCopies: StateOf claims as newState does, and leaves the (cached) inputs alone.
func TestStateOfCopies(t *testing.T) {
	d := testutil.Deployment("web").Build()
	d.Kind, d.APIVersion = "", ""
	api := testutil.Deployment("api").Build()
	mine := testutil.ReplicaSetFor(d).Name("web-1").Build()
	theirs := testutil.ReplicaSetFor(api).Name("api-1").Build()
	loose := testutil.ReplicaSet("loose", "web").Build()
	mine.Kind, loose.Kind = "", ""
	s, err := StateOf(d, []*appsv1.ReplicaSet{theirs, mine, loose})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"loose", "web-1"}, names(s.ReplicaSets)); diff != "" {
		t.Errorf("claimed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"loose"}, names(s.Orphans)); diff != "" {
		t.Errorf("orphans (-want +got):\n%s", diff)
	}
	if d.Kind != "" || mine.Kind != "" || loose.Kind != "" || s.ReplicaSets[1] == mine || s.Deployment == d {
		t.Error("StateOf modified or kept its inputs instead of copies")
	}
}

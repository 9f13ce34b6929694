package planner_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// catsTemplate is the pod template of upstream's TestPodTemplateSpecHash
// (k8s.io/kubernetes pkg/controller/deployment/util/hash_test.go, v1.36.3) with version v.
const catsTemplate = `{"metadata":{"labels":{"app":"cats"}},"spec":{"containers":[{"name":"cats",
"image":"registry/test/cats:v0.@@VERSION@@.0","ports":[{"name":"http","containerPort":9077,"protocol":"TCP"}],
"env":[{"name":"DEPLOYMENT_ENVIRONMENT","value":"cats-stubbed-functional"},{"name":"APP_NAME","value":"cats"}],
"resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"1","memory":"1Gi"}},
"livenessProbe":{"httpGet":{"path":"/private/status","port":9077,"scheme":"HTTP"},"initialDelaySeconds":30,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
"readinessProbe":{"httpGet":{"path":"/private/status","port":9077,"scheme":"HTTP"},"initialDelaySeconds":1,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],
"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{}}}`

func cats(t *testing.T, version string) *corev1.PodTemplateSpec {
	t.Helper()
	var tmpl corev1.PodTemplateSpec
	if err := json.Unmarshal([]byte(strings.Replace(catsTemplate, "@@VERSION@@", version, 1)), &tmpl); err != nil {
		t.Fatal(err)
	}
	return &tmpl
}

// TestComputeHash pins ComputeHash to values computed by upstream's own
// k8s.io/kubernetes/pkg/controller.ComputeHash (v1.36.3) for the same inputs: the templates
// of upstream's hash tests (an empty PodTemplateSpec with the collision counts of
// TestComputeHash in controller_utils_test.go, and the cats template of hash_test.go). The
// upstream tests only assert that hashes differ; the values were obtained by calling the
// upstream function in a scratch program that requires k8s.io/kubernetes v1.36.3.
func TestComputeHash(t *testing.T) {
	tests := []struct {
		name           string
		template       *corev1.PodTemplateSpec
		collisionCount *int32
		want           string
	}{
		{"empty template, no collision count", &corev1.PodTemplateSpec{}, nil, "85748b7f68"},
		{"empty template, collision count 1", &corev1.PodTemplateSpec{}, ptr.To[int32](1), "b54bc767c"},
		{"empty template, collision count 2", &corev1.PodTemplateSpec{}, ptr.To[int32](2), "65cc779bc4"},
		{"empty template, collision count MaxInt32", &corev1.PodTemplateSpec{}, ptr.To[int32](math.MaxInt32), "579d8f8ff6"},
		{"cats v0.0.0", cats(t, "0"), nil, "5ddb68d974"},
		{"cats v0.1.0", cats(t, "1"), nil, "5b794b46d5"},
		{"cats v0.999.0", cats(t, "999"), nil, "5b55656d5f"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := planner.ComputeHash(tc.template, tc.collisionCount); got != tc.want {
				t.Errorf("ComputeHash = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReplicaSetName(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name, deployment, hash, want string
	}{
		{"short name", "web", "5d8f7b9c4", "web-5d8f7b9c4"},
		// 253 - len("-") - 9 = 243 characters of the Deployment name fit.
		{"name of 243 with a 9-character hash just fits", a(243), "5d8f7b9c4", a(243) + "-5d8f7b9c4"},
		{"name of 244 with a 9-character hash is cut to 243", a(244), "5d8f7b9c4", a(243) + "-5d8f7b9c4"},
		// 253 - 1 - 10 = 242.
		{"name of 253 with a 10-character hash is cut to 242", a(253), "85748b7f68", a(242) + "-85748b7f68"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := planner.ReplicaSetName(tc.deployment, tc.hash)
			if got != tc.want {
				t.Errorf("ReplicaSetName = %q (%d characters), want %q (%d)", got, len(got), tc.want, len(tc.want))
			}
			if len(got) > 253 {
				t.Errorf("name has %d characters, more than 253", len(got))
			}
		})
	}
}

func TestSimulateNamesTheNewReplicaSetOfALongDeploymentName(t *testing.T) {
	name := strings.Repeat("a", 250)
	d := testutil.Deployment(name).Replicas(2).Image("nginx:1.19").Build()
	old := testutil.ReplicaSetFor(d).Image("nginx:1.18").Revision(1).Build()
	plan := simulate(t, planner.Input{Deployment: d, ReplicaSets: rsList(old), Readiness: planner.ReadinessNever})
	hash := planner.ComputeHash(&d.Spec.Template, nil)
	want := name[:253-1-len(hash)] + "-" + hash
	if got := plan.NewReplicaSet.Name; got != want {
		t.Errorf("NewReplicaSet.Name = %q, want %q", got, want)
	}
	if got := plan.ReplicaSets[plan.Steps[0].ReplicaSet].Name; got != want || !plan.Steps[0].Create {
		t.Errorf("first step writes %q (create %v), want the creation of %q", got, plan.Steps[0].Create, want)
	}
}

// TestComputeHashCollisionCount: a nil collision count, 0 and 1 give three different
// hashes (upstream TestComputeHash, controller_utils_test.go, v1.36.3, asserts it for 1 and
// 2, and for nil and MaxInt32).
func TestComputeHashCollisionCount(t *testing.T) {
	d := testutil.Deployment("web").Replicas(10).Build()
	none := planner.ComputeHash(&d.Spec.Template, nil)
	zero := planner.ComputeHash(&d.Spec.Template, ptr.To[int32](0))
	one := planner.ComputeHash(&d.Spec.Template, ptr.To[int32](1))
	if none == zero || zero == one || none == one {
		t.Errorf("hashes with collisionCount nil/0/1 = %s/%s/%s, want three different values", none, zero, one)
	}
}

func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		name                           string
		maxSurge, maxUnavailable       string
		desired                        int32
		wantSurge, wantUnavailable     int32
		wantErrContains                string
		maxSurgeNil, maxUnavailableNil bool
	}{
		{name: "25%/25% of 10: surge rounds up, unavailable down", maxSurge: "25%", maxUnavailable: "25%", desired: 10, wantSurge: 3, wantUnavailable: 2},
		{name: "absolute values", maxSurge: "2", maxUnavailable: "1", desired: 10, wantSurge: 2, wantUnavailable: 1},
		{name: "both 0 makes unavailable 1", maxSurge: "0", maxUnavailable: "0", desired: 10, wantSurge: 0, wantUnavailable: 1},
		{name: "both percentages round to 0: unavailable 1", maxSurge: "0%", maxUnavailable: "25%", desired: 2, wantSurge: 0, wantUnavailable: 1},
		{name: "25%/25% of 1", maxSurge: "25%", maxUnavailable: "25%", desired: 1, wantSurge: 1, wantUnavailable: 0},
		{name: "nil values count 0, then unavailable 1", maxSurgeNil: true, maxUnavailableNil: true, desired: 5, wantSurge: 0, wantUnavailable: 1},
		{name: "100%/0 of 7", maxSurge: "100%", maxUnavailable: "0", desired: 7, wantSurge: 7, wantUnavailable: 0},
		{name: "33% of 10: surge ceil(3.3) = 4, unavailable floor(3.3) = 3", maxSurge: "33%", maxUnavailable: "33%", desired: 10, wantSurge: 4, wantUnavailable: 3},
		{name: "bad maxSurge", maxSurge: "abc", maxUnavailable: "25%", desired: 10, wantErrContains: "spec.strategy.rollingUpdate.maxSurge"},
		{name: "bad maxUnavailable", maxSurge: "25%", maxUnavailable: "1.5%", desired: 10, wantErrContains: "spec.strategy.rollingUpdate.maxUnavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, mu := intOrPercent(tc.maxSurge), intOrPercent(tc.maxUnavailable)
			if tc.maxSurgeNil {
				ms = nil
			}
			if tc.maxUnavailableNil {
				mu = nil
			}
			surge, unavailable, err := planner.ResolveFenceposts(ms, mu, tc.desired)
			if tc.wantErrContains != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrContains) {
					t.Fatalf("err = %v, want one naming %s", err, tc.wantErrContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if surge != tc.wantSurge || unavailable != tc.wantUnavailable {
				t.Errorf("ResolveFenceposts = %d, %d, want %d, %d", surge, unavailable, tc.wantSurge, tc.wantUnavailable)
			}
		})
	}
}

func intOrPercent(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

// TestSimulateNewReplicaSetIdentity checks the name, hash and revision the new ReplicaSet
// gets: getNewReplicaSet gives it max(old revisions)+1 (SetNewReplicaSetAnnotations), and a
// reused ReplicaSet keeps its earlier revision in revision-history.
func TestSimulateNewReplicaSetIdentity(t *testing.T) {
	tests := []struct {
		name string
		// build returns the Deployment, its ReplicaSets and the NewReplicaSet expected.
		build func() (*appsv1.Deployment, []*appsv1.ReplicaSet, planner.NewReplicaSet)
	}{
		{
			name: "a created ReplicaSet gets max(old revisions)+1 and the hash of the template",
			build: func() (*appsv1.Deployment, []*appsv1.ReplicaSet, planner.NewReplicaSet) {
				d := web(3).Build()
				a := oldRS(d, "nginx:1.17", 4, 0).Replicas(0).Build()
				b := oldRS(d, "nginx:1.18", 2, 1).Build()
				hash := planner.ComputeHash(&d.Spec.Template, nil)
				// max(4, 2) + 1 = 5.
				return d, rsList(a, b), planner.NewReplicaSet{Name: "web-" + hash, PodTemplateHash: hash, Revision: 5, Created: true}
			},
		},
		{
			name: "a rollout in flight keeps the new ReplicaSet's revision",
			build: func() (*appsv1.Deployment, []*appsv1.ReplicaSet, planner.NewReplicaSet) {
				d := web(3).Build()
				old := oldRS(d, "nginx:1.18", 1, 0).Replicas(2).Build()
				cur := newRS(d, 2, 1).Replicas(2).Build()
				// max old revision 1, 1+1 = 2 is not above 2: unchanged, not a rollback.
				return d, rsList(old, cur), planner.NewReplicaSet{Name: cur.Name, PodTemplateHash: cur.Labels[appsv1.DefaultDeploymentUniqueLabelKey],
					Revision: 2, PreviousRevision: 2, Exists: true}
			},
		},
		{
			name: "a rollback reuses the old ReplicaSet: revision renumbered, the old one in revision-history",
			build: func() (*appsv1.Deployment, []*appsv1.ReplicaSet, planner.NewReplicaSet) {
				d := testutil.Deployment("web").Replicas(3).Build() // back to nginx:1.18
				rev1 := newRS(d, 1, 0).Replicas(0).Build()
				rev2 := oldRS(d, "nginx:1.19", 2, 1).Build()
				// max old revision 2 -> 3; 1 < 3 so history "1".
				return d, rsList(rev1, rev2), planner.NewReplicaSet{Name: rev1.Name, PodTemplateHash: rev1.Labels[appsv1.DefaultDeploymentUniqueLabelKey],
					Revision: 3, PreviousRevision: 1, RevisionHistory: "1", Exists: true, Reused: true}
			},
		},
		{
			name: "a second rollback appends to revision-history",
			build: func() (*appsv1.Deployment, []*appsv1.ReplicaSet, planner.NewReplicaSet) {
				d := testutil.Deployment("web").Replicas(3).Build()
				reused := newRS(d, 3, 0).RevisionHistory("1").Replicas(0).Build()
				cur := oldRS(d, "nginx:1.19", 4, 1).Build()
				// max old revision 4 -> 5; history "1" + "," + "3".
				return d, rsList(reused, cur), planner.NewReplicaSet{Name: reused.Name, PodTemplateHash: reused.Labels[appsv1.DefaultDeploymentUniqueLabelKey],
					Revision: 5, PreviousRevision: 3, RevisionHistory: "1,3", Exists: true, Reused: true}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, rss, want := tc.build()
			plan := simulate(t, planner.Input{Deployment: d, ReplicaSets: rss, Readiness: planner.ReadinessNever})
			if diff := cmp.Diff(want, plan.NewReplicaSet); diff != "" {
				t.Errorf("NewReplicaSet (-want +got):\n%s", diff)
			}
			for _, rs := range plan.ReplicaSets {
				if rs.New && (rs.Name != want.Name || rs.Revision != want.Revision) {
					t.Errorf("ReplicaSets lists the new one as %s revision %d, want %s revision %d", rs.Name, rs.Revision, want.Name, want.Revision)
				}
			}
		})
	}
}

func TestSimulateRollback(t *testing.T) {
	// Back to nginx:1.18 (revision 1, 0 pods) from nginx:1.19 (revision 2, 3 pods); 3
	// replicas, 25%/25% -> surge 1, unavailable 0, at most 4 pods, minAvailable 3.
	d := testutil.Deployment("web").Replicas(3).Revision(2).Build()
	rev1 := newRS(d, 1, 0).Replicas(0).Build()
	rev2 := oldRS(d, "nginx:1.19", 2, 1).Build()
	checkRollout(t, rolloutCase{
		d: d, rss: rsList(rev2, rev1), readiness: planner.ReadinessBatched,
		wantRSs: []string{"", rev2.Name},
		wantSteps: []planner.Step{
			// sync 1: getNewReplicaSet updates rev1's annotations (revision 3, history "1"):
			// a write, not a step. reconcileNewReplicaSet: 0 + min(4-3, 3-0) = 1 (a scale-up,
			// not a create). sync 2: 4-3-1 = 0, pods ready.
			step(1, 0, 0, 1, up, noWait, r(1, 3), 4, 3),
			// sync 3: maxScaledDown 4-3-0 = 1, available 4 > 3: rev2 3 -> 2.
			step(3, 1, 3, 2, down, podsReady, r(1, 2), 3, 3),
			step(4, 0, 1, 2, up, noWait, r(2, 2), 4, 3),
			step(6, 1, 2, 1, down, podsReady, r(2, 1), 3, 3),
			step(7, 0, 2, 3, up, noWait, r(3, 1), 4, 3),
			step(9, 1, 1, 0, down, podsReady, r(3, 0), 3, 3),
		},
		wantOutcome: planner.OutcomeComplete, wantSyncs: 10,
		wantFinal: r(3, 0), wantFinalAvailable: r(3, 0),
	})
}

func TestSimulateHashCollision(t *testing.T) {
	// 2 replicas, 25%/25% -> surge 1, unavailable 0.
	d := web(2).Build()
	hash0 := planner.ComputeHash(&d.Spec.Template, nil)
	hash1 := planner.ComputeHash(&d.Spec.Template, ptr.To[int32](1))

	t.Run("a ReplicaSet with the computed name but another template bumps collisionCount", func(t *testing.T) {
		// The old RS (another template) carries the name web-<hash of the new template>.
		old := oldRS(d, "nginx:1.18", 1, 0).Name("web-" + hash0).Build()
		checkRollout(t, rolloutCase{
			d: d, rss: rsList(old), readiness: planner.ReadinessBatched,
			wantRSs: []string{old.Name, ""},
			wantSteps: []planner.Step{
				// sync 1: the create fails with AlreadyExists, the template differs: the
				// controller sets status.collisionCount 0 -> 1 and requeues (no step).
				// sync 2: create web-<hash with 1>, min(3-2, 2) = 1.
				step(2, 1, 0, 1, create, noWait, r(2, 1), 3, 2),
				step(4, 0, 2, 1, down, podsReady, r(1, 1), 2, 2),
				step(5, 1, 1, 2, up, noWait, r(1, 2), 3, 2),
				step(7, 0, 1, 0, down, podsReady, r(0, 2), 2, 2),
			},
			wantOutcome: planner.OutcomeComplete, wantSyncs: 8,
			wantFinal: r(0, 2), wantFinalAvailable: r(0, 2),
		})
		plan := simulate(t, planner.Input{Deployment: d, ReplicaSets: rsList(old)})
		want := planner.NewReplicaSet{Name: "web-" + hash1, PodTemplateHash: hash1, Revision: 2, CollisionCount: ptr.To[int32](1), Created: true}
		if diff := cmp.Diff(want, plan.NewReplicaSet); diff != "" {
			t.Errorf("NewReplicaSet (-want +got):\n%s", diff)
		}
	})
}

func TestSimulateCleanup(t *testing.T) {
	// Old ReplicaSets whose revisions do not follow their creation order (b was rolled back
	// to once), all empty; the current one (revision 4) has the only pod.
	build := func(limit int32) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
		d := web(1).RevisionHistoryLimit(limit).Build()
		a := oldRS(d, "nginx:1.15", 1, 2).Replicas(0).Build()
		b := oldRS(d, "nginx:1.16", 3, 0).Replicas(0).Build()
		c := oldRS(d, "nginx:1.17", 2, 1).Replicas(0).Build()
		cur := oldRS(d, "nginx:1.18", 4, 3).Replicas(1).Build()
		return d, rsList(a, b, c, cur)
	}
	tests := []struct {
		name  string
		limit int32
		want  func(rss []*appsv1.ReplicaSet) []planner.CleanupEntry
	}{
		{
			// 4 old ReplicaSets - limit 1 = 3 to delete, lowest revisions first: a (1),
			// c (2), b (3); revision 4 stays.
			name: "limit 1 deletes the 3 lowest revisions, oldest revision first", limit: 1,
			want: func(rss []*appsv1.ReplicaSet) []planner.CleanupEntry {
				return []planner.CleanupEntry{{Name: rss[0].Name, Revision: 1}, {Name: rss[2].Name, Revision: 2}, {Name: rss[1].Name, Revision: 3}}
			},
		},
		{
			// 4 - 0 = 4: all of them, including revision 4, the one `rollout undo` would
			// return to.
			name: "limit 0 deletes every old one and flags the rollback target", limit: 0,
			want: func(rss []*appsv1.ReplicaSet) []planner.CleanupEntry {
				return []planner.CleanupEntry{{Name: rss[0].Name, Revision: 1}, {Name: rss[2].Name, Revision: 2},
					{Name: rss[1].Name, Revision: 3}, {Name: rss[3].Name, Revision: 4, RollbackTarget: true}}
			},
		},
		{
			name: "limit 4 keeps them all", limit: 4,
			want: func([]*appsv1.ReplicaSet) []planner.CleanupEntry { return nil },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, rss := build(tc.limit)
			plan := simulate(t, planner.Input{Deployment: d, ReplicaSets: rss})
			if plan.Outcome != planner.OutcomeComplete {
				t.Fatalf("Outcome = %s, want Complete", plan.Outcome)
			}
			if diff := cmp.Diff(tc.want(rss), plan.Cleanup); diff != "" {
				t.Errorf("Cleanup (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("paused: only zero-replica ReplicaSets are deleted", func(t *testing.T) {
		// Paused at 10 replicas with old r2 (8) and new r3 (5): 13 = 10+3 pods, a fixed point
		// of scale(). cleanupDeployment still runs (sync()): limit 0, old r1 and r2, diff 2,
		// by revision r1 then r2; r2 has pods and is skipped.
		d := web(10).Paused(true).RevisionHistoryLimit(0).Build()
		r1 := oldRS(d, "nginx:1.17", 1, 0).Replicas(0).Build()
		r2 := oldRS(d, "nginx:1.18", 2, 1).Replicas(8).Build()
		r3 := newRS(d, 3, 2).Replicas(5).Build()
		checkRollout(t, rolloutCase{
			d: d, rss: rsList(r1, r2, r3), readiness: planner.ReadinessBatched,
			wantRSs:     []string{r1.Name, r2.Name, ""},
			wantOutcome: planner.OutcomePaused,
			// sync 1 deletes r1 (a write, no step); sync 2 writes nothing.
			wantSyncs: 2,
			wantFinal: r(0, 8, 5), wantFinalAvailable: r(0, 8, 5),
		})
		plan := simulate(t, planner.Input{Deployment: d, ReplicaSets: rsList(r1, r2, r3)})
		if diff := cmp.Diff([]planner.CleanupEntry{{Name: r1.Name, Revision: 1}}, plan.Cleanup); diff != "" {
			t.Errorf("Cleanup (-want +got):\n%s", diff)
		}
	})
}

func TestSimulateInvalidInput(t *testing.T) {
	tests := []struct {
		name         string
		in           func() planner.Input
		wantContains string
	}{
		{"no deployment", func() planner.Input { return planner.Input{} }, "no deployment"},
		{"bad maxSurge string", func() planner.Input {
			return planner.Input{Deployment: web(3).MaxSurge("lots").Build()}
		}, "spec.strategy.rollingUpdate.maxSurge"},
		{"bad maxUnavailable string", func() planner.Input {
			return planner.Input{Deployment: web(3).MaxUnavailable("10 %").Build()}
		}, "spec.strategy.rollingUpdate.maxUnavailable"},
		{"negative replicas", func() planner.Input {
			return planner.Input{Deployment: web(-1).Build()}
		}, "spec.replicas"},
		{"unknown strategy type", func() planner.Input {
			return planner.Input{Deployment: web(3).Strategy(appsv1.DeploymentStrategy{Type: "BlueGreen"}).Build()}
		}, "spec.strategy.type"},
		{"empty selector", func() planner.Input {
			return planner.Input{Deployment: web(3).Selector(&metav1.LabelSelector{}).Build()}
		}, "spec.selector"},
		{"nil selector", func() planner.Input {
			return planner.Input{Deployment: web(3).Selector(nil).Build()}
		}, "spec.selector"},
		{"deprecated rollbackTo annotation", func() planner.Input {
			return planner.Input{Deployment: web(3).Annotation(appsv1.DeprecatedRollbackTo, "1").Build()}
		}, appsv1.DeprecatedRollbackTo},
		{"unknown readiness model", func() planner.Input {
			return planner.Input{Deployment: web(3).Build(), Readiness: "eventually"}
		}, "readiness"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := planner.Simulate(tc.in())
			if err == nil {
				t.Fatalf("Simulate returned a plan (%d steps), want an error naming %s", len(plan.Steps), tc.wantContains)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.wantContains) {
				t.Errorf("error %q does not name %s", msg, tc.wantContains)
			}
			if strings.Contains(msg, "\n") || strings.HasSuffix(msg, ".") {
				t.Errorf("error %q is not one line without a trailing period", msg)
			}
		})
	}
}

func TestParseReadiness(t *testing.T) {
	for _, s := range []string{"batched", "instant", "never"} {
		if got, err := planner.ParseReadiness(s); err != nil || string(got) != s {
			t.Errorf("ParseReadiness(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Batched", "always"} {
		if _, err := planner.ParseReadiness(s); err == nil || !strings.Contains(err.Error(), "batched, instant, never") {
			t.Errorf("ParseReadiness(%q) error = %v, want one listing the models", s, err)
		}
	}
}

package estimate_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
)

const ms = time.Millisecond

func TestParseReadyAfter(t *testing.T) {
	t.Run("one duration: every pod takes it", func(t *testing.T) {
		e, err := estimate.ParseReadyAfter("2s")
		if err != nil {
			t.Fatal(err)
		}
		want := estimate.Estimate{Source: estimate.SourceFlag, ReadyAfter: []time.Duration{2 * time.Second}, Min: 2 * time.Second, Median: 2 * time.Second, Max: 2 * time.Second}
		if diff := cmp.Diff(want, e); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("a range: 16 points 1s + 3s*j/15 in bit-reversed order", func(t *testing.T) {
		e, err := estimate.ParseReadyAfter("1s..4s")
		if err != nil {
			t.Fatal(err)
		}
		// j = 0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15: 1000 + 200*j ms.
		want := []time.Duration{1000 * ms, 2600 * ms, 1800 * ms, 3400 * ms, 1400 * ms, 3000 * ms, 2200 * ms, 3800 * ms,
			1200 * ms, 2800 * ms, 2000 * ms, 3600 * ms, 1600 * ms, 3200 * ms, 2400 * ms, 4000 * ms}
		if diff := cmp.Diff(want, e.ReadyAfter); diff != "" {
			t.Errorf("ReadyAfter (-want +got):\n%s", diff)
		}
		if e.Min != time.Second || e.Median != 2500*ms || e.Max != 4*time.Second {
			t.Errorf("min/median/max = %s/%s/%s, want 1s/2.5s/4s", e.Min, e.Median, e.Max)
		}
		// Any 4 consecutive pods cover the range evenly: the first four's mean is the middle.
		var sum time.Duration
		for _, d := range e.ReadyAfter[:4] {
			sum += d
		}
		if sum/4 != 2200*ms {
			t.Errorf("mean of the first four = %s, want 2.2s", sum/4)
		}
	})
	t.Run("MIN..MAX equal is one value", func(t *testing.T) {
		e, err := estimate.ParseReadyAfter("3s..3s")
		if err != nil || len(e.ReadyAfter) != 1 || e.ReadyAfter[0] != 3*time.Second {
			t.Errorf("got %v, %v; want [3s]", e.ReadyAfter, err)
		}
	})
	for _, bad := range []string{"", "abc", "-1s", "4s..1s", "1s..", "..2s", "1s..2s..3s", "5"} {
		t.Run("refused "+bad, func(t *testing.T) {
			_, err := estimate.ParseReadyAfter(bad)
			if err == nil || !strings.HasPrefix(err.Error(), "--pod-ready-after ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("err = %v, want a one-line error naming --pod-ready-after", err)
			}
		})
	}
}

var base = time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)

func second(i int) metav1.Time { return metav1.NewTime(base.Add(time.Duration(i) * time.Second)) }

// pod returns a pod controlled by rs, created at second created, Ready (True) at second
// ready, or not Ready when ready < 0.
func pod(rs *appsv1.ReplicaSet, created, ready int) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name:              rs.Name + "-x",
		CreationTimestamp: second(created),
		OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
	}}
	cond := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}
	if ready >= 0 {
		cond = corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: second(ready)}
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, cond}
	return p
}

func TestFromPods(t *testing.T) {
	d := testutil.Deployment("web").Build()
	cur := testutil.ReplicaSetFor(d).Image("nginx:2").Revision(3).Created(10).Build()
	prev := testutil.ReplicaSetFor(d).Image("nginx:1").Revision(2).Created(5).Build()
	other := testutil.ReplicaSetFor(d).Image("nginx:0").Revision(1).Created(0).Build()
	if got := names(estimate.SampledReplicaSets([]*appsv1.ReplicaSet{other, cur, prev})); !cmp.Equal(got, []string{cur.Name, prev.Name}) {
		t.Fatalf("SampledReplicaSets = %v, want the two newest revisions %s, %s", got, cur.Name, prev.Name)
	}
	pods := []*corev1.Pod{
		pod(cur, 100, 101), pod(cur, 100, 102), pod(prev, 50, 53), pod(prev, 50, 54), pod(cur, 200, 210),
		pod(cur, 300, -1),   // not Ready: skipped
		pod(other, 0, 100),  // another ReplicaSet: skipped
		pod(prev, 400, 399), // Ready before created (a skewed clock): counts 0
	}
	e, err := estimate.FromPods(pods, []*appsv1.ReplicaSet{cur, prev})
	if err != nil {
		t.Fatal(err)
	}
	// Samples, sorted: 0, 1, 2, 3, 4, 10 s. Median: between 2 and 3 = 2.5 s.
	if e.Samples != 6 || e.Min != 0 || e.Median != 2500*ms || e.Max != 10*time.Second || e.Source != estimate.SourcePods {
		t.Errorf("got %d samples, min/median/max %s/%s/%s from %s; want 6, 0s/2.5s/10s from pods", e.Samples, e.Min, e.Median, e.Max, e.Source)
	}
	// ReadyAfter: quantiles 0.1 + 0.8*j/15 (positions over 5 gaps): j=0 -> q 0.1, pos 0.5,
	// 0.5 s; j=15 -> q 0.9, pos 4.5, 4+0.5*6 = 7 s; j=8 -> q 0.5267, pos 2.633, 2.633 s.
	if len(e.ReadyAfter) != 16 || e.ReadyAfter[0] != 500*ms || e.ReadyAfter[15] != 7*time.Second || e.ReadyAfter[1] != 2633*ms {
		t.Errorf("ReadyAfter = %v, want 16 values starting 500ms, 2.633s and ending 7s", e.ReadyAfter)
	}
	if diff := cmp.Diff([]string{cur.Name, prev.Name}, e.ReplicaSets); diff != "" {
		t.Errorf("ReplicaSets (-want +got):\n%s", diff)
	}
	tm := e.Timing()
	tm.ReadyAfter[0] = time.Hour
	if e.ReadyAfter[0] == time.Hour {
		t.Error("Timing shares its slice with the estimate")
	}

	_, err = estimate.FromPods([]*corev1.Pod{pod(cur, 300, -1)}, []*appsv1.ReplicaSet{cur})
	if !errors.Is(err, estimate.ErrNoSamples) || !strings.Contains(err.Error(), cur.Name) {
		t.Errorf("no Ready pod: err = %v, want ErrNoSamples naming %s", err, cur.Name)
	}
}

func TestSampledReplicaSetsSkipsInvalidRevisions(t *testing.T) {
	d := testutil.Deployment("web").Build()
	a := testutil.ReplicaSetFor(d).Image("nginx:1").Revision(1).Build()
	b := testutil.ReplicaSetFor(d).Image("nginx:2").Annotation("deployment.kubernetes.io/revision", "x").Build()
	if got := names(estimate.SampledReplicaSets([]*appsv1.ReplicaSet{b, a})); !cmp.Equal(got, []string{a.Name}) {
		t.Errorf("got %v, want [%s]", got, a.Name)
	}
}

func names(rss []*appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	return out
}

func TestPending(t *testing.T) {
	d := testutil.Deployment("web").Build()
	cur := testutil.ReplicaSetFor(d).Image("nginx:2").Revision(3).Build()
	other := testutil.ReplicaSetFor(d).Image("nginx:0").Revision(1).Build()
	now := base.Add(100 * time.Second)
	pods := []*corev1.Pod{
		pod(cur, 90, 95),   // Ready at 95, minReadySeconds 10: available at 105, Ready -5 s ago
		pod(cur, 50, 60),   // available since 70: left out
		pod(cur, 98, -1),   // not Ready: created 98 + median 4 s = 102: +2 s
		pod(cur, 10, -1),   // not Ready, overdue (10+4 < 100): at once
		pod(other, 99, -1), // another ReplicaSet: left out
	}
	got := estimate.Pending(pods, []*appsv1.ReplicaSet{cur}, estimate.Estimate{Median: 4 * time.Second}, 10, now)
	want := map[string][]time.Duration{cur.Name: {-5 * time.Second, 2 * time.Second, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Pending (-want +got):\n%s", diff)
	}
}

package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// readyPod is a pod of rs created at t0 and Ready readyAfter later.
func readyPod(rs *appsv1.ReplicaSet, suffix string, t0 time.Time, readyAfter time.Duration) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: rs.Name + "-" + suffix, Namespace: rs.Namespace, Labels: rs.Spec.Template.Labels,
			CreationTimestamp: metav1.NewTime(t0),
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
		},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(t0.Add(readyAfter))}}},
	}
}

// timingRow is the timing object of a list item in a few words.
func timingRow(p v1alpha1.RolloutPlan) string {
	if p.Timing == nil {
		return p.Deployment.Name + " no timing"
	}
	t := p.Timing
	return p.Deployment.Name + " " + t.Source + " " + t.ReadyAfterMin.Duration.String() + " " + t.ReadyAfterMedian.Duration.String() + " " +
		t.ReadyAfterMax.Duration.String() + " samples " + strings.Repeat("|", t.Samples) + " " + strings.Join(t.ReplicaSets, ",")
}

// TestPreviewFleetTimedMeasured: -l with --readiness timed measures each Deployment's own pods
// (one LIST of pods each) and every item of the RolloutPlanList carries its timing, as the
// preview of one Deployment does; the human output gives each plan its timed header.
func TestPreviewFleetTimedMeasured(t *testing.T) {
	objs := fleetObjects()
	// fleetObjects: web (0), webOld (1), webNew (2), api (3), api's ReplicaSet (4).
	webOld, webNew, apiRS := objs[1].(*appsv1.ReplicaSet), objs[2].(*appsv1.ReplicaSet), objs[4].(*appsv1.ReplicaSet)
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	objs = append(objs,
		readyPod(webNew, "a", t0, 3*time.Second), readyPod(webNew, "b", t0, 5*time.Second), readyPod(webOld, "c", t0, 4*time.Second),
		readyPod(apiRS, "a", t0, 2*time.Second))
	for _, output := range []string{"json", ""} {
		c := fake.NewClientset(objs...)
		streams, out, errOut := testStreams()
		o := NewPreviewOptions(streams)
		o.Output.Output, o.Readiness = output, "timed"
		o.Fleet.Selection = &target.Selection{Many: true, ChunkSize: 500, Selector: "tier=front", Namespace: "shop"}
		o.Fleet.Client = clientOf(c)
		o.Checks = "none" // the feasibility reads: TestPreviewFeasibilityReads
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := o.Run(context.Background()); err != nil {
			t.Fatalf("-o %q: %v: %s", output, err, errOut)
		}
		if output == "" {
			for _, want := range []string{
				"pods Ready 4s after creation (median; 3s..5s), measured on 3 pods of " + webNew.Name + ", " + webOld.Name,
				"pods Ready 2s after creation (median; 2s..2s), measured on 1 pod of " + apiRS.Name,
			} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("human output lacks %q:\n%s", want, out.String())
				}
			}
			if n := strings.Count(out.String(), "ETA:"); n != 2 {
				t.Errorf("%d ETA lines, want 2 (one per plan):\n%s", n, out.String())
			}
			continue
		}
		var l v1alpha1.RolloutPlanList
		if err := json.Unmarshal(out.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range l.Items {
			got = append(got, timingRow(p))
		}
		want := []string{
			"api pods 2s 2s 2s samples | " + apiRS.Name,
			"web pods 3s 4s 5s samples ||| " + webNew.Name + "," + webOld.Name,
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("timing of each item (-want +got):\n%s", d)
		}
		var verbs []string
		for _, a := range c.Actions() {
			verbs = append(verbs, a.GetVerb()+" "+a.GetResource().Resource)
		}
		if d := cmp.Diff([]string{"list deployments", "list replicasets", "list pods", "list pods"}, verbs); d != "" {
			t.Errorf("requests (-want +got):\n%s", d)
		}
	}
}

// TestPreviewFleetTimedFlag: with --pod-ready-after every item carries the flag's timing, the
// same object `preview NAME -o json` prints for each.
func TestPreviewFleetTimedFlag(t *testing.T) {
	sf := fleetStateFile(t)
	args := []string{"-n", "shop", "--state-file", sf, "--readiness", "timed", "--pod-ready-after", "1s..4s"}
	out, errOut, code := runRoot(t, "", append([]string{"preview", "web", "api", "-o", "json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var l v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range l.Items {
		got = append(got, timingRow(p))
	}
	if d := cmp.Diff([]string{"web flag 1s 2.5s 4s samples  ", "api flag 1s 2.5s 4s samples  "}, got); d != "" {
		t.Errorf("timing of each item (-want +got):\n%s", d)
	}
	for i, name := range []string{"web", "api"} {
		one, _, _ := runRoot(t, "", append([]string{"preview", name, "-o", "json"}, args...)...)
		var single v1alpha1.RolloutPlan
		if err := json.Unmarshal([]byte(one), &single); err != nil {
			t.Fatal(err)
		}
		if i < len(l.Items) {
			if d := cmp.Diff(single.Timing, l.Items[i].Timing); d != "" {
				t.Errorf("%s: list item's timing differs from the single plan's (-single +item):\n%s", name, d)
			}
		}
	}
	human, _, _ := runRoot(t, "", append([]string{"preview", "web", "api"}, args...)...)
	if n := strings.Count(human, "pods Ready 1s..4s after creation, spread over pods, per --pod-ready-after"); n != 2 {
		t.Errorf("%d timed headers, want 2:\n%s", n, human)
	}
}

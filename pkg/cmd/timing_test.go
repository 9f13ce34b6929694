package cmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
)

func TestPreviewTimedGolden(t *testing.T) {
	for name, args := range map[string][]string{
		"image-timed-2s":     {"--pod-ready-after", "2s"},
		"image-timed-1s..4s": {"--pod-ready-after", "1s..4s"},
		"image-timed-slow":   {"--pod-ready-after", "11m"}, // past progressDeadlineSeconds (600)
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"preview", "deploy/web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "--readiness", "timed"}, args...)
			out, errOut, code := runRoot(t, "", args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			testutil.Golden(t, "preview-"+name, []byte(out))
		})
	}
}

func TestPreviewTimedJSON(t *testing.T) {
	p, got, out := timedPlanJSON(t, "preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "--readiness", "timed", "--pod-ready-after", "2s")
	// examples/state.yaml: 10 replicas 25%/25%, every pod available: writes at 0, 2 and 4 s.
	if got != "0s 0s 0s 2s 2s 4s" {
		t.Errorf("steps at %s, want 0s 0s 0s 2s 2s 4s", got)
	}
	if p.Duration == nil || p.Duration.Duration != 4*time.Second || p.ProgressDeadlineAt != nil || p.Readiness != "timed" {
		t.Errorf("duration %v, deadline %v, readiness %s; want 4s, none, timed", p.Duration, p.ProgressDeadlineAt, p.Readiness)
	}
	if p.Timing == nil || p.Timing.Source != "flag" || p.Timing.ReadyAfterMedian.Duration != 2*time.Second {
		t.Errorf("timing %+v, want source flag, median 2s", p.Timing)
	}
	for _, field := range []string{`"at":"2s"`, `"duration":"4s"`, `"readyAfterMedian":"2s"`} {
		if !strings.Contains(strings.ReplaceAll(out, " ", ""), field) {
			t.Errorf("-o json lacks %s:\n%s", field, out)
		}
	}
	// The other models carry none of the time fields.
	out, _, _ = runRoot(t, "", "preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "-o", "json")
	for _, field := range []string{`"at"`, `"duration"`, `"timing"`, `"progressDeadlineAt"`} {
		if strings.Contains(out, field) {
			t.Errorf("batched -o json carries %s", field)
		}
	}
}

func TestPreviewTimedBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--readiness", "timed"}, "--readiness timed with --state-file needs --pod-ready-after"},
		{[]string{"--pod-ready-after", "2s"}, "--pod-ready-after applies to --readiness timed only"},
		{[]string{"--readiness", "timed", "--pod-ready-after", "soon"}, `--pod-ready-after "soon": want a non-negative duration`},
		{[]string{"--readiness", "timed", "--pod-ready-after", "4s..1s"}, "MIN 4s is above MAX 1s"},
		{[]string{"--sync-latency", "1s"}, "--sync-latency applies to --readiness timed only"},
		{[]string{"--readiness", "timed", "--pod-ready-after", "2s", "--sync-latency", "-1s"}, `--sync-latency "-1s": want a non-negative duration`},
	}
	for _, tc := range cases {
		args := append([]string{"preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27"}, tc.args...)
		out, errOut, code := runRoot(t, "", args...)
		if code != ExitError || out != "" || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", tc.args, code, out, errOut, ExitError, tc.want)
		}
	}
	_, errOut, code := runRoot(t, "", "undo", "web", "--readiness", "timed")
	if code != ExitError || !strings.Contains(errOut, "only 'kubectl rollplan preview' has the timed model") {
		t.Errorf("undo --readiness timed: exit %d, stderr %q", code, errOut)
	}
}

// TestPreviewTimedLive measures the live Deployment's pods: one more LIST (of pods), the
// sample size and the source in the header and in -o json.
func TestPreviewTimedLive(t *testing.T) {
	st, err := cluster.LoadFile(stateFile, "shop", "web")
	if err != nil {
		t.Fatal(err)
	}
	objects := []runtime.Object{st.Deployment}
	for _, rs := range st.ReplicaSets {
		objects = append(objects, rs)
	}
	// Three pods of the current ReplicaSet, Ready 3, 4 and 8 s after creation; one of an
	// older revision (not sampled).
	cur, oldest := st.ReplicaSets[0], st.ReplicaSets[0]
	for _, rs := range st.ReplicaSets {
		r, _ := deployutil.Revision(rs)
		if rc, _ := deployutil.Revision(cur); r > rc {
			cur = rs
		}
		if ro, _ := deployutil.Revision(oldest); r < ro {
			oldest = rs
		}
	}
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i, readyAfter := range []int{3, 4, 8, 1} {
		owner := cur
		if i == 3 {
			owner = oldest
		}
		objects = append(objects, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: owner.Name + "-" + string(rune('a'+i)), Namespace: "shop", Labels: owner.Spec.Template.Labels,
				CreationTimestamp: metav1.NewTime(t0),
				OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(owner, owner.GroupVersionKind())},
			},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
				LastTransitionTime: metav1.NewTime(t0.Add(time.Duration(readyAfter) * time.Second))}}},
		})
	}
	cs := fake.NewClientset(objects...)
	var out, errOut bytes.Buffer
	o := NewPreviewOptions(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	o.Namespace, o.Name, o.Readiness = "shop", "web", "timed"
	o.Client = func() (kubernetes.Interface, error) { return cs, nil }
	o.Change.Images = []string{"nginx=nginx:1.27"}
	o.Checks = "none" // the feasibility reads: TestPreviewFeasibilityReads
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	var verbs []string
	for _, a := range cs.Actions() {
		verbs = append(verbs, a.GetVerb()+" "+a.GetResource().Resource)
	}
	if got, want := strings.Join(verbs, ","), "get deployments,list replicasets,update deployments,list pods"; got != want {
		t.Errorf("requests %s, want %s", got, want)
	}
	if !strings.Contains(out.String(), "pods Ready 4s after creation (median; 3s..8s), measured on 3 pods of "+cur.Name) {
		t.Errorf("header does not give the measured median, range and sample:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "ETA:") {
		t.Errorf("no ETA line:\n%s", out.String())
	}
	// The state's last rollout (web-777f9fc55f) took 1 s, less than the model gives it with
	// these pods: the fitted latency is 0, said with its figures; no request more.
	if !strings.Contains(out.String(), "Latency:        0s per write (the controllers' reaction: pod creation, status updates, the next sync), fitted to the last rollout (web-777f9fc55f): it took 1s (second precision)") {
		t.Errorf("header does not give the fitted latency:\n%s", out.String())
	}
}

// TestPreviewSyncLatencyFlag: --sync-latency 500ms on examples/state.yaml (10 replicas
// 25%/25%, 2 s readiness) delays every wave of pods by 0.5 s: writes at 0, 2.5 and 5 s,
// complete at 5 s; the header and -o json say where the figure comes from.
func TestPreviewSyncLatencyFlag(t *testing.T) {
	args := []string{"preview", "web", "--state-file", stateFile, "--image", "nginx=nginx:1.27", "--readiness", "timed", "--pod-ready-after", "2s", "--sync-latency", "500ms"}
	p, got, _ := timedPlanJSON(t, args...)
	if got != "0s 0s 0s 2.5s 2.5s 5s" || p.Duration == nil || p.Duration.Duration != 5*time.Second {
		t.Errorf("steps at %s, duration %v; want 0s 0s 0s 2.5s 2.5s 5s, 5s", got, p.Duration)
	}
	if p.Timing == nil || p.Timing.SyncLatency.Duration != 500*time.Millisecond || p.Timing.SyncLatencySource != "flag" {
		t.Errorf("timing %+v, want sync latency 500ms from the flag", p.Timing)
	}
	human, errOut, code := runRoot(t, "", args...)
	if code != ExitOK || !strings.Contains(human, "Latency:        500ms per write (the controllers' reaction: pod creation, status updates, the next sync), per --sync-latency") {
		t.Errorf("exit %d, human output lacks the Latency line:\n%s%s", code, human, errOut)
	}
}

// timedPlanJSON runs the root command with args and -o json, fails the test unless it
// exits 0 with a RolloutPlan, and returns the plan, its steps' times ("0s 2s ...") and the
// printed JSON.
func timedPlanJSON(t *testing.T, args ...string) (*v1alpha1.RolloutPlan, string, string) {
	t.Helper()
	out, errOut, code := runRoot(t, "", append(args, "-o", "json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p v1alpha1.RolloutPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, st := range p.Steps {
		at = append(at, st.At.Duration.String())
	}
	return &p, strings.Join(at, " "), out
}

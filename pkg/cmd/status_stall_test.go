package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

// stalledPods adds to client the 5 pods of rs: 3 in ImagePullBackOff, Ready=False since
// 40s before statusNow, and 2 the scheduler cannot place since 10s before it.
func stalledPods(t *testing.T, client *fake.Clientset, rs *appsv1.ReplicaSet) {
	t.Helper()
	for i := range 5 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", rs.Name, i), Namespace: rs.Namespace,
			Labels:            rs.Spec.Selector.MatchLabels,
			CreationTimestamp: metav1.NewTime(statusNow.Add(-50 * time.Second)),
			OwnerReferences:   []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending}}
		if i < 3 {
			p.Spec.NodeName = "n1"
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(statusNow.Add(-40 * time.Second))}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", State: corev1.ContainerState{
				Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "nginx:1.19"`}}}}
		} else {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
				Message: "0/3 nodes are available: 3 Insufficient cpu.", LastTransitionTime: metav1.NewTime(statusNow.Add(-10 * time.Second))}}
		}
		if _, err := client.CoreV1().Pods(rs.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStatusNotProgressing: the block, the line and -o json name why the new ReplicaSet
// does not progress, with the pod count per reason; --fail-fast exits 6 once a reason has
// lasted --fail-fast-after (the image pull, 40s, against 30s), not before (60s).
func TestStatusNotProgressing(t *testing.T) {
	d, rss := statusMidRollout("ReplicaSetUpdated")
	newRS := rss[1]
	run := func(args func(o *StatusOptions)) (*strings.Builder, int, string) {
		client := fakeClient(d, rss)
		stalledPods(t, client, newRS)
		o, out := newStatusTest(client, "deploy/web")
		args(o)
		code, msg := exit(o.Run)
		return out, code, msg
	}
	out, code, _ := run(func(*StatusOptions) {})
	for _, want := range []string{
		`Not progressing:  3 pods ImagePullBackOff for 40s (` + newRS.Name + `-0): Back-off pulling image "nginx:1.19"`,
		`                  2 pods Unschedulable for 10s (` + newRS.Name + `-3): 0/3 nodes are available: 3 Insufficient cpu.`,
	} {
		if code != ExitOK || !strings.Contains(out.String(), want+"\n") {
			t.Errorf("exit %d, block without %q:\n%s", code, want, out)
		}
	}

	out, _, _ = run(func(o *StatusOptions) { o.Selection.Args = nil; o.Selection.All = true })
	if want := "NOT PROGRESSING: 3 pods ImagePullBackOff, 2 pods Unschedulable"; !strings.Contains(out.String(), want) {
		t.Errorf("line without %q:\n%s", want, out)
	}

	out, _, _ = run(func(o *StatusOptions) { o.Output.Output = "json" })
	var got v1alpha1.RolloutStatus
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Stalled) != 2 || got.Stalled[0].Reason != "ImagePullBackOff" || got.Stalled[0].Pods != 3 ||
		got.Stalled[1].Reason != "Unschedulable" || got.Stalled[1].Pods != 2 || got.FailedFast ||
		got.ETA != nil || got.ETABasis != "none: the rollout does not progress (3 pods ImagePullBackOff, 2 pods Unschedulable)" {
		t.Errorf("stalled = %+v, failedFast %v, eta %v %q", got.Stalled, got.FailedFast, got.ETA, got.ETABasis)
	}

	_, code, msg := run(func(o *StatusOptions) { o.FailFast = true })
	want := `error: deployment "web" does not progress (new ReplicaSet ` + newRS.Name + `): 3 pods ImagePullBackOff: Back-off pulling image "nginx:1.19" (for 40s)`
	if code != ExitFailFast || strings.TrimSpace(msg) != want {
		t.Errorf("--fail-fast: exit %d %q, want %d %q", code, msg, ExitFailFast, want)
	}
	_, code, msg = run(func(o *StatusOptions) { o.FailFast, o.FailFastAfter = true, time.Minute })
	if code != ExitOK {
		t.Errorf("--fail-fast-after 1m, stuck for 40s: exit %d %q, want 0", code, msg)
	}
	_, code, msg = run(func(o *StatusOptions) { o.FailFast, o.FailFastAfter = true, 5*time.Second })
	if code != ExitFailFast || !strings.Contains(msg, "ImagePullBackOff") || !strings.Contains(msg, "Unschedulable") {
		t.Errorf("--fail-fast-after 5s: exit %d %q, want both reasons", code, msg)
	}
}

// TestStatusFailFastWatch: with --watch, --fail-fast ends the watch with exit 6 once the
// pods are stuck long enough, on the clock, without any change in the cluster.
func TestStatusFailFastWatch(t *testing.T) {
	d, rss := statusMidRollout("ReplicaSetUpdated")
	client := fakeClient(d, rss)
	stalledPods(t, client, rss[1])
	o, _ := newStatusTest(client, "deploy/web")
	began := time.Now()
	o.Now = func() time.Time { return statusNow.Add(time.Since(began)) }
	o.Watch, o.FailFast, o.FailFastAfter, o.Timeout = true, true, 41*time.Second, 10*time.Second
	code, msg := exit(o.Run)
	if took := time.Since(began); code != ExitFailFast || took > 5*time.Second {
		t.Errorf("exit %d %q after %s, want %d within a few seconds", code, msg, took, ExitFailFast)
	}
}

func TestStatusFailFastAfterInvalid(t *testing.T) {
	d, rss := statusMidRollout("ReplicaSetUpdated")
	o, _ := newStatusTest(fakeClient(d, rss), "deploy/web")
	o.FailFastAfter = 0
	if err := o.Validate(); err == nil || err.Error() != "--fail-fast-after 0s: must be more than 0" {
		t.Errorf("Validate = %v", err)
	}
}

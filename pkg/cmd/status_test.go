package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

var statusNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// statusMidRollout is web (10 replicas, 25%/25%, progressDeadlineSeconds 60) rolling out nginx:1.19
// at new 5 (none available) and old 8, started 90s before statusNow, last progress 40s before
// it; reason names the Progressing condition's reason.
func statusMidRollout(reason string) (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	old := testutil.Deployment("web").Replicas(10).Build()
	d := testutil.Deployment("web").Replicas(10).Image("nginx:1.19").Revision(2).ProgressDeadlineSeconds(60).Status(13, 5, 8, 8).Build()
	oldRS := testutil.ReplicaSetFor(old).Name("web-old").Revision(1).Replicas(8).Available(8).Build()
	newRS := testutil.ReplicaSetFor(d).Revision(2).Replicas(5).Status(5, 0, 0).Build()
	newRS.CreationTimestamp = metav1.NewTime(statusNow.Add(-90 * time.Second))
	status := corev1.ConditionTrue
	if reason == "ProgressDeadlineExceeded" {
		status = corev1.ConditionFalse
	}
	d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: status, Reason: reason,
		Message: "ReplicaSet is progressing.", LastUpdateTime: metav1.NewTime(statusNow.Add(-40 * time.Second))}}
	return d, []*appsv1.ReplicaSet{oldRS, newRS}
}

func newStatusTest(client *fake.Clientset, args ...string) (*StatusOptions, *strings.Builder) {
	streams, _, _ := testStreams()
	o := NewStatusOptions(streams)
	o.Selection = &target.Selection{Args: args, Namespace: testutil.DefaultNamespace, Many: true}
	o.Client = clientOf(client)
	o.Now = func() time.Time { return statusNow }
	o.Terminal = func() bool { return false }
	out := &strings.Builder{}
	o.Out = out
	return o, out
}

// TestStatusOutput: the human block (golden) and -o json (the RolloutStatus object).
func TestStatusOutput(t *testing.T) {
	d, rss := statusMidRollout("ReplicaSetUpdated")
	o, out := newStatusTest(fakeClient(d, rss), "deploy/web")
	mustRun(t, o.Run)
	testutil.Golden(t, "status-mid-rollout", []byte(out.String()))

	o, out = newStatusTest(fakeClient(d, rss), "web")
	o.Output.Output = "json"
	mustRun(t, o.Run)
	var got v1alpha1.RolloutStatus
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	if got.Kind != "RolloutStatus" || got.Phase != "Progressing" || got.Step != 3 || got.Steps != 6 ||
		got.Next == nil || got.Next.ReplicaSet != "web-old" || got.Next.To != 3 ||
		got.Elapsed == nil || got.Elapsed.Duration != 90*time.Second ||
		got.DeadlineAt == nil || !got.DeadlineAt.Time.Equal(statusNow.Add(20*time.Second)) || !strings.HasPrefix(got.Warning, "no progress for 40s") {
		t.Errorf("unexpected status object:\n%s", out)
	}
}

// TestStatusETA: --pod-ready-after 2s gives the time model's ETA of the rest (the 5 new pods
// Ready 2s from now, then the last 5 two seconds later: 4s).
func TestStatusETA(t *testing.T) {
	d, rss := statusMidRollout("ReplicaSetUpdated")
	o, out := newStatusTest(fakeClient(d, rss), "deploy/web")
	o.PodReadyAfter, o.Output.Output = "2s", "jsonpath={.eta} {.etaBasis}"
	mustRun(t, o.Run)
	if want := "4s pods Ready after 2s (--pod-ready-after)"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	// --sync-latency 1s: the 5 new pods exist already (Ready 2s from now); the last 5 start
	// 1 s after their write: 2 + 1 + 2 = 5s.
	o, out = newStatusTest(fakeClient(d, rss), "deploy/web")
	o.PodReadyAfter, o.SyncLatency, o.Output.Output = "2s", "1s", "jsonpath={.eta} {.etaBasis}"
	mustRun(t, o.Run)
	if want := "5s pods Ready after 2s (--pod-ready-after), 1s per write (--sync-latency)"; out.String() != want {
		t.Errorf("--sync-latency 1s: got %q, want %q", out.String(), want)
	}
	for _, bad := range []func(o *StatusOptions){
		func(o *StatusOptions) { o.PodReadyAfter = "soon" },
		func(o *StatusOptions) { o.SyncLatency = "-1s" },
	} {
		o, _ = newStatusTest(fakeClient(d, rss), "deploy/web")
		bad(o)
		if err := o.Validate(); err == nil {
			t.Errorf("--pod-ready-after %q --sync-latency %q: no error", o.PodReadyAfter, o.SyncLatency)
		}
	}
}

// TestStatusExitCodes: 3 for a rollout past its progress deadline (as kubectl fails), 0 for
// one in progress without --watch, 5 when --watch's --timeout passes, 1 for a missing one.
func TestStatusExitCodes(t *testing.T) {
	d, rss := statusMidRollout("ProgressDeadlineExceeded")
	o, _ := newStatusTest(fakeClient(d, rss), "deploy/web")
	if code, msg := exit(o.Run); code != ExitStalled || !strings.Contains(msg, `deployment "web" exceeded its progress deadline`) {
		t.Errorf("deadline exceeded: exit %d %q, want %d", code, msg, ExitStalled)
	}
	d, rss = statusMidRollout("ReplicaSetUpdated")
	o, _ = newStatusTest(fakeClient(d, rss), "deploy/web")
	if code, msg := exit(o.Run); code != ExitOK {
		t.Errorf("in progress, no --watch: exit %d %q, want 0", code, msg)
	}
	o, _ = newStatusTest(fakeClient(d, rss), "deploy/web")
	o.Watch, o.Timeout = true, 300*time.Millisecond
	if code, msg := exit(o.Run); code != ExitTimedOut || !strings.Contains(msg, "timed out after 300ms") {
		t.Errorf("--watch --timeout: exit %d %q, want %d", code, msg, ExitTimedOut)
	}
	o, _ = newStatusTest(fakeClient(d, rss), "deploy/nope")
	if code, msg := exit(o.Run); code != ExitError || !strings.Contains(msg, `"nope" not found`) {
		t.Errorf("missing Deployment: exit %d %q, want 1", code, msg)
	}
}

// TestStatusWatchFollowsToCompletion: --watch prints a line per change (not per second) and
// exits 0 once the rollout completes, from the watch's events.
func TestStatusWatchFollowsToCompletion(t *testing.T) {
	d, rss := statusMidRollout("ReplicaSetUpdated")
	client := fakeClient(d, rss)
	o, _ := newStatusTest(client, "deploy/web")
	lines := watchToCompletion(t, o, client, d, rss)
	if len(lines) < 2 || len(lines) > 4 {
		t.Fatalf("%d lines, want a few (one per change):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[0], "step 3/6") {
		t.Errorf("first line should be step 3/6:\n%s", strings.Join(lines, "\n"))
	}
	lastRolledOut(t, lines, "default/web  step 6/6", "web")
}

// watchToCompletion runs o with --watch (10 s --timeout) while statusMidRollout's rollout
// of d moves to its end (completeRollout) once --watch printed where it stood: a fixed sleep
// raced the informers' first sync on a loaded machine. It fails the test unless o exits 0,
// and returns the output's lines.
func watchToCompletion(t *testing.T, o *StatusOptions, client *fake.Clientset, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []string {
	t.Helper()
	out := &firstWrite{written: make(chan struct{})}
	o.Out = out
	o.Watch, o.Timeout = true, 10*time.Second
	go func() {
		select {
		case <-out.written:
		case <-time.After(5 * time.Second):
		}
		completeRollout(client, d, rss)
	}()
	if code, msg := exit(o.Run); code != ExitOK {
		t.Fatalf("exit %d %q, want 0\n%s", code, msg, out)
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// lastRolledOut fails the test unless the last of lines starts with prefix and gives
// kubectl's success message for Deployment name.
func lastRolledOut(t *testing.T, lines []string, prefix, name string) {
	t.Helper()
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, prefix) || !strings.Contains(last, fmt.Sprintf("deployment %q successfully rolled out", name)) {
		t.Errorf("the last line should start %q and say %s rolled out:\n%s", prefix, name, strings.Join(lines, "\n"))
	}
}

// completeRollout moves statusMidRollout's rollout of d to its end, as the controllers
// would: the new ReplicaSet at 10 available, the old at 0, the Deployment's status complete.
func completeRollout(client *fake.Clientset, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	ctx := context.Background()
	newRS := rss[1].DeepCopy()
	newRS.Spec.Replicas = ptr.To[int32](10)
	newRS.Status = appsv1.ReplicaSetStatus{Replicas: 10, ReadyReplicas: 10, AvailableReplicas: 10, ObservedGeneration: 1}
	oldRS := rss[0].DeepCopy()
	oldRS.Spec.Replicas = ptr.To[int32](0)
	oldRS.Status = appsv1.ReplicaSetStatus{ObservedGeneration: 1}
	_, _ = client.AppsV1().ReplicaSets(d.Namespace).Update(ctx, newRS, metav1.UpdateOptions{})
	_, _ = client.AppsV1().ReplicaSets(d.Namespace).Update(ctx, oldRS, metav1.UpdateOptions{})
	done := d.DeepCopy()
	done.Status.Replicas, done.Status.UpdatedReplicas, done.Status.ReadyReplicas, done.Status.AvailableReplicas = 10, 10, 10, 10
	done.Status.Conditions[0].Reason = "NewReplicaSetAvailable"
	_, _ = client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, done, metav1.UpdateOptions{})
}

// firstWrite is an output safe to read while --watch writes it; written is closed at the
// first write.
type firstWrite struct {
	mu      sync.Mutex
	b       strings.Builder
	written chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if n > 0 && w.b.Len() == n {
		close(w.written)
	}
	return n, err
}

func (w *firstWrite) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestStatusWatchRedrawsOnATerminal: on a terminal the block is drawn, then redrawn in place
// (cursor up over its lines, clear) at the next tick.
func TestStatusWatchRedrawsOnATerminal(t *testing.T) {
	d, rss := statusMidRollout("ReplicaSetUpdated")
	o, out := newStatusTest(fakeClient(d, rss), "deploy/web")
	o.Watch, o.Timeout, o.Terminal = true, 1500*time.Millisecond, func() bool { return true }
	if code, msg := exit(o.Run); code != ExitTimedOut {
		t.Fatalf("exit %d %q, want %d", code, msg, ExitTimedOut)
	}
	blocks := strings.Split(out.String(), "\x1b[")
	if len(blocks) < 2 || !strings.HasPrefix(blocks[0], "Deployment:   default/web") {
		t.Fatalf("want a block then at least one redraw:\n%q", out.String())
	}
	lines := strings.Count(blocks[0], "\n")
	if want := fmt.Sprintf("%dA", lines); !strings.HasPrefix(blocks[1], want) {
		t.Errorf("redraw moves up %q, want %q (the first block's lines)", blocks[1][:3], want)
	}
}

package drive

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// pullBackOff creates, once the new ReplicaSet exists, its pods in ImagePullBackOff since
// the pod's creation (as the kubelet reports an image that cannot be pulled).
func (f *runFixture) pullBackOff(t *testing.T, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			rs, err := f.fc.cs.AppsV1().ReplicaSets("default").Get(ctx, f.newName, metav1.GetOptions{})
			if err != nil {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			for i := range n {
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", rs.Name, i), Namespace: "default",
					Labels: rs.Spec.Selector.MatchLabels, CreationTimestamp: metav1.Now(),
					OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: ptr.To(true)}}},
					Spec: corev1.PodSpec{NodeName: "n1"},
					Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "web",
						State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "nginx:1.19"`}}}}}}
				if _, err := f.fc.cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
					t.Errorf("create pod: %v", err)
				}
			}
			return
		}
	}()
}

// TestRunFailFast: the new pods in ImagePullBackOff hold the drive once they have been so
// for --fail-fast-after (1s), long before the progress timeout (20s), and the hold names
// the reason with its pod count.
func TestRunFailFast(t *testing.T) {
	f := newRunFixture(t)
	f.fc.mu.Lock()
	f.fc.unready = map[string]bool{f.newName: true}
	f.fc.mu.Unlock()
	f.pullBackOff(t, 2)
	events := &eventLog{}
	began := time.Now()
	_, res, err := f.drive(t, Options{Identity: "tester", ProgressTimeout: 20 * time.Second, FailFast: true, FailFastAfter: time.Second,
		Progress: events.add})
	took := time.Since(began)
	want := "step 1/3: --fail-fast: pods of ReplicaSet " + f.newName + " held back for 1s or more (0 of 3 available): 2 pods ImagePullBackOff"
	if err != nil || res.Outcome != OutcomeHeld || res.Reason != want {
		t.Fatalf("after %s: %+v, %v; want held: %q", took, res, err, want)
	}
	if took > 6*time.Second {
		t.Errorf("held after %s, want about the 1s of --fail-fast-after", took)
	}
	// pkg/printer renders the event's Stalled lines under "not progressing:" (its tests).
	if want := `2 pods ImagePullBackOff: Back-off pulling image "nginx:1.19"`; !events.stalled(want) {
		t.Errorf("progress without a timed-out step stalled by %q:\n%+v", want, events.all())
	}
}

// TestRunProgressTimeoutSaysWhy: without --fail-fast the step times out at the progress
// timeout, and says why.
func TestRunProgressTimeoutSaysWhy(t *testing.T) {
	f := newRunFixture(t)
	f.fc.mu.Lock()
	f.fc.unready = map[string]bool{f.newName: true}
	f.fc.mu.Unlock()
	f.pullBackOff(t, 3)
	_, res, err := f.drive(t, Options{Identity: "tester", ProgressTimeout: time.Second})
	if err != nil || res.Outcome != OutcomeHeld || !strings.HasSuffix(res.Reason, "timed out: ReplicaSet "+f.newName+" has 0 of 3 pods available after 1s: 3 pods ImagePullBackOff") {
		t.Fatalf("%+v, %v; want held, timed out with 3 pods ImagePullBackOff", res, err)
	}
}

// eventLog collects progress events (they come from the run and its ticker).
type eventLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *eventLog) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// stalled reports an EventStepTimedOut whose Stalled holds reason.
func (l *eventLog) stalled(reason string) bool {
	for _, e := range l.all() {
		if e.Kind == EventStepTimedOut && slices.Contains(e.Stalled, reason) {
			return true
		}
	}
	return false
}

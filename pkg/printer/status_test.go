package printer

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
)

func statusObject(elapsed time.Duration, warning string, deadlineIn time.Duration) *v1alpha1.RolloutStatus {
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	deadline := metav1.NewTime(at.Add(deadlineIn))
	return &v1alpha1.RolloutStatus{
		Deployment: v1alpha1.StatusDeployment{Namespace: "shop", Name: "web", Replicas: 10},
		ObservedAt: at, Phase: "Progressing", Step: 3, Steps: 6, Waiting: "0 of 5 new pods available",
		ReplicaSets: []v1alpha1.StatusReplicaSet{{Name: "web-1", Replicas: 8}, {Name: "web-2", New: true, Replicas: 5, Available: 2}},
		Elapsed:     &metav1.Duration{Duration: elapsed}, Warning: warning, DeadlineAt: &deadline,
	}
}

func TestStatusLine(t *testing.T) {
	got := StatusLine(statusObject(12*time.Second, "no progress for 40s", 20*time.Second))
	want := "shop/web  step 3/6  new 5/10 (2 available)  old 8  elapsed 12s  waiting for 0 of 5 new pods available  WARNING: no progress for 40s"
	if got != want {
		t.Errorf("StatusLine:\n got %q\nwant %q", got, want)
	}
}

// TestStatusKey: a line per change, not per second: the elapsed time and the warning's
// countdown do not change the key; a warning appearing or the deadline passing does.
func TestStatusKey(t *testing.T) {
	a := StatusKey(statusObject(12*time.Second, "", 30*time.Second))
	if b := StatusKey(statusObject(13*time.Second, "", 29*time.Second)); a != b {
		t.Errorf("the key changed with the clock alone:\n%s\n%s", a, b)
	}
	near1 := StatusKey(statusObject(40*time.Second, "no progress for 40s ... in 20s", 20*time.Second))
	near2 := StatusKey(statusObject(41*time.Second, "no progress for 41s ... in 19s", 19*time.Second))
	passed := StatusKey(statusObject(61*time.Second, "no progress for 61s ... has passed", -time.Second))
	if near1 == a || near1 != near2 || passed == near2 {
		t.Errorf("keys: none %q, near %q / %q, passed %q", a, near1, near2, passed)
	}
}

func TestRedraw(t *testing.T) {
	var b strings.Builder
	r := &Redraw{W: &b}
	_ = r.Draw("a\nb\n")
	_ = r.Draw("c")
	if want := "a\nb\n\x1b[2A\x1b[Jc\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

package framework

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestRolloutStatus(t *testing.T) {
	deployment := func(gen, observed int64, replicas int32, s appsv1.DeploymentStatus) *appsv1.Deployment {
		s.ObservedGeneration = observed
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: gen},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
			Status:     s,
		}
	}
	tests := []struct {
		name    string
		d       *appsv1.Deployment
		done    bool
		wantErr bool
	}{
		{"spec change not yet observed", deployment(2, 1, 10, appsv1.DeploymentStatus{Replicas: 10, UpdatedReplicas: 10, AvailableReplicas: 10}), false, false},
		{"new replicas not all updated", deployment(2, 2, 10, appsv1.DeploymentStatus{Replicas: 13, UpdatedReplicas: 5, AvailableReplicas: 8}), false, false},
		{"old replicas pending termination", deployment(2, 2, 10, appsv1.DeploymentStatus{Replicas: 12, UpdatedReplicas: 10, AvailableReplicas: 10}), false, false},
		{"updated replicas not all available", deployment(2, 2, 10, appsv1.DeploymentStatus{Replicas: 10, UpdatedReplicas: 10, AvailableReplicas: 9}), false, false},
		{"complete", deployment(2, 2, 10, appsv1.DeploymentStatus{Replicas: 10, UpdatedReplicas: 10, AvailableReplicas: 10}), true, false},
		{"progress deadline exceeded", deployment(2, 2, 10, appsv1.DeploymentStatus{
			Replicas: 13, UpdatedReplicas: 5, AvailableReplicas: 8,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Reason: "ProgressDeadlineExceeded"}},
		}), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, done, err := RolloutStatus(tc.d)
			if done != tc.done || (err != nil) != tc.wantErr {
				t.Errorf("RolloutStatus = (%q, %v, %v), want done %v, error %v", msg, done, err, tc.done, tc.wantErr)
			}
		})
	}
}

func TestParseScalingMessage(t *testing.T) {
	tests := []struct {
		msg     string
		want    string
		wantErr bool
	}{
		{"Scaled up replica set web-6d4f from 0 to 3", "up web-6d4f 0->3", false},
		{"Scaled down replica set web-5c9b from 10 to 8", "down web-5c9b 10->8", false},
		{"(combined from similar events): Scaled up replica set web-6d4f from 3 to 5", "up web-6d4f 3->5", false},
		{"Deployment does not have minimum availability.", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.msg, func(t *testing.T) {
			got, err := ParseScalingMessage(tc.msg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseScalingMessage(%q) error = %v, want error %v", tc.msg, err, tc.wantErr)
			}
			if err == nil {
				if diff := cmp.Diff(tc.want, got.String()); diff != "" {
					t.Errorf("ParseScalingMessage(%q) (-want +got):\n%s", tc.msg, diff)
				}
			}
		})
	}
}

func TestRSWriteDescribe(t *testing.T) {
	alias := map[string]string{"web-5c9b": "old", "web-6d4f": "new"}
	got := []string{
		RSWrite{Op: OpCreate, Name: "web-6d4f", To: 3}.Describe(alias),
		RSWrite{Op: OpScale, Name: "web-5c9b", From: 10, To: 8}.Describe(alias),
		RSWrite{Op: OpDelete, Name: "web-1111", To: 0}.Describe(alias),
	}
	want := []string{"create new 0->3", "scale old 10->8", "delete web-1111 0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
}

// recordingTB records Errorf instead of failing the test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestCheckRace(t *testing.T) {
	clean := &recordingTB{TB: t}
	CheckRace(clean, "drive", "step 1/3 done\n")
	if len(clean.errors) != 0 {
		t.Errorf("clean stderr: %v", clean.errors)
	}
	raced := &recordingTB{TB: t}
	CheckRace(raced, "drive deploy/web", "step 1/3 done\n==================\nWARNING: DATA RACE\nWrite at 0x00c0000c20f8 by goroutine 40:\n")
	if len(raced.errors) != 1 || !strings.Contains(raced.errors[0], "drive deploy/web reported a data race:\nWARNING: DATA RACE\nWrite at") {
		t.Errorf("a race report: %q, want one error quoting it", raced.errors)
	}
}

// fakePlugin writes script as the plugin of a Cluster in a temporary BinDir.
func fakePlugin(t *testing.T, script string) *Cluster {
	t.Helper()
	c := &Cluster{BinDir: t.TempDir(), Kubeconfig: "/dev/null"}
	if err := os.WriteFile(c.PluginPath(), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStartPlugin: a background plugin's output is readable while it runs, Stop signals it
// and returns its exit code, Wait returns the code of one that exits, and a race report on
// its stderr fails the test when it ends.
func TestStartPlugin(t *testing.T) {
	t.Run("stop", func(t *testing.T) {
		c := fakePlugin(t, `trap 'exit 3' TERM; echo "step 1/3: $*" >&2; while :; do sleep 0.05; done`)
		b := c.StartPlugin(t, []string{"X=1"}, "drive", "deploy/web")
		deadline := time.Now().Add(10 * time.Second)
		for b.LastLine() != "step 1/3: drive deploy/web" && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if b.Exited() || b.ExitCode() != -1 {
			t.Fatalf("exited %v (code %d) while it runs", b.Exited(), b.ExitCode())
		}
		if got := b.LastLine(); got != "step 1/3: drive deploy/web" {
			t.Errorf("LastLine = %q", got)
		}
		if code := b.Stop(t, syscall.SIGTERM, 10*time.Second); code != 3 || !b.Exited() || b.ExitCode() != 3 {
			t.Errorf("Stop = %d, Exited %v, ExitCode %d; want 3, true, 3", code, b.Exited(), b.ExitCode())
		}
	})
	t.Run("wait", func(t *testing.T) {
		c := fakePlugin(t, `echo "out $X"; exit 4`)
		b := c.StartPlugin(t, []string{"X=1"})
		if code := b.Wait(t, 10*time.Second); code != 4 || b.Stdout.String() != "out 1\n" {
			t.Errorf("Wait = %d, stdout %q; want 4, %q", code, b.Stdout.String(), "out 1\n")
		}
	})
	raced := &recordingTB{TB: t}
	t.Run("race", func(t *testing.T) {
		raced.TB = t
		c := fakePlugin(t, `printf '==================\nWARNING: DATA RACE\nWrite at 0x1 by goroutine 7:\n' >&2; exit 66`)
		c.StartPlugin(raced, nil, "reload", "--watch").Wait(t, 10*time.Second)
	})
	if len(raced.errors) != 1 || !strings.Contains(raced.errors[0], "kubectl-rollplan reload --watch reported a data race") {
		t.Errorf("a race report when the test ended: %q, want one error naming the command", raced.errors)
	}
}

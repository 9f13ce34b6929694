package framework

import (
	"fmt"
	"strings"
	"testing"

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

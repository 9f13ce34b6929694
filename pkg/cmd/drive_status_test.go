package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

var driveStatusNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newDriveStatusTest is `drive status deploy/web` on web (10 replicas) held by drive at step
// 1 of 3, its lease held by alice for 20s more; the state's times carry nanoseconds.
func newDriveStatusTest(t *testing.T) (*DriveStatusOptions, *strings.Builder) {
	t.Helper()
	d := testutil.Deployment("web").Replicas(10).Revision(1).Build()
	old := testutil.ReplicaSetFor(d).Created(1).Replicas(5).Build()
	target := d.DeepCopy()
	target.Spec.Template.Spec.Containers[0].Image = "nginx:1.19"
	newRS := testutil.ReplicaSetFor(target).Created(2).Replicas(3).Revision(2).Build()
	lease, started := driveStatusNow.Add(20*time.Second+500*time.Millisecond), driveStatusNow.Add(-time.Minute+123456789)
	s := &drive.State{Version: drive.StateVersion, PlanID: "p1", Phase: drive.PhaseForward, OriginalStrategy: d.Spec.Strategy,
		TargetHash: newRS.Labels[appsv1.DefaultDeploymentUniqueLabelKey], NewReplicaSet: newRS.Name, PreviousReplicaSet: old.Name, Revision: 2,
		Replicas: 10, MaxSurge: 3, MaxUnavailable: 2, Step: 1, Steps: 3, Generation: 2, Holder: "alice@host pid 1/ab",
		LeaseExpires: &lease, StartedAt: started, UpdatedAt: driveStatusNow}
	val, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	target.Generation = 2
	target.Spec.Paused = true
	target.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	target.Annotations = map[string]string{deployutil.RevisionAnnotation: "2", drive.Annotation: val}
	streams, _, _ := testStreams()
	o := NewDriveStatusOptions(streams)
	o.Namespace, o.Name = "default", "web"
	o.Client = clientOf(fakeClient(target, []*appsv1.ReplicaSet{old, newRS}))
	o.Now = func() time.Time { return driveStatusNow }
	out := &strings.Builder{}
	o.Out = out
	return o, out
}

// TestDriveStatusOutput: -o goes through cli-runtime's printers (the DriveStatus object,
// kind and apiVersion set); without -o the human form.
func TestDriveStatusOutput(t *testing.T) {
	for _, tc := range []struct {
		name, output, golden, want string
	}{
		{name: "human", golden: "drive-status", want: "Next step:   web-"},
		{name: "json", output: "json", golden: "drive-status.json"},
		{name: "yaml", output: "yaml", golden: "drive-status.yaml"},
		{name: "jsonpath", output: "jsonpath={.state.step}/{.state.steps} {.next.New.Name} {.state.leaseExpires}", want: "1/3 web-"},
		{name: "go-template", output: "go-template={{.kind}} {{.stepsLeft}}", want: "DriveStatus 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, out := newDriveStatusTest(t)
			o.Output.Output = tc.output
			mustRun(t, o.Run)
			if tc.golden != "" {
				testutil.Golden(t, tc.golden, []byte(out.String()))
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out.String())
			}
		})
	}
}

// TestDriveStatusJSON decodes -o json as the e2e tests and CI jobs do.
func TestDriveStatusJSON(t *testing.T) {
	o, out := newDriveStatusTest(t)
	o.Output.Output = "json"
	mustRun(t, o.Run)
	var r v1alpha1.DriveStatus
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatal(err)
	}
	if r.Kind != "DriveStatus" || r.APIVersion != "rollplan.dev/v1alpha1" || !r.Held || !r.Driving || r.State.Step != 1 || len(r.ReplicaSets) != 2 || r.Next == nil {
		t.Errorf("kind %q apiVersion %q held %v driving %v state %+v replicasets %d next %v", r.Kind, r.APIVersion, r.Held, r.Driving, r.State, len(r.ReplicaSets), r.Next)
	}
	if got, want := r.State.StartedAt.Time, driveStatusNow.Add(-time.Minute+123456789); !got.Equal(want) {
		t.Errorf("startedAt %v, want %v (nanoseconds kept)", got, want)
	}
}

func TestDriveStatusBadOutput(t *testing.T) {
	o, out := newDriveStatusTest(t)
	o.Output.Output = "wide"
	err := o.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), `unknown output format "wide"`) || out.Len() != 0 {
		t.Errorf("error %v, output %q; want an unknown-format error and no output", err, out.String())
	}
}

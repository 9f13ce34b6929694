package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
)

func TestDriveValidate(t *testing.T) {
	cases := []struct {
		name string
		set  func(o *DriveOptions)
		want string // "" for valid
	}{
		{"defaults", func(*DriveOptions) {}, ""},
		{"dry-run client", func(o *DriveOptions) { o.DryRun = "client" }, ""},
		{"dry-run bogus", func(o *DriveOptions) { o.DryRun = "maybe" }, `--dry-run=maybe`},
		{"steps and until-step", func(o *DriveOptions) { o.Steps, o.UntilStep = 1, 2 }, "give one of them"},
		{"negative steps", func(o *DriveOptions) { o.Steps = -1 }, "--steps=-1"},
		{"negative interval", func(o *DriveOptions) { o.Interval = -time.Second }, "must not be negative"},
		{"short lease", func(o *DriveOptions) { o.LeaseDuration = time.Second }, "--lease-duration=1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := NewDriveOptions(genericiooptions.NewTestIOStreamsDiscard())
			tc.set(o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestPromptStep(t *testing.T) {
	cases := []struct {
		input string
		want  drive.Answer
	}{
		{"c\n", drive.AnswerContinue},
		{"yes\n", drive.AnswerContinue},
		{"\nx\nh\n", drive.AnswerHold}, // blank and unknown answers ask again
		{"abort\n", drive.AnswerAbort},
		{"", drive.AnswerHold}, // end of input holds
	}
	for _, tc := range cases {
		var out bytes.Buffer
		ask := promptStep(strings.NewReader(tc.input), &out)
		got, err := ask(context.Background(), drive.StepInfo{Number: 2, Of: 3, Step: drive.Step{New: drive.Scale{Name: "web-new", From: 3, To: 8}, WaitAvailable: 8}})
		if err != nil || got != tc.want {
			t.Errorf("input %q: answer %v (%v), want %v", tc.input, got, err, tc.want)
		}
		if !strings.Contains(out.String(), "step 2/3: web-new 3 -> 8, wait for 8 available") {
			t.Errorf("input %q: prompt %q", tc.input, out.String())
		}
	}
}

func TestDriveNeedsYesWithoutTerminal(t *testing.T) {
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	o := NewDriveOptions(streams)
	o.Namespace, o.Name = "default", "web"
	o.Terminal = func() bool { return false }
	d := testutil.Deployment("web").Replicas(3).Build()
	cs := fake.NewClientset(d, testutil.ReplicaSetFor(d).Build())
	o.Client = func() (kubernetes.Interface, error) { return cs, nil }
	err := o.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "pass --yes") {
		t.Fatalf("error %v, want one asking for --yes", err)
	}
	for _, a := range cs.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" {
			t.Errorf("unexpected %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
}

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
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"

	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
)

func TestDriveValidate(t *testing.T) {
	cases := []struct {
		name string
		set  func(o *DriveOptions)
		want string // "" for valid
	}{
		{"defaults", func(*DriveOptions) {}, ""},
		{"dry-run client", func(o *DriveOptions) { o.DryRun = cmdutil.DryRunClient }, ""},
		{"dry-run server", func(o *DriveOptions) { o.DryRun = cmdutil.DryRunServer }, ""},
		{"steps and until-step", func(o *DriveOptions) { o.Steps, o.UntilStep = 1, 2 }, "give one of them"},
		{"negative steps", func(o *DriveOptions) { o.Steps = -1 }, "--steps=-1"},
		{"negative interval", func(o *DriveOptions) { o.Interval = -time.Second }, "must not be negative"},
		{"short lease", func(o *DriveOptions) { o.LeaseDuration = time.Second }, "--lease-duration=1s"},
		// New: the documented meaning of 0 (no limit), and the messages in full.
		{"steps 0 is no limit", func(o *DriveOptions) { o.Steps = 0 }, ""},
		{"until-step 0 is no limit", func(o *DriveOptions) { o.UntilStep = 0 }, ""},
		{"steps 1", func(o *DriveOptions) { o.Steps = 1 }, ""},
		{"until-step 3", func(o *DriveOptions) { o.UntilStep = 3 }, ""},
		{"negative steps says 0 is the default", func(o *DriveOptions) { o.Steps = -1 }, "--steps=-1: must be 1 or more (0, the default, makes every step)"},
		{"negative until-step", func(o *DriveOptions) { o.UntilStep = -2 }, "--until-step=-2: must be 1 or more (0, the default, makes every step)"},
		{"steps and until-step 0", func(o *DriveOptions) { o.Steps, o.UntilStep = 2, 0 }, ""},
		{"negative progress-timeout", func(o *DriveOptions) { o.ProgressTimeout = -time.Second }, "--interval and --progress-timeout must not be negative"},
		{"lease 3s", func(o *DriveOptions) { o.LeaseDuration = 3 * time.Second }, ""},
		{"lease just under 3s", func(o *DriveOptions) { o.LeaseDuration = 3*time.Second - time.Millisecond }, "--lease-duration=2.999s: must be 3s or more"},
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

// TestParseDryRun: drive's --dry-run values as kubectl's DryRunStrategy. The "maybe" case
// was TestDriveValidate's "dry-run bogus" when --dry-run was a string checked in Validate.
func TestParseDryRun(t *testing.T) {
	for _, tc := range []struct {
		value   string
		want    cmdutil.DryRunStrategy
		wantErr string
	}{
		{"none", cmdutil.DryRunNone, ""},
		{"client", cmdutil.DryRunClient, ""},
		{"server", cmdutil.DryRunServer, ""},
		{"maybe", cmdutil.DryRunNone, `--dry-run=maybe: use "none", "client" or "server"`},
		{"true", cmdutil.DryRunNone, `--dry-run=true: use "none", "client" or "server"`},
		{"unchanged", cmdutil.DryRunNone, `--dry-run=unchanged`},
		{"", cmdutil.DryRunNone, `--dry-run=: use`},
		{"Client", cmdutil.DryRunNone, `--dry-run=Client`},
	} {
		got, err := driverun.ParseDryRun(tc.value)
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("%q: %v, %v; want %v", tc.value, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: error %v, want one containing %q", tc.value, err, tc.wantErr)
		}
	}
}

// TestDriveDryRunFlag: the flag as the command line gives it (default none, a bare
// --dry-run is client, without kubectl's deprecation warning).
func TestDriveDryRunFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want cmdutil.DryRunStrategy
	}{
		{nil, cmdutil.DryRunNone},
		{[]string{"--dry-run"}, cmdutil.DryRunClient},
		{[]string{"--dry-run=client"}, cmdutil.DryRunClient},
		{[]string{"--dry-run=server"}, cmdutil.DryRunServer},
		{[]string{"--dry-run=none"}, cmdutil.DryRunNone},
	} {
		cmd := NewCmdDrive(nil, genericiooptions.NewTestIOStreamsDiscard())
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		got, err := driverun.ParseDryRun(cmdutil.GetFlagString(cmd, "dry-run"))
		if err != nil || got != tc.want {
			t.Errorf("%v: %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
}

func TestDriveBadDryRunThroughTheCommandLine(t *testing.T) {
	out, errOut, code := runRoot(t, "", "drive", "web", "--dry-run=maybe")
	if code != ExitError || out != "" || errOut != "error: --dry-run=maybe: use \"none\", \"client\" or \"server\"\n" {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

func TestAbortValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(o *AbortOptions)
		want string
	}{
		{"defaults", func(*AbortOptions) {}, ""},
		{"lease 3s", func(o *AbortOptions) { o.LeaseDuration = 3 * time.Second }, ""},
		{"short lease", func(o *AbortOptions) { o.LeaseDuration = time.Second }, "--lease-duration=1s: must be 3s or more"},
		{"zero lease", func(o *AbortOptions) { o.LeaseDuration = 0 }, "--lease-duration=0s: must be 3s or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewAbortOptions(genericiooptions.NewTestIOStreamsDiscard())
			tc.set(o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestAbortSharesDriveDefaults: abort's defaults are drive's, from one place.
func TestAbortSharesDriveDefaults(t *testing.T) {
	streams := genericiooptions.NewTestIOStreamsDiscard()
	a, d := NewAbortOptions(streams), NewDriveOptions(streams)
	if a.LeaseDuration != defaultLeaseDuration || d.LeaseDuration != defaultLeaseDuration || defaultLeaseDuration != 30*time.Second {
		t.Errorf("lease: abort %s, drive %s, default %s; want 30s", a.LeaseDuration, d.LeaseDuration, defaultLeaseDuration)
	}
	if a.Terminal() || d.Terminal() {
		t.Error("test streams are not a terminal")
	}
	abort := NewCmdAbort(nil, streams)
	if got := abort.Flags().Lookup("lease-duration").DefValue; got != "30s" {
		t.Errorf("abort --lease-duration default %s", got)
	}
}

func TestDriveStatusValidate(t *testing.T) {
	for _, tc := range []struct{ output, want string }{
		{"", ""},
		{"json", ""},
		{"yaml", ""},
		{"jsonpath={.state.step}", ""},
		{"table", `unknown output format "table": use one of json, yaml`},
	} {
		o := NewDriveStatusOptions(genericiooptions.IOStreams{})
		o.Output.Output = tc.output
		err := o.Validate()
		if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want))) {
			t.Errorf("-o %q: %v, want %q", tc.output, err, tc.want)
		}
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
		ask := printer.PromptStep(strings.NewReader(tc.input), &out)
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

package cmd

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// recordSink is a Sink no command knows: it keeps the patches in memory and sends nothing.
type recordSink struct{ deployments []*rollout.Patch }

func (r *recordSink) Deployment(_ context.Context, _ kubernetes.Interface, _ *appsv1.Deployment, p *rollout.Patch) (*appsv1.Deployment, error) {
	r.deployments = append(r.deployments, p)
	return nil, nil
}

func (r *recordSink) Workload(context.Context, kubernetes.Interface, workload.Workload, []byte) error {
	return nil
}

var _ pipeline.Sink = &recordSink{}

// TestActionSinkRecords runs pause, resume and restart (a real run: no --dry-run) with a
// Sink that records: the client sees no write, the sink gets exactly kubectl's patch body,
// and the command prints kubectl's result line as for an API write.
func TestActionSinkRecords(t *testing.T) {
	paused := func() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
		d, rss := webFixture()
		d.Spec.Paused = true
		return d, rss
	}
	cases := []struct {
		verb  rollout.Verb
		state func() (*appsv1.Deployment, []*appsv1.ReplicaSet)
		patch string
	}{
		{rollout.VerbPause, midRollout, `{"spec":{"paused":true}}`},
		{rollout.VerbResume, paused, `{"spec":{"paused":null}}`},
		{rollout.VerbRestart, webFixture, `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-01-01T01:00:00Z"}}}}}`},
	}
	for _, tc := range cases {
		t.Run(string(tc.verb), func(t *testing.T) {
			d, rss := tc.state()
			o, c, out := newActionTest(t, tc.verb, d, rss)
			o.DryRun = cmdutil.DryRunNone
			sink := &recordSink{}
			o.Sink = sink
			mustRun(t, o.Run)
			if w := writes(c); len(w) != 0 {
				t.Errorf("the client saw writes %v, want none (the sink has them)", w)
			}
			if len(sink.deployments) != 1 {
				t.Fatalf("sink recorded %d patches, want 1", len(sink.deployments))
			}
			p := sink.deployments[0]
			if p.Type != types.StrategicMergePatchType || string(p.Kubectl) != tc.patch {
				t.Errorf("recorded %s %s, want kubectl's %s", p.Type, p.Kubectl, tc.patch)
			}
			if want := "deployment.apps/web " + tc.verb.Past() + "\n"; !strings.HasSuffix(out.String(), "\n"+want) {
				t.Errorf("output does not end with %q:\n%s", want, out)
			}
		})
	}
}

// TestNewSink: --dry-run=none|server|client map to API, ServerDryRun and Print, each with
// --field-manager.
func TestNewSink(t *testing.T) {
	if s := pipeline.NewSink(cmdutil.DryRunNone, "m"); s != (pipeline.API{FieldManager: "m"}) {
		t.Errorf("none: %#v", s)
	}
	if s := pipeline.NewSink(cmdutil.DryRunServer, "m"); s != (pipeline.ServerDryRun{FieldManager: "m"}) {
		t.Errorf("server: %#v", s)
	}
	if s := pipeline.NewSink(cmdutil.DryRunClient, "m"); s != (pipeline.Print{}) {
		t.Errorf("client: %#v", s)
	}
}

// TestUndoSinkRecords: undo with the recording Sink writes nothing through the client, and
// the sink gets the very patch the API Sink sends (kubectl's JSON patch, guarded).
func TestUndoSinkRecords(t *testing.T) {
	api, c, _, _ := newUndoTest(t, nil)
	api.DryRun, api.ToRevision = cmdutil.DryRunNone, 2
	mustRun(t, api.Run)
	w := writes(c)
	if len(w) != 1 {
		t.Fatalf("API sink: writes %v, want one patch", w)
	}
	sent := w[0].(k8stesting.PatchAction).GetPatch()

	o, c2, out, _ := newUndoTest(t, nil)
	o.DryRun, o.ToRevision = cmdutil.DryRunNone, 2
	sink := &recordSink{}
	o.Sink = sink
	mustRun(t, o.Run)
	if w := writes(c2); len(w) != 0 {
		t.Errorf("the client saw writes %v, want none", w)
	}
	if len(sink.deployments) != 1 {
		t.Fatalf("sink recorded %d patches, want 1", len(sink.deployments))
	}
	p := sink.deployments[0]
	if p.Type != types.JSONPatchType || string(p.Guarded) != string(sent) {
		t.Errorf("recorded %s %s, want what the API sink sent: %s", p.Type, p.Guarded, sent)
	}
	if !strings.HasPrefix(string(p.Kubectl), `[{"op":"replace","path":"/spec/template"`) {
		t.Errorf("kubectl's body %s", p.Kubectl)
	}
	if !strings.HasSuffix(out.String(), "\ndeployment.apps/web rolled back\n") {
		t.Errorf("output does not end with kubectl's line:\n%s", out)
	}
}

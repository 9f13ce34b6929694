package cmd

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// midRollout returns Deployment web (10 replicas, 25%/25%) in the middle of a rollout from
// nginx:1.19 to nginx:1.20: new 10 pods (6 available), old 2 (available), 12 pods in all,
// one below replicas+maxSurge.
func midRollout() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
	d := testutil.Deployment("web").Replicas(10).Image("nginx:1.20").Revision(2).ResourceVersion("77").Build()
	rs := func(image string, created int, rev int64, replicas, available int32) *appsv1.ReplicaSet {
		t := d.DeepCopy()
		t.Spec.Template.Spec.Containers[0].Image = image
		return testutil.ReplicaSetFor(t).OwnedBy(d).Created(created).Revision(rev).Replicas(replicas).
			Status(replicas, available, available).DesiredReplicas(10).MaxReplicas(13).Build()
	}
	return d, []*appsv1.ReplicaSet{rs("nginx:1.19", 1, 1, 2, 2), rs("nginx:1.20", 2, 2, 10, 6)}
}

func newActionTest(t *testing.T, verb rollout.Verb, d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (*ActionOptions, *fake.Clientset, *strings.Builder) {
	t.Helper()
	c := fakeClient(d, rss)
	streams, _, _ := testStreams()
	o := NewActionOptions(verb, streams)
	out := &strings.Builder{}
	o.Out = out
	o.Namespace, o.Name = "default", "web"
	o.Client = clientOf(c)
	o.Now = func() time.Time { return time.Date(2024, 1, 1, 1, 0, 0, 0, time.UTC) }
	o.DryRun = cmdutil.DryRunClient
	return o, c, out
}

func TestActionGolden(t *testing.T) {
	pending := func() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
		d, rss := webFixture()
		d.Spec.Paused = true
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.21"
		return d, rss
	}
	cases := []struct {
		name  string
		verb  rollout.Verb
		state func() (*appsv1.Deployment, []*appsv1.ReplicaSet)
	}{
		{"pause-mid-rollout", rollout.VerbPause, midRollout},
		{"pause-complete", rollout.VerbPause, webFixture},
		{"resume-pending-template", rollout.VerbResume, pending},
		{"restart", rollout.VerbRestart, webFixture},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, rss := tc.state()
			o, c, out := newActionTest(t, tc.verb, d, rss)
			mustRun(t, o.Run)
			if w := writes(c); len(w) != 0 {
				t.Errorf("a client dry run wrote: %v", w)
			}
			testutil.Golden(t, tc.name, []byte(out.String()))
		})
	}
}

func TestActionApplies(t *testing.T) {
	cases := []struct {
		verb  rollout.Verb
		state func() (*appsv1.Deployment, []*appsv1.ReplicaSet)
		patch string
		check func(*appsv1.Deployment) bool
	}{
		{rollout.VerbPause, midRollout, `{"metadata":{"resourceVersion":"77"},"spec":{"paused":true}}`,
			func(d *appsv1.Deployment) bool { return d.Spec.Paused }},
		{rollout.VerbResume, func() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
			d, rss := webFixture()
			d.Spec.Paused = true
			return d, rss
		}, `{"metadata":{"resourceVersion":"1234"},"spec":{"paused":null}}`,
			func(d *appsv1.Deployment) bool { return !d.Spec.Paused }},
		{rollout.VerbRestart, webFixture,
			`{"metadata":{"resourceVersion":"1234"},"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-01-01T01:00:00Z"}}}}}`,
			func(d *appsv1.Deployment) bool {
				return d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "2024-01-01T01:00:00Z"
			}},
	}
	for _, tc := range cases {
		t.Run(string(tc.verb), func(t *testing.T) {
			d, rss := tc.state()
			o, c, out := newActionTest(t, tc.verb, d, rss)
			o.DryRun = cmdutil.DryRunNone
			mustRun(t, o.Run)
			w := writes(c)
			if len(w) != 1 {
				t.Fatalf("writes %v, want one patch", w)
			}
			p := w[0].(k8stesting.PatchAction)
			if p.GetPatchType() != types.StrategicMergePatchType || string(p.GetPatch()) != tc.patch {
				t.Errorf("patch %s %s, want %s", p.GetPatchType(), p.GetPatch(), tc.patch)
			}
			got, err := c.AppsV1().Deployments("default").Get(t.Context(), "web", metav1.GetOptions{})
			if err != nil || !tc.check(got) {
				t.Errorf("after %s: %v paused=%v annotations=%v", tc.verb, err, got.Spec.Paused, got.Spec.Template.Annotations)
			}
			if want := "deployment.apps/web " + tc.verb.Past() + "\n"; !strings.HasSuffix(out.String(), "\n"+want) {
				t.Errorf("output does not end with %q:\n%s", want, out)
			}
		})
	}
}

func TestActionRefusals(t *testing.T) {
	paused := func() (*appsv1.Deployment, []*appsv1.ReplicaSet) {
		d, rss := webFixture()
		d.Spec.Paused = true
		return d, rss
	}
	cases := []struct {
		verb  rollout.Verb
		state func() (*appsv1.Deployment, []*appsv1.ReplicaSet)
		want  string
	}{
		{rollout.VerbPause, paused, "error: deployments.apps \"web\" is already paused\n"},
		{rollout.VerbResume, webFixture, "error: deployments.apps \"web\" is not paused\n"},
		{rollout.VerbRestart, paused, "error: deployments.apps \"web\" can't restart paused deployment (run rollout resume first)\n"},
	}
	for _, tc := range cases {
		for _, dry := range []cmdutil.DryRunStrategy{cmdutil.DryRunNone, cmdutil.DryRunClient, cmdutil.DryRunServer} {
			d, rss := tc.state()
			o, c, out := newActionTest(t, tc.verb, d, rss)
			o.DryRun = dry
			code, msg := exit(o.Run)
			if code != ExitError || msg != tc.want || out.Len() != 0 || len(writes(c)) != 0 {
				t.Errorf("%s (dry run %v): exit %d %q stdout %q writes %v; want 1 %q", tc.verb, dry, code, msg, out, writes(c), tc.want)
			}
		}
	}
}

func TestActionBadInput(t *testing.T) {
	t.Run("not a Deployment", func(t *testing.T) {
		for _, verb := range []string{"pause", "resume", "restart"} {
			// StatefulSets and DaemonSets have their own path (kinds.go); a ReplicaSet has none.
			out, errOut, code := runRoot(t, "", verb, "replicaset/web")
			if code != ExitError || errOut != "error: rollplan works on Deployments; got replicasets\n" || out != "" {
				t.Errorf("%s: exit %d stdout %q stderr %q", verb, code, out, errOut)
			}
		}
	})
	t.Run("bad dry-run value", func(t *testing.T) {
		_, errOut, code := runRoot(t, "", "pause", "web", "--dry-run=maybe")
		if code != ExitError || errOut != "error: Invalid dry-run value (maybe). Must be \"none\", \"server\", or \"client\".\n" {
			t.Errorf("exit %d stderr %q", code, errOut)
		}
	})
	t.Run("conflict after the preview", func(t *testing.T) {
		d, rss := webFixture()
		o, c, _ := newActionTest(t, rollout.VerbRestart, d, rss)
		o.DryRun = cmdutil.DryRunNone
		c.PrependReactor("patch", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
		})
		code, msg := exit(o.Run)
		want := "error: patch deployments.apps \"web\" in namespace \"default\": the Deployment changed after the preview (it was at resourceVersion 1234): nothing was written; run the command again to preview the new state\n"
		if code != ExitError || msg != want {
			t.Errorf("exit %d %q, want %q", code, msg, want)
		}
	})
	t.Run("a Deployment that does not exist", func(t *testing.T) {
		d, rss := webFixture()
		o, c, _ := newActionTest(t, rollout.VerbPause, d, rss)
		o.Name = "api"
		code, msg := exit(o.Run)
		if code != ExitError || !strings.Contains(msg, `deployments.apps "api" not found in namespace "default"`) || len(writes(c)) != 0 {
			t.Errorf("exit %d %q", code, msg)
		}
	})
}

func TestActionJSON(t *testing.T) {
	d, rss := midRollout()
	o, c, out := newActionTest(t, rollout.VerbPause, d, rss)
	errOut := &strings.Builder{}
	o.ErrOut = errOut
	o.Output.Output = "json"
	o.DryRun = cmdutil.DryRunNone
	mustRun(t, o.Run)
	var p v1alpha1.RolloutPlan
	if err := json.Unmarshal([]byte(out.String()), &p); err != nil {
		t.Fatalf("stdout is not a RolloutPlan: %v\n%s", err, out)
	}
	if p.Kind != "RolloutPlan" || len(p.Steps) != 1 || p.Steps[0].From != 10 || p.Steps[0].To != 11 || !p.Deployment.Paused {
		t.Errorf("plan: %+v", p)
	}
	if errOut.String() != "deployment.apps/web paused\n" || len(writes(c)) != 1 {
		t.Errorf("stderr %q, writes %v", errOut, writes(c))
	}
}

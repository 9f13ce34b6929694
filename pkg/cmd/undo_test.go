package cmd

import (
	"strings"
	"testing"

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
)

// newUndoTest returns UndoOptions for deploy/web on a fake clientset holding webFixture,
// after mutate.
func newUndoTest(t *testing.T, mutate func(*appsv1.Deployment)) (*UndoOptions, *fake.Clientset, *strings.Builder, *strings.Builder) {
	t.Helper()
	d, rss := webFixture()
	if mutate != nil {
		mutate(d)
	}
	c := fakeClient(d, rss)
	streams, _, _ := testStreams()
	o := NewUndoOptions(streams)
	out, errOut := &strings.Builder{}, &strings.Builder{}
	o.Out, o.ErrOut = out, errOut
	o.Namespace, o.Name = "default", "web"
	o.Client = clientOf(c)
	o.DryRun = cmdutil.DryRunClient
	return o, c, out, errOut
}

func TestUndoGolden(t *testing.T) {
	paused := func(d *appsv1.Deployment) { d.Spec.Paused = true }
	cases := []struct {
		name     string
		revision int64
		mutate   func(*appsv1.Deployment)
		code     int
		stderr   string
	}{
		{name: "to-revision-2", revision: 2},
		{name: "previous", revision: 0},
		{name: "skip", revision: 5},
		{name: "refused", revision: 4, mutate: paused, code: ExitError,
			stderr: "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again\n"},
		{name: "not-found", revision: 7, code: ExitError,
			stderr: "error: unable to find specified revision 7 in history (revisions of deployment \"web\": 2, 3, 4, 5)\n"},
	}
	warning := "Warning: resource deployment.apps/web was previously managed with 'kubectl apply'. Rolling back will not update the kubectl.kubernetes.io/last-applied-configuration annotation, which may cause unexpected behavior on future 'kubectl apply' operations. Consider using 'kubectl apply' with your previous configuration file instead.\n"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, c, out, errOut := newUndoTest(t, tc.mutate)
			o.ToRevision = tc.revision
			code, msg := exit(o.Run)
			if code != tc.code || msg != tc.stderr {
				t.Errorf("exit %d %q, want %d %q", code, msg, tc.code, tc.stderr)
			}
			if errOut.String() != warning {
				t.Errorf("stderr %q, want kubectl's warning %q", errOut.String(), warning)
			}
			if w := writes(c); len(w) != 0 {
				t.Errorf("a client dry run wrote: %v", w)
			}
			testutil.Golden(t, "undo-"+tc.name, []byte(out.String()))
		})
	}
}

func TestUndoApplies(t *testing.T) {
	o, c, out, _ := newUndoTest(t, nil)
	o.DryRun, o.ToRevision = cmdutil.DryRunNone, 2
	mustRun(t, o.Run)
	w := writes(c)
	if len(w) != 1 {
		t.Fatalf("writes %v, want one patch", w)
	}
	p := w[0].(k8stesting.PatchAction)
	if p.GetPatchType() != types.JSONPatchType || !strings.HasPrefix(string(p.GetPatch()), `[{"op":"test","path":"/metadata/resourceVersion","value":"1234"},{"op":"replace","path":"/spec/template"`) {
		t.Errorf("patch %s %s", p.GetPatchType(), p.GetPatch())
	}
	d, err := c.AppsV1().Deployments("default").Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.19" {
		t.Errorf("image after undo %q, want nginx:1.19", img)
	}
	if _, ok := d.Annotations["example.com/team"]; ok {
		t.Errorf("annotation example.com/team survived the rollback: %v", d.Annotations)
	}
	if !strings.HasSuffix(out.String(), "\ndeployment.apps/web rolled back\n") {
		t.Errorf("output does not end with kubectl's line:\n%s", out)
	}
}

func TestUndoPatchOnly(t *testing.T) {
	o, c, out, _ := newUndoTest(t, nil)
	o.DryRun, o.ToRevision, o.PatchOnly = cmdutil.DryRunNone, 4, true
	mustRun(t, o.Run)
	if w := writes(c); len(w) != 0 {
		t.Errorf("--patch-only wrote: %v", w)
	}
	testutil.Golden(t, "undo-patch-only.json", []byte(out.String()))
	if !strings.HasPrefix(out.String(), `[{"op":"replace","path":"/spec/template","value":{"metadata":{"creationTimestamp"`) &&
		!strings.HasPrefix(out.String(), `[{"op":"replace","path":"/spec/template","value":{"metadata":{"labels"`) {
		t.Errorf("not kubectl's patch: %s", out)
	}
}

func TestUndoServerDryRun(t *testing.T) {
	o, c, out, _ := newUndoTest(t, nil)
	o.DryRun, o.ToRevision = cmdutil.DryRunServer, 2
	mustRun(t, o.Run)
	w := writes(c)
	if len(w) != 1 {
		t.Fatalf("writes %v, want one dry-run patch", w)
	}
	// The fake records the options only through the action's type; the dry run is checked
	// on the real cluster (test/e2e). Here: the output names it and kubectl's line ends it.
	if !strings.Contains(out.String(), "Server dry run: accepted") || !strings.HasSuffix(out.String(), "deployment.apps/web rolled back (server dry run)\n") {
		t.Errorf("output:\n%s", out)
	}
}

func TestUndoBadInput(t *testing.T) {
	t.Run("negative revision", func(t *testing.T) {
		o, c, _, _ := newUndoTest(t, nil)
		o.DryRun, o.ToRevision = cmdutil.DryRunNone, -1
		code, msg := exit(o.Run)
		if code != ExitError || !strings.HasPrefix(msg, "error: unable to find specified revision -1 in history") || len(writes(c)) != 0 {
			t.Errorf("exit %d %q writes %v", code, msg, writes(c))
		}
	})
	t.Run("unknown revision", func(t *testing.T) {
		o, c, _, _ := newUndoTest(t, nil)
		o.DryRun, o.ToRevision = cmdutil.DryRunNone, 1
		code, msg := exit(o.Run)
		if code != ExitError || !strings.HasPrefix(msg, "error: unable to find specified revision 1 in history") || len(writes(c)) != 0 {
			t.Errorf("exit %d %q writes %v", code, msg, writes(c))
		}
	})
	t.Run("not a Deployment", func(t *testing.T) {
		// StatefulSets and DaemonSets have their own path (kinds.go); a ReplicaSet has none.
		out, errOut, code := runRoot(t, "", "undo", "replicaset/web", "--to-revision", "2")
		if code != ExitError || errOut != "error: rollplan works on Deployments; got replicasets\n" || out != "" {
			t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
		}
	})
	t.Run("forbidden to read", func(t *testing.T) {
		o, c, out, _ := newUndoTest(t, nil)
		o.DryRun, o.ToRevision = cmdutil.DryRunNone, 2
		c.PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
		})
		code, msg := exit(o.Run)
		if code != ExitError || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "forbidden") || !strings.Contains(msg, "kubectl auth can-i get deployments.apps") {
			t.Errorf("exit %d %q", code, msg)
		}
		if len(writes(c)) != 0 || out.Len() != 0 {
			t.Errorf("writes %v, stdout %q", writes(c), out)
		}
	})
	t.Run("forbidden to patch", func(t *testing.T) {
		o, c, _, _ := newUndoTest(t, nil)
		o.DryRun, o.ToRevision = cmdutil.DryRunNone, 2
		c.PrependReactor("patch", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
		})
		code, msg := exit(o.Run)
		want := `error: failed restoring revision 2: patch deployments.apps "web" in namespace "default": forbidden: you need permission to patch deployments.apps in namespace "default"`
		if code != ExitError || !strings.HasPrefix(msg, want) || strings.Count(msg, "\n") != 1 {
			t.Errorf("exit %d %q, want %q...", code, msg, want)
		}
		d, _ := c.AppsV1().Deployments("default").Get(t.Context(), "web", metav1.GetOptions{})
		if d.Spec.Template.Spec.Containers[0].Image != "nginx:1.20" {
			t.Errorf("the Deployment changed: %s", d.Spec.Template.Spec.Containers[0].Image)
		}
	})
	t.Run("changed after the preview", func(t *testing.T) {
		o, c, _, _ := newUndoTest(t, nil)
		o.DryRun, o.ToRevision = cmdutil.DryRunNone, 2
		// What the API server answers to a failed JSON patch test: a bare 422.
		c.PrependReactor("patch", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
			d, _ := c.Tracker().Get(appsv1.SchemeGroupVersion.WithResource("deployments"), "default", "web")
			d.(*appsv1.Deployment).ResourceVersion = "1300"
			_ = c.Tracker().Update(appsv1.SchemeGroupVersion.WithResource("deployments"), d, "default")
			return true, nil, apierrors.NewGenericServerResponse(422, "PATCH", schema.GroupResource{}, "", "testing value /metadata/resourceVersion failed", 0, false)
		})
		code, msg := exit(o.Run)
		want := "error: failed restoring revision 2: patch deployments.apps \"web\" in namespace \"default\": the Deployment changed after the preview (it was at resourceVersion 1234): nothing was written; run the command again to preview the new state\n"
		if code != ExitError || msg != want {
			t.Errorf("exit %d %q, want %q", code, msg, want)
		}
	})
}

package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// fleetOf returns Deployments named names on one fake clientset, each with revisions
// ReplicaSets (nginx:1.11 as revision 1 ... nginx:1.1N as revision N, the last one current
// with 3 pods); revisions[name] overrides the default of 3; paused Deployments are paused.
func fleetOf(names []string, revisions map[string]int, paused ...string) *fake.Clientset {
	var objs []runtime.Object
	for i, name := range names {
		n := 3
		if r, ok := revisions[name]; ok {
			n = r
		}
		b := testutil.Deployment(name).Replicas(3).Image(fmt.Sprintf("nginx:1.1%d", n)).Revision(int64(n)).
			ResourceVersion(fmt.Sprint(100+i)).Status(3, 3, 3, 3)
		for _, p := range paused {
			if p == name {
				b = b.Paused(true)
			}
		}
		d := b.Build()
		objs = append(objs, d)
		for r := 1; r <= n; r++ {
			var replicas int32
			if r == n {
				replicas = 3
			}
			objs = append(objs, testutil.ReplicaSetFor(testutil.Deployment(name).Replicas(3).Image(fmt.Sprintf("nginx:1.1%d", r)).Build()).
				OwnedBy(d).Created(r).Replicas(replicas).Revision(int64(r)).Build())
		}
	}
	return fake.NewClientset(objs...)
}

// selectMany makes w act on names in "default", as several names or -l select them.
func selectMany(w *Writer, c *fake.Clientset, names ...string) {
	w.Refs = nil
	for _, n := range names {
		w.Refs = append(w.Refs, target.Ref{Namespace: "default", Name: n})
	}
	w.Several = true
	w.Client = clientOf(c)
}

func newManyAction(verb rollout.Verb, c *fake.Clientset, dry cmdutil.DryRunStrategy, names ...string) (*ActionOptions, *strings.Builder, *strings.Builder) {
	streams, _, _ := testStreams()
	o := NewActionOptions(verb, streams)
	out, errOut := &strings.Builder{}, &strings.Builder{}
	o.Out, o.ErrOut = out, errOut
	o.Now = func() time.Time { return time.Date(2024, 1, 1, 1, 0, 0, 0, time.UTC) }
	o.DryRun = dry
	o.Terminal = func() bool { return false }
	selectMany(&o.Writer, c, names...)
	return o, out, errOut
}

// patched returns the names of the Deployments patched (not dry run), in order.
func patched(c *fake.Clientset) []string {
	var out []string
	for _, a := range writes(c) {
		p, ok := a.(k8stesting.PatchActionImpl)
		if !ok {
			out = append(out, a.GetVerb()+"?")
			continue
		}
		if len(p.PatchOptions.DryRun) == 0 {
			out = append(out, p.GetName())
		}
	}
	return out
}

func lines(s, prefix string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestManyRestart: three of four selected Deployments are restarted, the missing one is
// named on stderr, and the exit is 1 naming it.
func TestManyRestart(t *testing.T) {
	c := fleetOf([]string{"a", "b", "c"}, nil)
	o, out, errOut := newManyAction(rollout.VerbRestart, c, cmdutil.DryRunNone, "a", "x", "b", "c")
	o.Yes = true
	code, msg := exit(o.Run)
	if code != ExitError || msg != "error: restart failed for 1 of 4 Deployments: deployment.apps/x\n" {
		t.Errorf("exit %d %q", code, msg)
	}
	if got := strings.Join(patched(c), ","); got != "a,b,c" {
		t.Errorf("patched %s, want a,b,c", got)
	}
	if got := strings.Join(lines(out.String(), "deployment.apps/"), "|"); got != "deployment.apps/a restarted|deployment.apps/b restarted|deployment.apps/c restarted" {
		t.Errorf("result lines %q", got)
	}
	if n := len(lines(out.String(), "Restart:     deployment.apps/")); n != 3 {
		t.Errorf("%d previews, want 3:\n%s", n, out)
	}
	if got := errOut.String(); !strings.HasPrefix(got, `error: deployment.apps/x: deployments.apps "x" not found in namespace "default"`) || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q", got)
	}
	for _, name := range []string{"a", "b", "c"} {
		d, _ := c.AppsV1().Deployments("default").Get(t.Context(), name, metav1.GetOptions{})
		if d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] != "2024-01-01T01:00:00Z" {
			t.Errorf("%s not restarted: %v", name, d.Spec.Template.Annotations)
		}
	}
}

// TestManyContinuesPastWriteFailures: a Deployment changed after its preview (the guard
// refuses) and one the user may not patch are named; the others are written.
func TestManyContinuesPastWriteFailures(t *testing.T) {
	c := fleetOf([]string{"a", "b", "c", "d"}, nil)
	c.PrependReactor("patch", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
		gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
		switch a.(k8stesting.PatchAction).GetName() {
		case "b":
			return true, nil, apierrors.NewConflict(gr, "b", nil)
		case "c":
			return true, nil, apierrors.NewForbidden(gr, "c", fmt.Errorf("RBAC"))
		}
		return false, nil, nil
	})
	o, out, errOut := newManyAction(rollout.VerbPause, c, cmdutil.DryRunNone, "a", "b", "c", "d")
	o.Yes = true
	code, msg := exit(o.Run)
	if code != ExitError || msg != "error: pause failed for 2 of 4 Deployments: deployment.apps/b, deployment.apps/c\n" {
		t.Errorf("exit %d %q", code, msg)
	}
	if got := strings.Join(lines(out.String(), "deployment.apps/"), "|"); got != "deployment.apps/a paused|deployment.apps/d paused" {
		t.Errorf("result lines %q", got)
	}
	errs := lines(errOut.String(), "error: ")
	if len(errs) != 2 || !strings.HasPrefix(errs[0], "error: deployment.apps/b: ") || !strings.Contains(errs[0], "changed after the preview") ||
		!strings.HasPrefix(errs[1], "error: deployment.apps/c: ") || !strings.Contains(errs[1], "forbidden") {
		t.Errorf("stderr:\n%s", errOut)
	}
	for name, want := range map[string]bool{"a": true, "b": false, "c": false, "d": true} {
		d, _ := c.AppsV1().Deployments("default").Get(t.Context(), name, metav1.GetOptions{})
		if d.Spec.Paused != want {
			t.Errorf("%s paused %v, want %v", name, d.Spec.Paused, want)
		}
	}
}

// TestManyRefusals: kubectl's refusal of one (pause of a paused Deployment) is named, with
// kubectl's words, and the others are paused.
func TestManyRefusals(t *testing.T) {
	c := fleetOf([]string{"a", "b", "c"}, nil, "b")
	o, out, errOut := newManyAction(rollout.VerbPause, c, cmdutil.DryRunNone, "a", "b", "c")
	o.Yes = true
	code, _ := exit(o.Run)
	if code != ExitError || strings.Join(patched(c), ",") != "a,c" {
		t.Errorf("exit %d, patched %v", code, patched(c))
	}
	if got := errOut.String(); got != "error: deployment.apps/b: deployments.apps \"b\" is already paused\n" {
		t.Errorf("stderr %q", got)
	}
	if n := len(lines(out.String(), "deployment.apps/")); n != 2 {
		t.Errorf("%d result lines:\n%s", n, out)
	}
}

// TestManyConfirmation: several Deployments ask once on a terminal (yes writes all, no
// writes nothing and exits 0), refuse to write without a terminal unless --yes, and a dry run
// never asks.
func TestManyConfirmation(t *testing.T) {
	names := []string{"a", "b", "c"}
	t.Run("yes on a terminal", func(t *testing.T) {
		c := fleetOf(names, nil)
		o, _, errOut := newManyAction(rollout.VerbRestart, c, cmdutil.DryRunNone, names...)
		o.Terminal = func() bool { return true }
		o.In = strings.NewReader("y\n")
		mustRun(t, o.Run)
		if got := errOut.String(); got != `restart 3 Deployments in namespace "default" as previewed above? [y/N]: ` {
			t.Errorf("stderr %q", got)
		}
		if strings.Join(patched(c), ",") != "a,b,c" {
			t.Errorf("patched %v", patched(c))
		}
	})
	t.Run("no on a terminal", func(t *testing.T) {
		c := fleetOf(names, nil)
		o, out, errOut := newManyAction(rollout.VerbRestart, c, cmdutil.DryRunNone, names...)
		o.Terminal = func() bool { return true }
		o.In = strings.NewReader("n\n")
		code, _ := exit(o.Run)
		if code != ExitOK || len(writes(c)) != 0 || len(lines(out.String(), "deployment.apps/")) != 0 {
			t.Errorf("exit %d, writes %v\n%s", code, writes(c), out)
		}
		if !strings.HasSuffix(errOut.String(), "restart: declined, nothing was changed\n") {
			t.Errorf("stderr %q", errOut)
		}
	})
	t.Run("end of input declines", func(t *testing.T) {
		c := fleetOf(names, nil)
		o, _, _ := newManyAction(rollout.VerbPause, c, cmdutil.DryRunNone, names...)
		o.Terminal = func() bool { return true }
		if code, _ := exit(o.Run); code != ExitOK || len(writes(c)) != 0 {
			t.Errorf("exit %d, writes %v", code, writes(c))
		}
	})
	t.Run("a failed preview is left out of the question", func(t *testing.T) {
		c := fleetOf([]string{"a", "c"}, nil)
		o, _, errOut := newManyAction(rollout.VerbRestart, c, cmdutil.DryRunNone, "a", "b", "c")
		o.Terminal = func() bool { return true }
		o.In = strings.NewReader("yes\n")
		code, _ := exit(o.Run)
		if !strings.Contains(errOut.String(), `restart 2 Deployments in namespace "default" as previewed above (1 more failed above and is left out)? [y/N]: `) ||
			code != ExitError || strings.Join(patched(c), ",") != "a,c" {
			t.Errorf("exit %d patched %v stderr %q", code, patched(c), errOut)
		}
	})
	t.Run("no terminal, no --yes: refused before any read", func(t *testing.T) {
		c := fleetOf(names, nil)
		o, out, _ := newManyAction(rollout.VerbRestart, c, cmdutil.DryRunNone, names...)
		code, msg := exit(o.Run)
		if code != ExitError || msg != "error: standard input is not a terminal, so restart cannot ask before changing several Deployments: pass --yes to restart them without asking, or --dry-run=client to preview only\n" ||
			len(c.Actions()) != 0 || out.Len() != 0 {
			t.Errorf("exit %d %q, actions %v", code, msg, c.Actions())
		}
	})
	for _, dry := range []cmdutil.DryRunStrategy{cmdutil.DryRunClient, cmdutil.DryRunServer} {
		t.Run(fmt.Sprintf("dry run %d never asks and writes nothing", dry), func(t *testing.T) {
			c := fleetOf(names, nil)
			o, out, errOut := newManyAction(rollout.VerbRestart, c, dry, names...)
			mustRun(t, o.Run)
			suffix := DryRunSuffixFor(dry)
			want := "deployment.apps/a restarted" + suffix + "|deployment.apps/b restarted" + suffix + "|deployment.apps/c restarted" + suffix
			if got := strings.Join(lines(out.String(), "deployment.apps/"), "|"); got != want || errOut.Len() != 0 || len(patched(c)) != 0 {
				t.Errorf("results %q, stderr %q, patched %v", got, errOut, patched(c))
			}
			if dry == cmdutil.DryRunServer && len(writes(c)) != 3 {
				t.Errorf("server dry run sent %d patches, want 3", len(writes(c)))
			}
			for _, name := range names {
				d, _ := c.AppsV1().Deployments("default").Get(t.Context(), name, metav1.GetOptions{})
				if _, ok := d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"]; ok && dry == cmdutil.DryRunClient {
					t.Errorf("%s changed by a client dry run", name)
				}
			}
		})
	}
}

// DryRunSuffixFor is printer.DryRunSuffix, spelled out for the test.
func DryRunSuffixFor(dry cmdutil.DryRunStrategy) string {
	switch dry {
	case cmdutil.DryRunClient:
		return " (dry run)"
	case cmdutil.DryRunServer:
		return " (server dry run)"
	}
	return ""
}

// TestManyJSON: -o json over several Deployments prints one RolloutPlanList, and kubectl's
// result lines go to stderr.
func TestManyJSON(t *testing.T) {
	c := fleetOf([]string{"a", "b"}, nil)
	o, out, errOut := newManyAction(rollout.VerbRestart, c, cmdutil.DryRunClient, "a", "b")
	o.Output.Output = "json"
	mustRun(t, o.Run)
	var list v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out.String()), &list); err != nil {
		t.Fatalf("stdout is not one object: %v\n%s", err, out)
	}
	if list.Kind != "RolloutPlanList" || len(list.Items) != 2 || list.Items[0].Deployment.Name != "a" || list.Items[1].Deployment.Name != "b" ||
		!list.Items[0].NewReplicaSet.Created {
		t.Errorf("list %+v", list)
	}
	if errOut.String() != "deployment.apps/a restarted (dry run)\ndeployment.apps/b restarted (dry run)\n" {
		t.Errorf("stderr %q", errOut)
	}
}

func newManyUndo(c *fake.Clientset, dry cmdutil.DryRunStrategy, names ...string) (*UndoOptions, *strings.Builder, *strings.Builder) {
	streams, _, _ := testStreams()
	o := NewUndoOptions(streams)
	out, errOut := &strings.Builder{}, &strings.Builder{}
	o.Out, o.ErrOut = out, errOut
	o.DryRun = dry
	o.Terminal = func() bool { return false }
	selectMany(&o.Writer, c, names...)
	return o, out, errOut
}

// TestManyUndo: undo --to-revision 3 over a, b and c, where b has only two revisions: b is
// named with kubectl's message, a and c are rolled back to revision 3's template.
func TestManyUndo(t *testing.T) {
	c := fleetOf([]string{"a", "b", "c"}, map[string]int{"a": 4, "b": 2, "c": 5})
	o, out, errOut := newManyUndo(c, cmdutil.DryRunNone, "a", "b", "c")
	o.ToRevision, o.Yes = 3, true
	code, msg := exit(o.Run)
	if code != ExitError || msg != "error: undo failed for 1 of 3 Deployments: deployment.apps/b\n" {
		t.Errorf("exit %d %q", code, msg)
	}
	if got := errOut.String(); got != "error: deployment.apps/b: unable to find specified revision 3 in history (revisions of deployment \"b\": 1, 2)\n" {
		t.Errorf("stderr %q", got)
	}
	if got := strings.Join(lines(out.String(), "deployment.apps/"), "|"); got != "deployment.apps/a rolled back|deployment.apps/c rolled back" {
		t.Errorf("result lines %q", got)
	}
	if got := strings.Join(patched(c), ","); got != "a,c" {
		t.Errorf("patched %s", got)
	}
	for name, want := range map[string]string{"a": "nginx:1.13", "b": "nginx:1.12", "c": "nginx:1.13"} {
		d, _ := c.AppsV1().Deployments("default").Get(t.Context(), name, metav1.GetOptions{})
		if got := d.Spec.Template.Spec.Containers[0].Image; got != want {
			t.Errorf("%s: image %s, want %s", name, got, want)
		}
	}
	// A skipped rollback is kubectl's success line, not a failure.
	c2 := fleetOf([]string{"a", "b"}, map[string]int{"a": 3, "b": 4})
	o2, out2, _ := newManyUndo(c2, cmdutil.DryRunClient, "a", "b")
	o2.ToRevision = 3
	mustRun(t, o2.Run)
	if got := strings.Join(lines(out2.String(), "deployment.apps/"), "|"); got != "deployment.apps/a skipped rollback (current template already matches revision 3) (dry run)|deployment.apps/b rolled back (dry run)" {
		t.Errorf("result lines %q", got)
	}
}

// TestManyUndoPatchOnly: --patch-only and -o print one patch; with several Deployments they
// are refused before anything is read.
func TestManyUndoPatchOnly(t *testing.T) {
	c := fleetOf([]string{"a", "b"}, nil)
	o, _, _ := newManyUndo(c, cmdutil.DryRunNone, "a", "b")
	o.PatchOnly = true
	code, msg := exit(o.Run)
	if code != ExitError || msg != "error: --patch-only and -o print the patch of one Deployment: 2 selected; name one\n" || len(c.Actions()) != 0 {
		t.Errorf("exit %d %q actions %v", code, msg, c.Actions())
	}
}

// TestOneSelectedBySelectorStillConfirms: a selection that is not one named Deployment asks
// even when it finds one, and names its failure.
func TestOneSelectedBySelectorStillConfirms(t *testing.T) {
	c := fleetOf([]string{"a"}, nil, "a")
	o, _, errOut := newManyAction(rollout.VerbRestart, c, cmdutil.DryRunClient, "a")
	code, msg := exit(o.Run)
	if code != ExitError || msg != "error: restart failed for 1 of 1 Deployment: deployment.apps/a\n" ||
		errOut.String() != "error: deployment.apps/a: deployments.apps \"a\" can't restart paused deployment (run rollout resume first)\n" {
		t.Errorf("exit %d %q stderr %q", code, msg, errOut)
	}
}

// TestManyNoneSelected: a selector matching nothing says so as kubectl does and exits 0.
func TestManyNoneSelected(t *testing.T) {
	c := fleetOf([]string{"a"}, nil)
	o, out, errOut := newManyAction(rollout.VerbRestart, c, cmdutil.DryRunNone)
	o.Namespace = "default"
	mustRun(t, o.Run)
	if out.Len() != 0 || errOut.String() != "No resources found in default namespace.\n" || len(c.Actions()) != 0 {
		t.Errorf("stdout %q stderr %q actions %v", out, errOut, c.Actions())
	}
}

// TestManyFlags: the selection flags through the command line. A run that would have to ask
// without a terminal is refused before -l/--all list anything (the server given is not
// reachable: any request would fail otherwise); kubectl's selection errors are one line.
func TestManyFlags(t *testing.T) {
	const noServer = "--server=http://127.0.0.1:1"
	refused := func(verb string) string {
		return "error: standard input is not a terminal, so " + verb + " cannot ask before changing several Deployments: pass --yes to " + verb + " them without asking, or --dry-run=client to preview only\n"
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"restart", "deploy", "-l", "app=x"}, refused("restart")},
		{[]string{"pause", "--all"}, refused("pause")},
		{[]string{"resume", "deploy/a", "deploy/b"}, refused("resume")},
		{[]string{"undo", "deployment", "a", "b", "--to-revision", "2"}, refused("undo")},
		{[]string{"restart", "-l", "app=x", "--all"}, "error: setting 'all' parameter but found a non empty selector: give -l/--selector or --all, not both\n"},
		{[]string{"pause", "deploy/a", "-l", "app=x"}, "error: name cannot be provided when a selector is specified: give names, or -l/--selector or --all, not both\n"},
		{[]string{"undo", "deploy/a", "deploy/b", "--patch-only", "--dry-run=client"}, "error: --patch-only and -o print the patch of one Deployment: 2 selected; name one\n"},
		{[]string{"restart", "deploy/a", "rs/b", "--yes"}, "error: rollplan works on Deployments; got replicasets\n"},
	} {
		out, errOut, code := runRoot(t, "", append([]string{"-n", "shop", noServer}, tc.args...)...)
		if code != ExitError || errOut != tc.want || out != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q, want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestDriveRefusesASelection: drive and abort stay one Deployment per run; -l, --all or
// several names are refused in one line before anything is asked of the cluster.
func TestDriveRefusesASelection(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"drive", "-l", "app=x", "--image", "app=nginx:1.27", "--yes"}, "error: -l app=x selects Deployments: drive works on one Deployment per run; run it once per Deployment (deploy/NAME)\n"},
		{[]string{"drive", "--all", "--restart"}, "error: --all selects every Deployment in the namespace: drive works on one Deployment per run; run it once per Deployment (deploy/NAME)\n"},
		{[]string{"drive", "deploy/a", "deploy/b", "--restart"}, "error: 2 Deployments given ([a b]): drive works on one Deployment per run; run it once per Deployment (deploy/NAME)\n"},
		{[]string{"abort", "--selector", "tier=x", "--yes"}, "error: -l tier=x selects Deployments: abort works on one Deployment per run; run it once per Deployment (deploy/NAME)\n"},
	} {
		out, errOut, code := runRoot(t, "", append([]string{"-n", "shop", "--server=http://127.0.0.1:1"}, tc.args...)...)
		if code != ExitError || errOut != tc.want || out != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q, want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestResumeHeld: resume of a Deployment drive holds shows the hand-back and says
// "handed back by drive", alone (as always) and beside a plain paused Deployment.
func TestResumeHeld(t *testing.T) {
	ds, _ := newDriveStatusTest(t)
	cs, err := ds.Client()
	if err != nil {
		t.Fatal(err)
	}
	c := cs.(*fake.Clientset)
	api := testutil.Deployment("api").Replicas(2).Paused(true).Build()
	if err := c.Tracker().Add(api); err != nil {
		t.Fatal(err)
	}
	if err := c.Tracker().Add(testutil.ReplicaSetFor(api).OwnedBy(api).Build()); err != nil {
		t.Fatal(err)
	}
	newResume := func() (*ActionOptions, *strings.Builder) {
		streams, _, _ := testStreams()
		o := NewActionOptions(rollout.VerbResume, streams)
		out := &strings.Builder{}
		o.Out = out
		o.Client = clientOf(c)
		o.Now = func() time.Time { return driveStatusNow }
		o.DryRun = cmdutil.DryRunClient
		return o, out
	}

	one, out := newResume()
	one.Namespace, one.Name = "default", "web"
	mustRun(t, one.Run)
	if !strings.HasPrefix(out.String(), "deployment default/web is held by kubectl rollplan drive") ||
		!strings.HasSuffix(out.String(), "\ndeployment.apps/web handed back by drive (dry run)\n") {
		t.Errorf("one held Deployment:\n%s", out)
	}

	many, out := newResume()
	selectMany(&many.Writer, c, "web", "api")
	mustRun(t, many.Run)
	if got := strings.Join(lines(out.String(), "deployment.apps/"), "|"); got != "deployment.apps/web handed back by drive (dry run)|deployment.apps/api resumed (dry run)" {
		t.Errorf("result lines %q\n%s", got, out)
	}
	if len(writes(c)) != 0 {
		t.Errorf("a dry run wrote: %v", writes(c))
	}
}

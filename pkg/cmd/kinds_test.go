package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

var kindsNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// kindsFixture returns StatefulSet or DaemonSet db (image db:3, resourceVersion 42) with
// three ControllerRevisions (db:1, db:2, db:3) and two pods on revision 3 (one Ready).
func kindsFixture(t *testing.T, kind target.Kind) (workload.Workload, []runtime.Object) {
	t.Helper()
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: "uid-db", ResourceVersion: "42"}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "db:3"}}},
	}
	var w workload.Workload
	if kind == target.KindStatefulSet {
		w.StatefulSet = &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: meta,
			Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](2), Selector: sel, Template: tmpl, RevisionHistoryLimit: ptr.To[int32](2),
				UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}}}
	} else {
		w.DaemonSet = &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}, ObjectMeta: meta,
			Spec: appsv1.DaemonSetSpec{Selector: sel, Template: tmpl, RevisionHistoryLimit: ptr.To[int32](2),
				UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}}}
	}
	owner := []metav1.OwnerReference{*metav1.NewControllerRef(w.Meta(), appsv1.SchemeGroupVersion.WithKind(string(kind)))}
	objs := []runtime.Object{w.Object()}
	for n := 1; n <= 3; n++ {
		c, _ := workload.Of(w.Object().DeepCopyObject())
		c.Template().Spec.Containers[0].Image = fmt.Sprintf("db:%d", n)
		data, err := workload.TemplatePatch(c)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("db-h%d", n), OwnerReferences: owner,
				Labels: map[string]string{"app": "db", workload.HashLabel: fmt.Sprintf("h%d", n)}},
			Data: runtime.RawExtension{Raw: data}, Revision: int64(n),
		})
	}
	for i, ready := range []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse} {
		objs = append(objs, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("db-%d", i), OwnerReferences: owner,
				Labels: map[string]string{"app": "db", workload.HashLabel: "h3"}},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}},
		})
	}
	return w, objs
}

func kindsOptions(verb string, c *fake.Clientset, args ...string) (*KindsOptions, *bytes.Buffer, *bytes.Buffer) {
	streams, out, errOut := testStreams()
	ka, _, _ := target.ParseKindArgs(args, true)
	return &KindsOptions{KindsVerb: pipeline.KindsVerb{Verb: verb, Args: ka, Namespace: "ns", Client: clientOf(c), Now: func() time.Time { return kindsNow },
		Terminal: func() bool { return false }, FieldManager: pipeline.FieldManager}, IOStreams: streams}, out, errOut
}

func TestKindsHistory(t *testing.T) {
	for _, kind := range []target.Kind{target.KindStatefulSet, target.KindDaemonSet} {
		_, objs := kindsFixture(t, kind)
		c := fake.NewClientset(objs...)
		o, out, _ := kindsOptions("history", c, strings.ToLower(string(kind))+"/db")
		if err := o.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, want := range []string{"* 3 ", "db-h3", "1/2", "Cleanup:  once the next rollout to a new template completes, revisionHistoryLimit deletes revision 1"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s history: no %q in\n%s", kind, want, s)
			}
		}
		o, out, _ = kindsOptions("history", c, strings.ToLower(string(kind))+"/db")
		o.Output = "json"
		if err := o.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		var h v1alpha1.WorkloadHistory
		if err := json.Unmarshal(out.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		if h.Kind != "WorkloadHistory" || h.Workload.Kind != string(kind) || len(h.Revisions) != 3 || h.Revisions[2].Pods != 2 || *h.Workload.TemplateRevision != 3 {
			t.Errorf("%s -o json: %+v", kind, h)
		}
		o, _, _ = kindsOptions("history", c, strings.ToLower(string(kind))+"/db")
		o.Revision = 7
		if err := o.Run(context.Background()); err == nil || err.Error() != "unable to find specified revision 7 in history" {
			t.Errorf("%s --revision 7: %v", kind, err)
		}
	}
}

// patches returns the bodies of the fake's patch actions.
func patches(c *fake.Clientset) []string {
	var out []string
	for _, a := range writes(c) {
		if p, ok := a.(k8stesting.PatchAction); ok {
			out = append(out, string(p.GetPatch()))
		}
	}
	return out
}

func TestKindsUndo(t *testing.T) {
	for _, kind := range []target.Kind{target.KindStatefulSet, target.KindDaemonSet} {
		_, objs := kindsFixture(t, kind)
		rev1 := objs[1].(*appsv1.ControllerRevision)
		c := fake.NewClientset(objs...)
		name := strings.ToLower(string(kind)) + "/db"
		o, out, _ := kindsOptions("undo", c, name)
		o.ToRevision = 1
		if err := o.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		// kubectl's patch (the revision's data), guarded by the resourceVersion read.
		want := `{"metadata":{"resourceVersion":"42"},` + strings.TrimPrefix(string(rev1.Data.Raw), "{")
		if got := patches(c); len(got) != 1 || !jsonEqual(got[0], want) {
			t.Errorf("%s undo: patches %v, want %s", kind, got, want)
		}
		if !strings.Contains(out.String(), "-  - image: db:3") || !strings.HasSuffix(out.String(), strings.ToLower(string(kind))+".apps/db rolled back\n") {
			t.Errorf("%s undo output:\n%s", kind, out)
		}
		// -o json: kubectl's patch alone on stdout; a server dry run sends it as a dry run.
		c = fake.NewClientset(objs...)
		o, out, errOut := kindsOptions("undo", c, name)
		o.ToRevision, o.Output, o.DryRun = 2, "json", cmdutil.DryRunServer
		if err := o.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if out.String() != string(objs[2].(*appsv1.ControllerRevision).Data.Raw)+"\n" || !strings.Contains(errOut.String(), "rolled back (server dry run)") {
			t.Errorf("%s undo -o json: %q %q", kind, out, errOut)
		}
		if a := writes(c); len(a) != 1 || len(a[0].(k8stesting.PatchActionImpl).PatchOptions.DryRun) != 1 {
			t.Errorf("%s server dry run: %v", kind, a)
		}
		// Unknown revision: kubectl's error, nothing written.
		c = fake.NewClientset(objs...)
		o, _, _ = kindsOptions("undo", c, name)
		o.ToRevision = 9
		if err := o.Run(context.Background()); err == nil || err.Error() != "unable to find specified revision 9 in history" || len(writes(c)) != 0 {
			t.Errorf("%s undo 9: %v, writes %v", kind, err, writes(c))
		}
	}
}

func TestKindsRestartAndRefusals(t *testing.T) {
	for _, kind := range []target.Kind{target.KindStatefulSet, target.KindDaemonSet} {
		w, objs := kindsFixture(t, kind)
		c := fake.NewClientset(objs...)
		name := strings.ToLower(string(kind)) + "/db"
		o, out, _ := kindsOptions("restart", c, name)
		if err := o.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		kubectl, err := workload.RestartPatch(w, kindsNow)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"metadata":{"resourceVersion":"42"},` + strings.TrimPrefix(string(kubectl), "{")
		if got := patches(c); len(got) != 1 || !jsonEqual(got[0], want) || !strings.Contains(got[0], `"kubectl.kubernetes.io/restartedAt":"2026-03-04T05:06:07Z"`) {
			t.Errorf("%s restart: %v", kind, got)
		}
		if !strings.HasSuffix(out.String(), strings.ToLower(string(kind))+".apps/db restarted\n") {
			t.Errorf("%s restart output:\n%s", kind, out)
		}
		c = fake.NewClientset(objs...)
		o, out, _ = kindsOptions("restart", c, name)
		o.DryRun = cmdutil.DryRunClient
		if err := o.Run(context.Background()); err != nil || len(writes(c)) != 0 || !strings.Contains(out.String(), "restarted (dry run)") {
			t.Errorf("%s restart --dry-run=client: %v %v %s", kind, err, writes(c), out)
		}
		for _, verb := range []string{"pause", "resume"} {
			c = fake.NewClientset(objs...)
			o, _, _ = kindsOptions(verb, c, name)
			err := o.Run(context.Background())
			want := fmt.Sprintf(`%s.apps "db" %sing is not supported`, strings.ToLower(string(kind))+"s", strings.TrimSuffix(verb, "e"))
			if err == nil || !strings.HasPrefix(err.Error(), want) || len(c.Actions()) != 0 {
				t.Errorf("%s %s: %v", kind, verb, err)
			}
		}
	}
}

func TestKindsSeveralNeedYes(t *testing.T) {
	_, objs := kindsFixture(t, target.KindStatefulSet)
	c := fake.NewClientset(objs...)
	o, _, _ := kindsOptions("restart", c, "sts")
	o.All = true
	if err := o.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "pass --yes") || len(c.Actions()) != 0 {
		t.Errorf("restart sts --all without a terminal: %v", err)
	}
	// Two named, one question on a terminal: "y" restarts both.
	_, dsObjs := kindsFixture(t, target.KindDaemonSet)
	c2 := fake.NewClientset(append(objs[:1:1], dsObjs[0])...)
	o, out, errOut := kindsOptions("restart", c2, "sts/db", "ds/db")
	o.Terminal, o.In = func() bool { return true }, strings.NewReader("y\n")
	if err := o.Run(context.Background()); err != nil || len(patches(c2)) != 2 || !strings.Contains(errOut.String(), `restart 2 StatefulSets and DaemonSets in namespace "ns" as previewed above? [y/N]: `) {
		t.Errorf("restart sts/db ds/db: %v %q %v", err, errOut, patches(c2))
	}
	o, out, _ = kindsOptions("restart", c, "sts")
	o.All, o.Yes = true, true
	if err := o.Run(context.Background()); err != nil || len(patches(c)) != 1 || !strings.Contains(out.String(), "statefulset.apps/db restarted") {
		t.Errorf("restart sts --all --yes: %v %v", err, out)
	}
}

func TestKindsStatus(t *testing.T) {
	w, objs := kindsFixture(t, target.KindStatefulSet)
	w.StatefulSet.Generation, w.StatefulSet.Status.ObservedGeneration, w.StatefulSet.Status.ReadyReplicas = 1, 1, 1
	c := fake.NewClientset(objs...)
	o, out, _ := kindsOptions("status", c, "sts/db")
	// no pod is Ready: the time model has nothing to measure.
	const noETA = "  eta: none: no Ready pod to measure how long pods take (give --pod-ready-after)\n"
	// kubectl's verdict, then where the rollout stands (the fixture's pods have no phase: the
	// planner sees db-0 as not created yet).
	if err := o.Run(context.Background()); err != nil || out.String() != "Waiting for 1 pods to be ready...\n  step 0 of 2 (update revision db-h3); next: Create db-0 (revision h3)\n"+noETA {
		t.Errorf("status: %v %q", err, out)
	}
	// --watch: the verdict changes as the status does; done ends the watch.
	o, out, _ = kindsOptions("status", c, "sts/db")
	o.Watch, o.Timeout = true, 3*time.Second
	done := make(chan error)
	go func() { done <- o.Run(context.Background()) }()
	time.Sleep(200 * time.Millisecond)
	s := w.StatefulSet.DeepCopy()
	s.Status.ReadyReplicas, s.Status.UpdatedReplicas, s.Status.CurrentReplicas = 2, 2, 2
	s.Status.CurrentRevision, s.Status.UpdateRevision = "db-h3", "db-h3"
	if _, err := c.AppsV1().StatefulSets("ns").UpdateStatus(context.Background(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("%v; printed %q", err, out)
	}
	if want := "Waiting for 1 pods to be ready...\n  step 0 of 2 (update revision db-h3); next: Create db-0 (revision h3)\n" + noETA + "statefulset rolling update complete 2 pods at revision db-h3...\n"; out.String() != want {
		t.Errorf("status --watch: %q, want %q", out, want)
	}
}

func TestKindsRouting(t *testing.T) {
	var got []string
	next := func(_ *cobra.Command, args []string) error { got = args; return nil }
	cmd := &cobra.Command{}
	cmd.Flags().StringP("selector", "l", "", "")
	run := kindsRunE(nil, testStreamsOnly(), "history", next)
	for _, args := range [][]string{{"deploy/web"}, {"web"}, {"sts"}, {"deployment", "web"}} {
		got = nil
		if err := run(cmd, args); err != nil || strings.Join(got, " ") != strings.Join(args, " ") {
			t.Errorf("%q: not the Deployment path (%v, %q)", args, err, got)
		}
	}
	if err := run(cmd, []string{"sts/db", "deploy/web"}); err == nil || !strings.Contains(err.Error(), "separate runs") {
		t.Errorf("mixed kinds: %v", err)
	}
}

func testStreamsOnly() genericiooptions.IOStreams { s, _, _ := testStreams(); return s }

func jsonEqual(a, b string) bool {
	var x, y interface{}
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestKindsPauseThroughRoot(t *testing.T) {
	for _, verb := range []string{"pause", "resume"} {
		out, errOut, code := runRoot(t, "", verb, "daemonset/web")
		want := fmt.Sprintf("error: daemonsets.apps \"web\" %sing is not supported: only Deployments can be %sd\n", strings.TrimSuffix(verb, "e"), verb)
		if code != ExitError || errOut != want || out != "" {
			t.Errorf("%s: exit %d stdout %q stderr %q", verb, code, out, errOut)
		}
	}
}

func TestKindsExit(t *testing.T) {
	if err := kindsExit(pipeline.KindsExitNone, ""); err != nil {
		t.Errorf("no exit reason: %v", err)
	}
	for e, want := range map[pipeline.KindsExit]int{pipeline.KindsExitStalled: ExitStalled, pipeline.KindsExitTimedOut: ExitTimedOut, pipeline.KindsExitFailFast: ExitFailFast} {
		var b bytes.Buffer
		if got := HandleError(&b, kindsExit(e, "why")); got != want || b.String() != "error: why\n" {
			t.Errorf("exit reason %d: code %d, printed %q; want %d", e, got, b.String(), want)
		}
	}
}

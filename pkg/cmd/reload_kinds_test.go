package cmd

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// reloadKindsFixture: StatefulSet db and DaemonSet agent (opted in) read every key of
// ConfigMap app, recorded at k=old, now k=v1; StatefulSet new has nothing recorded (first
// sight). No Deployment.
func reloadKindsFixture(t *testing.T) *fake.Clientset {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app", UID: "cm-1"}, Data: map[string]string{"k": "v1"}}
	tmpl := func(recorded string) corev1.PodTemplateSpec {
		t := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}}}}}}}}
		if recorded != "" {
			t.Annotations = map[string]string{reload.ChecksumsAnnotation: recorded}
		}
		return t
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("u-" + name), Generation: 2, ResourceVersion: "1",
			Annotations: map[string]string{reload.ReloadAnnotation: "true"}}
	}
	stale := `{"configmap/app":"old"}`
	stsStatus := appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1, UpdatedReplicas: 1, CurrentRevision: "r", UpdateRevision: "r"}
	rolling := appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}
	return fake.NewClientset(cm,
		&appsv1.StatefulSet{ObjectMeta: meta("db"), Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Template: tmpl(stale), UpdateStrategy: rolling}, Status: stsStatus},
		&appsv1.StatefulSet{ObjectMeta: meta("new"), Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](1), Template: tmpl(""), UpdateStrategy: rolling}, Status: stsStatus},
		&appsv1.DaemonSet{ObjectMeta: meta("agent"), Spec: appsv1.DaemonSetSpec{Template: tmpl(stale),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType}},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 1, UpdatedNumberScheduled: 1, NumberAvailable: 1}},
	)
}

func newReloadKindsTest(t *testing.T, refs ...target.KindRef) (*ReloadOptions, *fake.Clientset, *strings.Builder, *strings.Builder) {
	t.Helper()
	c := reloadKindsFixture(t)
	streams, _, _ := testStreams()
	o := NewReloadOptions(streams)
	out, errOut := &strings.Builder{}, &strings.Builder{}
	o.Out, o.ErrOut = out, errOut
	o.KindArgs = target.KindArgs{Refs: refs}
	o.Namespace = "ns"
	if len(refs) == 0 {
		// "reload sts --all": the opted-in StatefulSets of the namespace, no Deployment.
		o.KindArgs.Kind = target.KindStatefulSet
		o.Select.All = true
	}
	o.Client = clientOf(c)
	o.Terminal = func() bool { return false }
	o.Timeout = 5 * time.Second
	return o, c, out, errOut
}

func kindPatches(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok {
			out = append(out, p.GetResource().Resource+"/"+p.GetName())
		}
	}
	return out
}

func TestReloadKindsNamedDryRunClient(t *testing.T) {
	o, c, out, _ := newReloadKindsTest(t,
		target.KindRef{Kind: target.KindStatefulSet, Namespace: "ns", Name: "db"},
		target.KindRef{Kind: target.KindDaemonSet, Namespace: "ns", Name: "agent"})
	o.DryRun = cmdutil.DryRunClient
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"NAMESPACE   WORKLOAD               CONFIG                                             ACTION\n",
		"ns          statefulset.apps/db    configmap/app[*]: changed since the last restart   restart\n",
		"Restart of statefulset ns/db (changed: configmap/app): RollingUpdate: pods replaced highest ordinal first, down to the partition\n",
		"Restart of daemonset ns/agent (changed: configmap/app): RollingUpdate: node by node",
		"\nstatefulset.apps/db restarted (dry run)\ndaemonset.apps/agent restarted (dry run)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.HasPrefix(got, "\n") || strings.Contains(got, "No Deployments selected") || strings.Contains(got, "Nothing to restart") {
		t.Errorf("output speaks of Deployments or starts blank:\n%s", got)
	}
	if p := kindPatches(c); len(p) != 0 {
		t.Errorf("--dry-run=client wrote %v", p)
	}
}

// "reload sts --all --yes": each opted-in StatefulSet restarted or adopted, the DaemonSet
// left alone.
func TestReloadKindsAllYes(t *testing.T) {
	o, c, out, _ := newReloadKindsTest(t)
	o.Yes = true
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"statefulset.apps/db restarted\n",
		"statefulset.apps/new config checksums adopted\n",
		"adopt (record, no restart)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "No Deployments selected") || strings.Contains(got, "Nothing to restart") || strings.Contains(got, "agent") {
		t.Errorf("output speaks of no Deployments though kinds were selected:\n%s", got)
	}
	want := []string{"statefulsets/db", "statefulsets/new"}
	if p := kindPatches(c); strings.Join(p, " ") != strings.Join(want, " ") {
		t.Errorf("patches %v, want %v", p, want)
	}
}

func TestReloadKindsAskOnce(t *testing.T) {
	for _, tc := range []struct {
		answer      string
		wantPatches int
	}{{"y\n", 2}, {"n\n", 0}, {"", 0}} {
		o, c, _, errOut := newReloadKindsTest(t,
			target.KindRef{Kind: target.KindStatefulSet, Namespace: "ns", Name: "db"},
			target.KindRef{Kind: target.KindDaemonSet, Namespace: "ns", Name: "agent"})
		o.Terminal = func() bool { return true }
		o.In = strings.NewReader(tc.answer)
		if err := o.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(errOut.String(), "restart 2 workload(s)? [y/N]: "); n != 1 {
			t.Errorf("answer %q: asked %d times:\n%s", tc.answer, n, errOut.String())
		}
		if p := kindPatches(c); len(p) != tc.wantPatches {
			t.Errorf("answer %q: patches %v, want %d", tc.answer, p, tc.wantPatches)
		}
	}
}

func TestReloadKindsOutputJSON(t *testing.T) {
	o, c, out, errOut := newReloadKindsTest(t,
		target.KindRef{Kind: target.KindStatefulSet, Namespace: "ns", Name: "db"},
		target.KindRef{Kind: target.KindDaemonSet, Namespace: "ns", Name: "agent"})
	o.DryRun = cmdutil.DryRunClient
	o.Output.Output = "json"
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	var list v1alpha1.RolloutPlanList
	if err := json.Unmarshal([]byte(out.String()), &list); err != nil {
		t.Fatalf("stdout is not one JSON list: %v\n%s", err, out.String())
	}
	var got []string
	for _, it := range list.Items {
		if it.Workload == nil || it.Config == nil {
			t.Fatalf("item without workload or config: %+v", it)
		}
		got = append(got, it.Workload.Kind+"/"+it.Workload.Name+":"+it.Config.Decision)
	}
	if want := "StatefulSet/db:restart DaemonSet/agent:restart"; strings.Join(got, " ") != want {
		t.Errorf("items %v, want %s", got, want)
	}
	if !strings.Contains(errOut.String(), "statefulset.apps/db restarted (dry run)") {
		t.Errorf("result lines not on stderr: %q", errOut.String())
	}
	if p := kindPatches(c); len(p) != 0 {
		t.Errorf("--dry-run=client wrote %v", p)
	}
}

package cmd

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// reloadOutputTest is reloadFixture (web: configmap/app changed, secret/db; api: current)
// plus fresh, never restarted, reading key A of app, whose data was written an hour after
// the oldest pod of fresh's ReplicaSet was created (first sight: possibly stale).
func reloadOutputTest(t *testing.T, withSecret bool, output string) (*ReloadOptions, *fake.Clientset, *strings.Builder, *strings.Builder) {
	t.Helper()
	_, objs := reloadFixture(t, withSecret)
	podCreated := testutil.Time(10)
	written := metav1.NewTime(podCreated.Add(time.Hour))
	for _, o := range objs {
		if cm, ok := o.(*corev1.ConfigMap); ok {
			cm.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, Time: &written,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:A":{}}}`)}}}
		}
	}
	fresh := testutil.Deployment("fresh").Replicas(2).ResourceVersion("10").Status(2, 2, 2, 2).Containers(corev1.Container{Name: "app", Image: "nginx:1.18",
		Env: []corev1.EnvVar{{Name: "K", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Key: "A"}}}}}).Build()
	rs := testutil.ReplicaSetFor(fresh).OwnedBy(fresh).Created(1).Replicas(2).Revision(1).Build()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-x", Namespace: rs.Namespace, Labels: rs.Spec.Template.Labels,
		CreationTimestamp: podCreated, OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}}}
	objs = append(objs, fresh, rs, pod)
	c := fake.NewClientset(objs...)
	streams, _, _ := testStreams()
	o := NewReloadOptions(streams)
	out, errOut := &strings.Builder{}, &strings.Builder{}
	o.Out, o.ErrOut = out, errOut
	o.Selection = &target.Selection{Args: []string{"deploy/web", "deploy/api", "deploy/fresh"}, Namespace: testutil.DefaultNamespace, Many: true}
	o.Client = clientOf(c)
	o.Terminal = func() bool { return false }
	o.Output.Output = output
	return o, c, out, errOut
}

func decodePlanList(t *testing.T, out string) *v1alpha1.RolloutPlanList {
	t.Helper()
	var l v1alpha1.RolloutPlanList
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		t.Fatalf("stdout is not one RolloutPlanList: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than the RolloutPlanList:\n%s", out)
	}
	return &l
}

func TestReloadOutputJSON(t *testing.T) {
	o, c, out, errOut := reloadOutputTest(t, true, "json")
	o.DryRun = cmdutil.DryRunClient
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l := decodePlanList(t, out.String())
	if l.Kind != "RolloutPlanList" || len(l.Items) != 3 {
		t.Fatalf("kind %s with %d items, want a RolloutPlanList of 3", l.Kind, len(l.Items))
	}
	type item struct{ name, decision, outcome, states string }
	var got []item
	for _, p := range l.Items {
		var states []string
		for _, r := range p.Config.References {
			states = append(states, r.Kind+"/"+r.Name+"="+r.State)
		}
		got = append(got, item{p.Deployment.Name, p.Config.Decision, p.Outcome, strings.Join(states, ",")})
	}
	want := []item{
		{"web", "restart", "Complete", "ConfigMap/app=changed,Secret/db=current"},
		{"api", "none", "NoChange", "ConfigMap/app=current"},
		{"fresh", "restart", "Complete", "ConfigMap/app=possibly-stale"},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if web := l.Items[0]; !web.NewReplicaSet.Created || web.NewReplicaSet.Revision != 2 {
		t.Errorf("web's plan is not the restart's: newReplicaSet %+v", web.NewReplicaSet)
	}
	fresh := l.Items[2].Config
	ev := fresh.References[0].Evidence
	if ev == nil || ev.WrittenBy != "kubectl-edit" || !ev.DataWrittenAt.After(ev.OldestPodCreatedAt.Time) || fresh.PossiblyStaleSince == nil ||
		!fresh.PossiblyStaleSince.Equal(&ev.DataWrittenAt) || !strings.Contains(fresh.Reason, "possibly stale since") {
		t.Errorf("fresh's first-sight evidence: %+v, since %v, reason %q", ev, fresh.PossiblyStaleSince, fresh.Reason)
	}
	if !strings.Contains(errOut.String(), "deployment.apps/web restarted (dry run)") {
		t.Errorf("stderr lacks the dry-run result lines:\n%s", errOut)
	}
	all := out.String() + errOut.String()
	for _, v := range []string{reloadSecretValue, base64.StdEncoding.EncodeToString([]byte(reloadSecretValue))} {
		if strings.Contains(all, v) {
			t.Errorf("the output holds the secret value %q", v)
		}
	}
	if w := writes(c); len(w) != 0 {
		t.Errorf("--dry-run=client wrote: %v", w)
	}
}

func TestReloadOutputYAMLGolden(t *testing.T) {
	o, _, out, _ := reloadOutputTest(t, true, "yaml")
	o.DryRun = cmdutil.DryRunClient
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "reload-output-yaml", []byte(out.String()))
}

func TestReloadOutputRefusedExitsOneAndWritesNothing(t *testing.T) {
	o, c, out, _ := reloadOutputTest(t, false, "json")
	o.Yes = true
	code, msg := exit(o.Run)
	if code != ExitError || !strings.Contains(msg, "secret/db not found") {
		t.Errorf("exit %d, %q; want 1 naming secret/db", code, msg)
	}
	l := decodePlanList(t, out.String())
	if d := l.Items[0].Config; l.Items[0].Deployment.Name != "web" || d.Decision != "refuse" || d.References[1].State != string(reload.Missing) ||
		!strings.Contains(d.Reason, "secret/db not found") || l.Items[0].Outcome != "NoChange" {
		t.Errorf("web: %+v, outcome %s; want refuse, secret/db missing, the Deployment as it stands", d, l.Items[0].Outcome)
	}
	if w := writes(c); len(w) != 0 {
		t.Errorf("a refused reload wrote: %v", w)
	}
}

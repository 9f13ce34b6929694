package reloadoneshot

import (
	"context"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

// staleTargets returns Deployments a, b, c reading key A of ConfigMap app, recorded at A=1
// while app holds A=2, assessed for a restart, on a fake clientset holding them.
func staleTargets(t *testing.T) (*fake.Clientset, []*Target) {
	t.Helper()
	recordedCM := &corev1.ConfigMap{Data: map[string]string{"A": "1"}}
	recordedCM.Name, recordedCM.Namespace = "app", testutil.DefaultNamespace
	cm := recordedCM.DeepCopy()
	cm.Data["A"] = "2"
	var objs []runtime.Object
	var states []*cluster.State
	for _, name := range []string{"a", "b", "c"} {
		d := testutil.Deployment(name).Replicas(2).ResourceVersion("5").Containers(corev1.Container{Name: "app", Image: "nginx",
			Env: []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Key: "A"}}}}}).Build()
		key := reload.ObjectKey{Namespace: d.Namespace, Kind: reload.ConfigMap, Name: "app"}
		d = reload.Restarted(d, reload.Decide(d, map[reload.ObjectKey]reload.Object{key: reload.ConfigMapObject(recordedCM)}).Checksums)
		rs := testutil.ReplicaSetFor(d).OwnedBy(d).Created(1).Replicas(2).Revision(1).Build()
		objs = append(objs, d, rs)
		states = append(states, &cluster.State{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{rs}})
	}
	client := fake.NewClientset(append(objs, cm)...)
	targets, err := Assess(context.Background(), client, nil, states, AssessOptions{Readiness: planner.ReadinessBatched})
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Action != reload.ActionRestart || tg.Plan == nil {
			t.Fatalf("%s: action %s, plan %v; want a planned restart", tg.Name(), tg.Action, tg.Plan)
		}
	}
	return client, targets
}

func TestRestartStopsAfterAFailure(t *testing.T) {
	client, targets := staleTargets(t)
	client.PrependReactor("patch", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.(k8stesting.PatchAction).GetName() == "a" {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "a", errors.New("no"))
		}
		return false, nil, nil
	})
	results := Restart(context.Background(), client, targets, RunOptions{MaxConcurrent: 1})
	if len(results) != 3 {
		t.Fatalf("%d results, want 3", len(results))
	}
	if results[0].Err == nil || !apierrors.IsForbidden(results[0].Err) {
		t.Errorf("a: %v, want the Forbidden", results[0].Err)
	}
	for _, r := range results[1:] {
		if !errors.Is(r.Err, ErrNotStarted) {
			t.Errorf("%s: %v, want ErrNotStarted after a's failure", r.Target.Name(), r.Err)
		}
	}
	patches := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "patch" {
			patches++
		}
	}
	if patches != 1 {
		t.Errorf("%d patches, want 1 (b and c never sent)", patches)
	}
}

func TestRestartServerDryRunWritesEachWithoutWaiting(t *testing.T) {
	client, targets := staleTargets(t)
	results := Restart(context.Background(), client, targets, RunOptions{MaxConcurrent: 1, Write: kube.Options{FieldManager: kube.FieldManager, DryRun: true}})
	for _, r := range results {
		if r.Err != nil || r.Written == nil {
			t.Errorf("%s: written %v, err %v", r.Target.Name(), r.Written != nil, r.Err)
		}
	}
	var dryRuns int
	for _, a := range client.Actions() {
		if p, ok := a.(k8stesting.PatchActionImpl); ok {
			if opts := p.PatchOptions; len(opts.DryRun) == 1 && opts.FieldManager == kube.FieldManager {
				dryRuns++
			}
		}
	}
	if dryRuns != 3 {
		t.Errorf("%d dry-run patches under %s, want 3", dryRuns, kube.FieldManager)
	}
}

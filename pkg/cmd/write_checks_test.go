package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// undoQuotaCluster is quotaCluster's web at revision 2 (nginx:1.27) with revision 1's
// ReplicaSet (nginx:1.19) scaled to 0: undo scales it up, into a quota of hardPods pods.
func undoQuotaCluster(hardPods string) *fake.Clientset {
	web := testutil.Deployment("web").Namespace("shop").Replicas(4).MaxSurge("1").MaxUnavailable("0").Image("nginx:1.27").Revision(2).Build()
	cur := testutil.ReplicaSetFor(web).Created(2).Replicas(4).Available(4).Build()
	old := testutil.ReplicaSetFor(testutil.Deployment("web").Namespace("shop").Replicas(4).MaxSurge("1").MaxUnavailable("0").Image("nginx:1.19").Revision(1).Build()).Created(1).Replicas(0).Build()
	hard := corev1.ResourceList{corev1.ResourcePods: resource.MustParse(hardPods)}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "pods"},
		Spec:   corev1.ResourceQuotaSpec{Hard: hard},
		Status: corev1.ResourceQuotaStatus{Hard: hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4")}}}
	return fake.NewClientset([]runtime.Object{web, cur, old, q}...)
}

// resumeQuotaCluster is quotaCluster's web paused after its template changed to nginx:1.27:
// resume lets the controller roll it out, into a quota of hardPods pods.
func resumeQuotaCluster(hardPods string) *fake.Clientset {
	web := testutil.Deployment("web").Namespace("shop").Replicas(4).MaxSurge("1").MaxUnavailable("0").Image("nginx:1.27").Revision(1).Paused(true).Build()
	rs := testutil.ReplicaSetFor(testutil.Deployment("web").Namespace("shop").Replicas(4).MaxSurge("1").MaxUnavailable("0").Image("nginx:1.19").Revision(1).Build()).Created(1).Replicas(4).Available(4).Build()
	hard := corev1.ResourceList{corev1.ResourcePods: resource.MustParse(hardPods)}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "pods"},
		Spec:   corev1.ResourceQuotaSpec{Hard: hard},
		Status: corev1.ResourceQuotaStatus{Hard: hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4")}}}
	return fake.NewClientset([]runtime.Object{web, rs, q}...)
}

// restart, resume and undo run the checks on the plan they show before writing:
// a quota with no room for the surge pod is "Stalled at step 1" with the quota named; with
// --fail-on-stall a real run exits 3 and writes nothing; with room (or --checks=none) the
// verb writes and prints as before.
func TestWriteChecksQuotaStall(t *testing.T) {
	type run func(hard, checks, output string, failOnStall bool) (string, *fake.Clientset, error)
	restart := func(hard, checks, output string, failOnStall bool) (string, *fake.Clientset, error) {
		streams, out, _ := testStreams()
		o := NewActionOptions(rollout.VerbRestart, streams)
		c := fake.NewClientset()
		if cs, ok := quotaCluster(hard).(*fake.Clientset); ok {
			c = cs
		}
		o.Namespace, o.Name, o.Client, o.DryRun = "shop", "web", clientOf(c), cmdutil.DryRunNone
		o.Feas.Checks, o.Feas.FailOnStall, o.Output.Output = checks, failOnStall, output
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		err := o.Run(context.Background())
		return out.String(), c, err
	}
	undo := func(hard, checks, output string, failOnStall bool) (string, *fake.Clientset, error) {
		streams, out, _ := testStreams()
		o := NewUndoOptions(streams)
		c := undoQuotaCluster(hard)
		o.Namespace, o.Name, o.Client, o.DryRun = "shop", "web", clientOf(c), cmdutil.DryRunNone
		o.Feas.Checks, o.Feas.FailOnStall = checks, failOnStall
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		err := o.Run(context.Background())
		return out.String(), c, err
	}
	resume := func(hard, checks, output string, failOnStall bool) (string, *fake.Clientset, error) {
		streams, out, _ := testStreams()
		o := NewActionOptions(rollout.VerbResume, streams)
		c := resumeQuotaCluster(hard)
		o.Namespace, o.Name, o.Client, o.DryRun = "shop", "web", clientOf(c), cmdutil.DryRunNone
		o.Feas.Checks, o.Feas.FailOnStall, o.Output.Output = checks, failOnStall, output
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		err := o.Run(context.Background())
		return out.String(), c, err
	}
	for name, verb := range map[string]run{"restart": restart, "resume": resume, "undo": undo} {
		out, c, err := verb("4", "all", "", true)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitStalled {
			t.Errorf("%s --fail-on-stall: %v, want exit %d", name, err, ExitStalled)
		}
		if n := len(writes(c)); n != 0 {
			t.Errorf("%s --fail-on-stall made %d writes, want none", name, n)
		}
		for _, want := range []string{"FINDINGS", "resourcequota/pods", "Stalled at step 1: Quota: "} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", name, want, out)
			}
		}
		out, c, err = verb("4", "all", "", false)
		if err != nil || len(writes(c)) != 1 || !strings.Contains(out, "Stalled at step 1: Quota: ") {
			t.Errorf("%s without --fail-on-stall: %v, %d writes (want 1), output:\n%s", name, err, len(writes(c)), out)
		}
		out, c, err = verb("20", "all", "", true)
		if err != nil || len(writes(c)) != 1 || strings.Contains(out, "Stalled") {
			t.Errorf("%s with room for the surge pod: %v, %d writes (want 1), output:\n%s", name, err, len(writes(c)), out)
		}
		out, c, err = verb("4", "none", "", true)
		if err != nil || len(writes(c)) != 1 || strings.Contains(out, "FINDINGS") {
			t.Errorf("%s --checks=none: %v, %d writes (want 1), output:\n%s", name, err, len(writes(c)), out)
		}
	}
	out, _, err := restart("4", "quota", "json", true)
	var p v1alpha1.RolloutPlan
	if jerr := json.Unmarshal([]byte(out), &p); jerr != nil {
		t.Fatalf("%v (run: %v): %s", jerr, err, out)
	}
	if f := p.Feasibility; f == nil || f.Stall == nil || f.Stall.Step != 1 || f.Stall.Reason != "Quota" {
		t.Errorf("restart -o json feasibility %+v, want a Quota stall at step 1", f)
	}
}

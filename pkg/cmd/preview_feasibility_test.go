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
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// The checks' objects are read once per namespace (quotas, limitranges, PDBs, HPAs) and once
// per cluster (nodes, every pod), not once per Deployment; a cluster listing no node adds
// nothing to the plans.
func TestPreviewFeasibilityReads(t *testing.T) {
	c := fake.NewClientset(fleetObjects()...)
	streams, out, errOut := testStreams()
	o := NewPreviewOptions(streams)
	o.Output.Output = "json"
	sel := target.Selection{AllNamespaces: true, Many: true, ChunkSize: 500}
	o.Fleet.Selection, o.Fleet.Client = &sel, clientOf(c)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(context.Background()); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	n := map[string]int{}
	for _, a := range c.Actions() {
		n[a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace()]++
	}
	for _, k := range []string{"list resourcequotas shop", "list resourcequotas bank", "list limitranges shop", "list limitranges bank",
		"list poddisruptionbudgets shop", "list horizontalpodautoscalers bank", "list nodes ", "list pods "} {
		if n[k] != 1 {
			t.Errorf("%q made %d times, want once (all: %v)", k, n[k], n)
		}
	}
	if strings.Contains(out.String(), "feasibility") {
		t.Errorf("no node listed, no quota: the plans gain a feasibility field:\n%s", out)
	}
}

func quotaCluster(hardPods string) kubernetes.Interface {
	web := testutil.Deployment("web").Namespace("shop").Replicas(4).MaxSurge("1").MaxUnavailable("0").Image("nginx:1.19").Revision(1).Build()
	rs := testutil.ReplicaSetFor(web).Created(1).Replicas(4).Build()
	hard := corev1.ResourceList{corev1.ResourcePods: resource.MustParse(hardPods)}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "pods"},
		Spec:   corev1.ResourceQuotaSpec{Hard: hard},
		Status: corev1.ResourceQuotaStatus{Hard: hard, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("4")}}}
	return fake.NewClientset([]runtime.Object{web, rs, q}...)
}

// A quota with no room for the surge pod stalls a maxUnavailable 0 rollout at its first
// write: the human plan says where and why, -o json carries it, --fail-on-stall exits 3.
func TestPreviewFeasibilityQuotaStall(t *testing.T) {
	run := func(output, checks string) (string, error) {
		streams, out, _ := testStreams()
		o := NewPreviewOptions(streams)
		o.Namespace, o.Name = "shop", "web"
		cs := quotaCluster("4")
		o.Client = func() (kubernetes.Interface, error) { return cs, nil }
		o.Change.Images = []string{"web=nginx:1.27"}
		o.Output.Output, o.Checks, o.FailOnStall = output, checks, true
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		err := o.Run(context.Background())
		return out.String(), err
	}
	out, err := run("", "all")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitStalled {
		t.Errorf("--fail-on-stall: %v, want exit %d", err, ExitStalled)
	}
	for _, want := range []string{"FINDINGS", "resourcequota/pods", "Stalled at step 1: Quota: ", "Unchecked: capacity: no nodes listed"} {
		if !strings.Contains(out, want) {
			t.Errorf("human output lacks %q:\n%s", want, out)
		}
	}
	out, _ = run("json", "quota")
	var p v1alpha1.RolloutPlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if f := p.Feasibility; f == nil || f.Stall == nil || f.Stall.Step != 1 || f.Stall.Reason != "Quota" || len(f.Unchecked) != 0 {
		t.Errorf("json feasibility %+v, want a Quota stall at step 1 and nothing unchecked (--checks=quota)", f)
	}
	if out, err = run("", "none"); err != nil || strings.Contains(out, "FINDINGS") {
		t.Errorf("--checks=none: %v, output:\n%s", err, out)
	}
}

// The many-Deployment summary gains a FEASIBILITY column when a plan has findings.
func TestPreviewFeasibilitySummary(t *testing.T) {
	cs := quotaCluster("4")
	streams, out, errOut := testStreams()
	o := NewPreviewOptions(streams)
	o.Summary = true
	o.Change.Images = []string{"web=nginx:1.27"}
	sel := target.Selection{All: true, Namespace: "shop", Many: true, ChunkSize: 500}
	o.Fleet.Selection, o.Fleet.Client = &sel, func() (kubernetes.Interface, error) { return cs, nil }
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(context.Background()); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), "OUTCOME   FEASIBILITY") || !strings.HasSuffix(strings.TrimSpace(lines[1]), "Stalled@1:Quota") {
		t.Errorf("summary:\n%s", out)
	}
}

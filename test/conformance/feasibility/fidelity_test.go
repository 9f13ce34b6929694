package feasibility

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	quota "k8s.io/apiserver/pkg/quota/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	api "k8s.io/kubernetes/pkg/apis/core"
	corev1conv "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodename"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeports"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeunschedulable"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"
	"k8s.io/utils/clock"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
)

var (
	flagSeed = flag.Int64("feasibility.seed", 20261126, "seed of the random nodes, pods, quotas and LimitRanges")
	flagN    = flag.Int("feasibility.n", 3000, "number of random cases of each kind (fit, charge)")
)

// ---- scheduler filters ----

// filters are kube-scheduler's filter plugins, in the default profile's order
// (pkg/scheduler/apis/config/v1/default_plugins.go), built as the default profile builds them
// (feature gates at their v1.36.3 defaults, except DRAExtendedResource: the random pods ask
// for no extended resource, and the plugin would need a DRA manager).
func filters(t *testing.T) []fwk.FilterPlugin {
	ctx := context.Background()
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	fts.EnableDRAExtendedResource = false
	fitArgs := &config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: config.LeastAllocated,
		Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}}}
	var out []fwk.FilterPlugin
	for _, mk := range []func() (fwk.Plugin, error){
		func() (fwk.Plugin, error) { return nodeunschedulable.New(ctx, nil, nil, fts) },
		func() (fwk.Plugin, error) { return nodename.New(ctx, nil, nil, fts) },
		func() (fwk.Plugin, error) { return tainttoleration.New(ctx, nil, nil, fts) },
		func() (fwk.Plugin, error) { return nodeaffinity.New(ctx, &config.NodeAffinityArgs{}, nil, fts) },
		func() (fwk.Plugin, error) { return nodeports.New(ctx, nil, nil, fts) },
		func() (fwk.Plugin, error) { return noderesources.NewFit(ctx, fitArgs, nil, fts) },
	} {
		p, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.(fwk.FilterPlugin))
	}
	return out
}

// upstreamFits runs the filters as the framework does: every PreFilter first (Skip skips
// that plugin's Filter; a PreFilterResult limits the nodes), then the Filters in order,
// stopping at the first failure. reason is the failing Filter's reasons joined by ", " (""
// when the pod fits, or when a PreFilter left the node out: the framework words that itself).
func upstreamFits(plugins []fwk.FilterPlugin, pod *corev1.Pod, ni *framework.NodeInfo) (fits bool, reason string) {
	ctx := context.Background()
	state := framework.NewCycleState()
	skip := map[int]bool{}
	for i, pl := range plugins {
		pre, ok := pl.(fwk.PreFilterPlugin)
		if !ok {
			continue
		}
		res, st := pre.PreFilter(ctx, state, pod, []fwk.NodeInfo{ni})
		switch {
		case st.IsSkip():
			skip[i] = true
		case !st.IsSuccess():
			return false, ""
		case res != nil && !res.AllNodes() && !res.NodeNames.Has(ni.Node().Name):
			return false, ""
		}
	}
	for i, pl := range plugins {
		if skip[i] {
			continue
		}
		if st := pl.Filter(ctx, state, pod, ni); !st.IsSuccess() {
			return false, strings.Join(st.Reasons(), ", ")
		}
	}
	return true, ""
}

func TestSchedulerFilters(t *testing.T) {
	rng := rand.New(rand.NewSource(*flagSeed))
	plugins := filters(t)
	cases, fits, mismatches := 0, 0, 0
	for i := range *flagN {
		node := randomNode(rng, i)
		var bound []*corev1.Pod
		for range rng.Intn(5) {
			p := randomPod(rng, false)
			p.Spec.NodeName = node.Name
			bound = append(bound, p)
		}
		pod := randomPod(rng, true)
		ni := framework.NewNodeInfo(bound...)
		ni.SetNode(node)
		want, wantReason := upstreamFits(plugins, pod, ni)

		// Ours also binds pods that then leave (deleted by a scale-down): the node must be
		// as if they had never been there.
		ours := feasibility.NewNodeState(node)
		var gone []*corev1.Pod
		for range rng.Intn(3) {
			p := randomPod(rng, false)
			gone = append(gone, p)
			ours.AddPod(p)
		}
		for _, p := range bound {
			ours.AddPod(p)
		}
		for _, p := range gone {
			ours.RemovePod(p)
		}
		got, reason := ours.Fit(pod)
		cases++
		if want {
			fits++
		}
		if got != want || (wantReason != "" && reason != wantReason) {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("case %d: upstream fits %v (%s), ours %v (%s)\nnode %s\npod %s\nbound %d", i, want, wantReason, got, reason, dump(node), dump(pod), len(bound))
			}
		}
	}
	t.Logf("scheduler filters: %d cases (%d fit, %d do not), %d mismatches", cases, fits, cases-fits, mismatches)
	if mismatches > 0 {
		t.Errorf("%d mismatches of %d", mismatches, cases)
	}
}

// ---- quota charge ----

// upstreamPod is what quota admission sees for template: the API's defaults
// (SetObjectDefaults_Pod), then each LimitRange's defaults through the LimitRanger's own
// PodMutateLimitFunc on the internal pod, in order.
func upstreamPod(t *testing.T, template *corev1.PodTemplateSpec, lrs []corev1.LimitRange) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: *template.ObjectMeta.DeepCopy(), Spec: *template.Spec.DeepCopy()}
	pod.Namespace = "default"
	corev1conv.SetObjectDefaults_Pod(pod)
	internal := &api.Pod{}
	if err := corev1conv.Convert_v1_Pod_To_core_Pod(pod, internal, nil); err != nil {
		t.Fatal(err)
	}
	for i := range lrs {
		if err := limitranger.PodMutateLimitFunc(&lrs[i], internal); err != nil {
			t.Fatal(err)
		}
	}
	out := &corev1.Pod{}
	if err := corev1conv.Convert_core_Pod_To_v1_Pod(internal, out, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestQuotaCharge(t *testing.T) {
	rng := rand.New(rand.NewSource(*flagSeed + 1))
	eval := core.NewPodEvaluator(nil, clock.RealClock{})
	cases, matches, refusals, mismatches := 0, 0, 0, 0
	fail := func(format string, args ...any) {
		mismatches++
		if mismatches <= 5 {
			t.Errorf(format, args...)
		}
	}
	for i := range *flagN {
		template := randomTemplate(rng)
		lrs := randomLimitRanges(rng)
		up := upstreamPod(t, template, lrs)
		want, err := eval.Usage(up)
		if err != nil {
			t.Fatal(err)
		}
		ours := feasibility.PodFromTemplate("default", template, lrs)
		got := feasibility.Charge(ours)
		cases++
		if !quota.Equals(want, got) {
			fail("case %d: charge differs\nupstream %v\nours     %v\ntemplate %s\nlimitranges %s", i, want, got, dump(template), dump(lrs))
			continue
		}
		q := randomQuota(rng)
		wantMatch, err := eval.Matches(q, up)
		if err != nil {
			t.Fatal(err)
		}
		gotMatch, ok := feasibility.QuotaApplies(q, ours)
		if !ok || gotMatch != wantMatch {
			fail("case %d: quota matches: upstream %v, ours %v (modelled %v)\nquota %s\npod %s", i, wantMatch, gotMatch, ok, dump(q), dump(up))
			continue
		}
		if !wantMatch {
			continue
		}
		matches++
		wantMsg := ""
		if err := eval.Constraints(eval.MatchingResources(quota.ResourceNames(q.Status.Hard)), up); err != nil {
			wantMsg = err.Error()
			refusals++
		}
		if gotMsg := feasibility.QuotaConstraint(q, ours); gotMsg != wantMsg {
			fail("case %d: constraint: upstream %q, ours %q\nquota %s\npod %s", i, wantMsg, gotMsg, dump(q), dump(up))
		}
	}
	t.Logf("quota charge: %d cases (%d quotas matching, %d of them refusing on the cpu/memory constraint), %d mismatches", cases, matches, refusals, mismatches)
	if mismatches > 0 {
		t.Errorf("%d mismatches of %d", mismatches, cases)
	}
}

func dump(o any) string { return fmt.Sprintf("%+v", o) }

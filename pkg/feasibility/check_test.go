package feasibility_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// rollout is "web": 3 pods of nginx:1.18 running (old ReplicaSet, all available), changed to
// nginx:1.19 with the given maxSurge/maxUnavailable; every container requests cpu unless
// cpu is "".
type rollout struct {
	surge, unavailable string
	cpu                string
	replicas           int32
	recreate           bool
}

func (r rollout) objects() (*appsv1.Deployment, *appsv1.ReplicaSet) {
	c := testutil.DefaultedContainer("app", "nginx:1.19")
	if r.cpu != "" {
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(r.cpu)}
	}
	b := testutil.Deployment("web").Replicas(r.replicas).Containers(c)
	if r.recreate {
		b = b.Strategy(testutil.Recreate())
	} else {
		b = b.MaxSurge(r.surge).MaxUnavailable(r.unavailable)
	}
	d := b.Build()
	old := testutil.ReplicaSetFor(d).Image("nginx:1.18").Revision(1).Created(1).Build()
	old.UID = testutil.UIDFor("ReplicaSet", old.Name)
	return d, old
}

func (r rollout) input(c feasibility.Cluster) feasibility.Input {
	d, old := r.objects()
	return feasibility.Input{Plan: planner.Input{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}}, Cluster: c}
}

// pods returns the old ReplicaSet's pods, bound to node.
func (r rollout) pods(node string) []corev1.Pod {
	_, old := r.objects()
	var out []corev1.Pod
	for i := range *old.Spec.Replicas {
		p := corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: old.Namespace, Name: old.Name + "-" + string(rune('a'+i)),
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: old.Name, UID: old.UID, Controller: ptr.To(true)}}},
			Spec:   *old.Spec.Template.Spec.DeepCopy(),
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
		p.Spec.NodeName = node
		out = append(out, p)
	}
	return out
}

func quota(name string, hard, used corev1.ResourceList) corev1.ResourceQuota {
	return corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.ResourceQuotaSpec{Hard: hard}, Status: corev1.ResourceQuotaStatus{Hard: hard, Used: used}}
}

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func node(name, cpu string, taints ...corev1.Taint) corev1.Node {
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": name}},
		Spec:   corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Allocatable: list("cpu", cpu, "memory", "8Gi", "pods", "110")}}
}

// quotaOnly is a cluster where only quota (and its LimitRanges) was read.
func quotaOnly(lrs []corev1.LimitRange, qs ...corev1.ResourceQuota) feasibility.Cluster {
	return feasibility.Cluster{ResourceQuotas: qs, LimitRanges: lrs}
}

func check(t *testing.T, in feasibility.Input) *feasibility.Result {
	t.Helper()
	res, err := feasibility.Check(in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestQuota(t *testing.T) {
	pods3 := quota("compute", list("pods", "3"), list("pods", "3"))
	cases := []struct {
		name       string
		r          rollout
		cluster    feasibility.Cluster
		wantStall  *feasibility.Stall
		wantFinds  int // findings of check quota
		wantReplan bool
	}{
		{
			// maxSurge 1 with maxUnavailable 0: the controller creates the new ReplicaSet with
			// 1 pod (3 + 1 surge); quota pods=3 is full, the create is refused, no old pod may
			// go: nothing moves after step 1.
			name: "pods=replicas, maxUnavailable 0 stalls at step 1",
			r:    rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3}, cluster: quotaOnly([]corev1.LimitRange{}, pods3),
			wantStall: &feasibility.Stall{Step: 1, Reason: feasibility.ReasonQuota, Objects: []string{"resourcequota/compute"},
				Message: "1 pod(s) of replicaset/web-" + newHash(t, rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3}) +
					" refused: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3"},
			wantFinds: 1, wantReplan: true,
		},
		{
			// maxUnavailable 1: step 1 (new RS 1 pod) is refused, step 2 scales the old one to
			// 2, which frees a pod of quota; the ReplicaSet controller's retry creates the new
			// pod and the rollout goes on one pod at a time.
			name: "pods=replicas, maxUnavailable 1 completes",
			r:    rollout{surge: "1", unavailable: "1", cpu: "100m", replicas: 3}, cluster: quotaOnly([]corev1.LimitRange{}, pods3),
			wantFinds: 3, wantReplan: true,
		},
		{
			// No request in the template: the LimitRange's defaultRequest cpu 500m is charged.
			// 3 old pods use 1500m of requests.cpu 1800m: the surge pod's 500m does not fit.
			name: "requests.cpu with LimitRange default, maxUnavailable 0 stalls",
			r:    rollout{surge: "1", unavailable: "0", replicas: 3},
			cluster: quotaOnly([]corev1.LimitRange{{ObjectMeta: metav1.ObjectMeta{Name: "defaults"}, Spec: corev1.LimitRangeSpec{
				Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, DefaultRequest: list("cpu", "500m")}}}}},
				quota("cpu", list("requests.cpu", "1800m"), list("requests.cpu", "1500m"))),
			wantStall: &feasibility.Stall{Step: 1, Reason: feasibility.ReasonQuota, Objects: []string{"resourcequota/cpu"},
				Message: "1 pod(s) of replicaset/web-" + newHash(t, rollout{surge: "1", unavailable: "0", replicas: 3}) +
					" refused: exceeded quota: cpu, requested: requests.cpu=500m, used: requests.cpu=1500m, limited: requests.cpu=1800m"},
			wantFinds: 1, wantReplan: true,
		},
		{
			name: "requests.cpu with LimitRange default, room for the surge",
			r:    rollout{surge: "1", unavailable: "0", replicas: 3},
			cluster: quotaOnly([]corev1.LimitRange{{ObjectMeta: metav1.ObjectMeta{Name: "defaults"}, Spec: corev1.LimitRangeSpec{
				Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, DefaultRequest: list("cpu", "500m")}}}}},
				quota("cpu", list("requests.cpu", "2"), list("requests.cpu", "1500m"))),
		},
		{
			// A quota on limits.cpu and no limit anywhere: admission refuses every pod.
			name:    "limits.cpu quota without a limit is refused",
			r:       rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3},
			cluster: quotaOnly([]corev1.LimitRange{}, quota("lim", list("limits.cpu", "10"), list())),
			wantStall: &feasibility.Stall{Step: 1, Reason: feasibility.ReasonQuota, Objects: []string{"resourcequota/lim"},
				Message: "1 pod(s) of replicaset/web-" + newHash(t, rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3}) +
					" refused: failed quota: lim: must specify limits.cpu for: app"},
			wantFinds: 1, wantReplan: true,
		},
		{
			name: "BestEffort-scoped quota does not apply to pods with requests",
			r:    rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3},
			cluster: func() feasibility.Cluster {
				q := pods3
				q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
				return quotaOnly([]corev1.LimitRange{}, q)
			}(),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := check(t, tc.r.input(tc.cluster))
			if diff := cmp.Diff(tc.wantStall, res.Stall); diff != "" {
				t.Errorf("Stall (-want +got):\n%s", diff)
			}
			if got := count(res.Findings, feasibility.CheckQuota); got != tc.wantFinds {
				t.Errorf("quota findings = %d, want %d: %+v", got, tc.wantFinds, res.Findings)
			}
			if (res.Plan != nil) != tc.wantReplan {
				t.Errorf("replanned = %v, want %v", res.Plan != nil, tc.wantReplan)
			}
			if res.Plan != nil && (res.Plan.Outcome == planner.OutcomeStalled) != (tc.wantStall != nil) {
				t.Errorf("replanned outcome = %s, stall %+v", res.Plan.Outcome, tc.wantStall)
			}
			if !contains(res.Checked, feasibility.CheckQuota) {
				t.Errorf("Checked = %v, want quota", res.Checked)
			}
		})
	}
}

// newHash is the pod-template-hash of the rollout's new ReplicaSet.
func newHash(t *testing.T, r rollout) string {
	d, old := r.objects()
	p, err := planner.Simulate(planner.Input{Deployment: d, ReplicaSets: []*appsv1.ReplicaSet{old}})
	if err != nil {
		t.Fatal(err)
	}
	return p.NewReplicaSet.PodTemplateHash
}

func count(fs []feasibility.Finding, check string) int {
	n := 0
	for _, f := range fs {
		if f.Check == check {
			n++
		}
	}
	return n
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestQuotaStepFindings(t *testing.T) {
	// maxUnavailable 1, quota pods=3: step 1 creates the new ReplicaSet with 1 pod, refused;
	// step 2 scales the old one to 2 and the new pod is created then; each scale-up of the
	// new ReplicaSet (steps 3, 5) is refused until the next scale-down of the old one.
	r := rollout{surge: "1", unavailable: "1", cpu: "100m", replicas: 3}
	res := check(t, r.input(quotaOnly([]corev1.LimitRange{}, quota("compute", list("pods", "3"), list("pods", "3")))))
	rs := "replicaset/web-" + newHash(t, r)
	refused := func(step int, have, want string) feasibility.Finding {
		return feasibility.Finding{Check: feasibility.CheckQuota, Step: step, Severity: feasibility.SeverityWarning, Object: "resourcequota/compute",
			Message: rs + ": " + have + " of " + want + " pods created, 1 refused: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3"}
	}
	want := []feasibility.Finding{refused(1, "0", "1"), refused(3, "1", "2"), refused(5, "2", "3")}
	if diff := cmp.Diff(want, res.Findings); diff != "" {
		t.Errorf("Findings (-want +got):\n%s", diff)
	}
}

func TestCapacity(t *testing.T) {
	noSchedule := corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}
	cases := []struct {
		name       string
		r          rollout
		nodes      []corev1.Node
		wantReason string // "" = no stall
		wantMsg    string
	}{
		{
			// One node of 3 cpu with 3 old pods of 1 cpu: full, the new 1-cpu pod stays
			// Pending and maxUnavailable 0 lets no old pod go.
			name: "node full for the surge pod", r: rollout{surge: "1", unavailable: "0", cpu: "1", replicas: 3},
			nodes: []corev1.Node{node("a", "3")}, wantReason: feasibility.ReasonUnschedulable,
			wantMsg: "Pending: 0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			// maxUnavailable 1: the surge pod is Pending after step 1; the old ReplicaSet goes
			// to 2 at step 2, freeing 1 cpu, and the Pending pod is scheduled; each later
			// scale-down frees the room of the next new pod.
			name: "room made by scale-downs", r: rollout{surge: "1", unavailable: "1", cpu: "1", replicas: 3},
			nodes: []corev1.Node{node("a", "3")},
		},
		{
			name: "taint on the only free node", r: rollout{surge: "1", unavailable: "0", cpu: "1", replicas: 3},
			nodes: []corev1.Node{node("a", "3"), node("b", "4", noSchedule)}, wantReason: feasibility.ReasonUnschedulable,
			wantMsg: "Pending: 0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s).",
		},
		{
			name: "a second node with room", r: rollout{surge: "1", unavailable: "0", cpu: "1", replicas: 3},
			nodes: []corev1.Node{node("a", "3"), node("b", "4")},
		},
		{
			// replicas 1, maxUnavailable 25% rounds to 0, maxSurge 25% to 1: a full
			// cluster cannot roll a single-replica Deployment.
			name: "single replica on a full cluster", r: rollout{surge: "25%", unavailable: "25%", cpu: "1", replicas: 1},
			nodes: []corev1.Node{node("a", "1")}, wantReason: feasibility.ReasonUnschedulable,
			wantMsg: "Pending: 0/1 nodes are available: 1 Insufficient cpu.",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := feasibility.Cluster{Nodes: tc.nodes, Pods: tc.r.pods("a")}
			res := check(t, tc.r.input(c))
			if !contains(res.Checked, feasibility.CheckCapacity) {
				t.Fatalf("Checked = %v, unchecked %v", res.Checked, res.Unchecked)
			}
			switch {
			case tc.wantReason == "" && res.Stall != nil:
				t.Fatalf("Stall = %+v, want none", res.Stall)
			case tc.wantReason == "":
				return
			case res.Stall == nil:
				t.Fatalf("no stall, want %s; findings %+v", tc.wantReason, res.Findings)
			}
			if res.Stall.Reason != tc.wantReason || res.Stall.Step != 1 || !strings.HasSuffix(res.Stall.Message, tc.wantMsg) {
				t.Errorf("Stall = %+v, want step 1 %s ending %q", res.Stall, tc.wantReason, tc.wantMsg)
			}
		})
	}
}

func TestNodeSelectorToFullPool(t *testing.T) {
	r := rollout{surge: "1", unavailable: "0", cpu: "1", replicas: 3}
	in := r.input(feasibility.Cluster{Nodes: []corev1.Node{node("a", "3"), node("b", "8")}, Pods: r.pods("a")})
	in.Plan.Deployment.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "a"}
	res := check(t, in)
	if res.Stall == nil || !strings.HasSuffix(res.Stall.Message, "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector.") {
		t.Errorf("Stall = %+v, want the pool's full node and the other not matching", res.Stall)
	}
}

func TestUnchecked(t *testing.T) {
	r := rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3}
	res := check(t, r.input(feasibility.Cluster{NodeReason: "forbidden to list nodes"}))
	want := []feasibility.Unchecked{
		{Check: "quota", Reason: "resourcequotas not read"},
		{Check: "capacity", Reason: "forbidden to list nodes"},
		{Check: "pdb", Reason: "poddisruptionbudgets not read"},
		{Check: "hpa", Reason: "horizontalpodautoscalers not read"},
	}
	if diff := cmp.Diff(want, res.Unchecked); diff != "" {
		t.Errorf("Unchecked (-want +got):\n%s", diff)
	}
	if res.Checked != nil || res.Stall != nil || res.Findings != nil {
		t.Errorf("got %+v, want nothing checked", res)
	}
	in := r.input(feasibility.Cluster{})
	in.Checks = []string{}
	if res := check(t, in); res.Unchecked != nil || res.Checked != nil {
		t.Errorf("--checks=none: got %+v", res)
	}
}

func TestPDB(t *testing.T) {
	pdb := func(minAvailable, maxUnavailable *intstr.IntOrString) policyv1.PodDisruptionBudget {
		return policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: policyv1.PodDisruptionBudgetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, MinAvailable: minAvailable, MaxUnavailable: maxUnavailable}}
	}
	cases := []struct {
		name string
		r    rollout
		pdb  policyv1.PodDisruptionBudget
		want string
	}{
		// replicas 4, maxUnavailable 2; minAvailable 3 leaves 1.
		{"minAvailable tighter than maxUnavailable", rollout{surge: "0", unavailable: "2", cpu: "1", replicas: 4}, pdb(ptr.To(intstr.FromInt32(3)), nil),
			"maxUnavailable 2 takes down up to 2 pods at once; poddisruptionbudget/web allows 1 (minAvailable 3 of 4)"},
		// maxUnavailable 10% of 4 rounds up to 1; 25% of 4 is 1: within.
		{"within budget", rollout{surge: "1", unavailable: "25%", cpu: "1", replicas: 4}, pdb(nil, ptr.To(intstr.FromString("10%"))), ""},
		{"Recreate against a percentage", rollout{cpu: "1", replicas: 4, recreate: true}, func() policyv1.PodDisruptionBudget {
			p := pdb(ptr.To(intstr.FromString("50%")), nil)
			p.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 2}
			return p
		}(), "Recreate takes down up to 4 pods at once; poddisruptionbudget/web allows 2 (minAvailable 50% of 4, 2 now (status.disruptionsAllowed))"},
		{"maxUnavailable 0 within any budget", rollout{surge: "1", unavailable: "0", cpu: "1", replicas: 4}, pdb(ptr.To(intstr.FromInt32(4)), nil), ""},
		{"maxUnavailable 50% against maxUnavailable 1", rollout{surge: "0", unavailable: "50%", cpu: "1", replicas: 4}, pdb(nil, ptr.To(intstr.FromInt32(1))),
			"maxUnavailable 50% takes down up to 2 pods at once; poddisruptionbudget/web allows 1 (maxUnavailable 1 of 4)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := check(t, tc.r.input(feasibility.Cluster{PodDisruptionBudgets: []policyv1.PodDisruptionBudget{tc.pdb}}))
			var got string
			for _, f := range res.Findings {
				if f.Check == feasibility.CheckPDB {
					got = f.Message
				}
			}
			if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("finding %q, want prefix %q", got, tc.want)
			}
		})
	}
}

func TestHPA(t *testing.T) {
	r := rollout{surge: "25%", unavailable: "25%", cpu: "1", replicas: 6}
	in := r.input(feasibility.Cluster{HorizontalPodAutoscalers: []autoscalingv2.HorizontalPodAutoscaler{{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas: ptr.To[int32](2), MaxReplicas: 10},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, DesiredReplicas: 4},
	}}})
	live := in.Plan.Deployment.DeepCopy()
	live.Spec.Replicas = ptr.To[int32](4)
	in.Live = live
	res := check(t, in)
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Severity+": "+f.Message)
	}
	// replicas 6 with 25% surge (2): peak 8; at maxReplicas 10 the surge is 3: 13.
	want := []string{
		"Info: horizontalpodautoscaler/web scales this Deployment: min 2, max 10, current 4, desired 4",
		"Warning: the change sets replicas 4 -> 6; horizontalpodautoscaler/web overrides it at its next sync (within 2..10)",
		"Info: peak pods: 8 in this plan; 13 if horizontalpodautoscaler/web has scaled to maxReplicas 10 when the rollout starts",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestQuotaReplan(t *testing.T) {
	// Without quota the controller goes [3 1] [2 1] [2 2] [0 2] [0 3] (old, new). With quota
	// pods=3 the new ReplicaSet's second pod is refused at [2 2]: 3 pods are available, so
	// only one old pod may go ([1 2]), and the rollout takes one step more.
	r := rollout{surge: "1", unavailable: "1", cpu: "100m", replicas: 3}
	in := r.input(quotaOnly([]corev1.LimitRange{}, quota("compute", list("pods", "3"), list("pods", "3"))))
	res := check(t, in)
	var got [][]int32
	for _, s := range res.Plan.Steps {
		got = append(got, s.Replicas)
	}
	want := [][]int32{{3, 1}, {2, 1}, {2, 2}, {1, 2}, {1, 3}, {0, 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replanned steps (-want +got):\n%s", diff)
	}
	if res.Plan.Outcome != planner.OutcomeComplete {
		t.Errorf("Outcome = %s, want Complete", res.Plan.Outcome)
	}
}

func TestQuotaRuntimeClassUnchecked(t *testing.T) {
	r := rollout{surge: "1", unavailable: "0", cpu: "100m", replicas: 3}
	in := r.input(quotaOnly([]corev1.LimitRange{}, quota("compute", list("pods", "10"), list("pods", "3"))))
	in.Plan.Deployment.Spec.Template.Spec.RuntimeClassName = ptr.To("kata")
	res := check(t, in)
	want := []feasibility.Unchecked{{Check: "quota", Reason: `pods of replicaset/web-` + newHashOf(t, in) + `: the overhead of runtime class "kata" is not read (charged without it)`},
		{Check: "capacity", Reason: "nodes not read"}, {Check: "pdb", Reason: "poddisruptionbudgets not read"}, {Check: "hpa", Reason: "horizontalpodautoscalers not read"}}
	if diff := cmp.Diff(want, res.Unchecked); diff != "" {
		t.Errorf("Unchecked (-want +got):\n%s", diff)
	}
}

func newHashOf(t *testing.T, in feasibility.Input) string {
	p, err := planner.Simulate(in.Plan)
	if err != nil {
		t.Fatal(err)
	}
	return p.NewReplicaSet.PodTemplateHash
}

func TestParseChecks(t *testing.T) {
	for in, want := range map[string][]string{
		"":               feasibility.AllChecks,
		"all":            feasibility.AllChecks,
		"none":           {},
		"quota,capacity": {"quota", "capacity"},
		"hpa, pdb,hpa":   {"hpa", "pdb"},
	} {
		got, err := feasibility.ParseChecks(in)
		if err != nil || !cmp.Equal(want, got) {
			t.Errorf("ParseChecks(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := feasibility.ParseChecks("quota,disk"); err == nil || !strings.Contains(err.Error(), `unknown check "disk"`) {
		t.Errorf("ParseChecks(quota,disk): %v", err)
	}
}

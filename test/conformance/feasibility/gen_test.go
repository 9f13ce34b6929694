package feasibility

import (
	"fmt"
	"math/rand"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// pick returns one of vs at random.
func pick[T any](rng *rand.Rand, vs ...T) T { return vs[rng.Intn(len(vs))] }

func chance(rng *rand.Rand, p float64) bool { return rng.Float64() < p }

var (
	cpus      = []string{"0", "100m", "250m", "500m", "1", "1500m", "2", "4"}
	mems      = []string{"0", "64Mi", "128Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	storages  = []string{"0", "1Gi", "5Gi", "10Gi"}
	hugePage  = corev1.ResourceName("hugepages-2Mi")
	labelKeys = []string{"zone", "pool", "size"} // labelSet's keys, in a fixed order (seeded runs repeat)
	labelSet  = map[string][]string{"zone": {"a", "b", "c"}, "pool": {"x", "y"}, "size": {"1", "5", "10"}}
	taints    = []corev1.Taint{
		{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule},
		{Key: "gpu", Effect: corev1.TaintEffectNoExecute},
		{Key: "soft", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule},
		{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule},
	}
)

// randomList returns some of cpu, memory, ephemeral-storage (and hugepages) with random values.
func randomList(rng *rand.Rand, p float64) corev1.ResourceList {
	l := corev1.ResourceList{}
	if chance(rng, p) {
		l[corev1.ResourceCPU] = resource.MustParse(pick(rng, cpus...))
	}
	if chance(rng, p) {
		l[corev1.ResourceMemory] = resource.MustParse(pick(rng, mems...))
	}
	if chance(rng, p/3) {
		l[corev1.ResourceEphemeralStorage] = resource.MustParse(pick(rng, storages...))
	}
	if chance(rng, p/6) {
		l[hugePage] = resource.MustParse(pick(rng, "0", "2Mi", "4Mi"))
	}
	if len(l) == 0 && chance(rng, 0.5) {
		return nil
	}
	return l
}

// randomNode has random allocatable, labels, taints and unschedulable.
func randomNode(rng *rand.Rand, i int) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i%7), Labels: map[string]string{}}}
	for _, k := range labelKeys {
		if chance(rng, 0.7) {
			n.Labels[k] = pick(rng, labelSet[k]...)
		}
	}
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(pick(rng, "500m", "1", "2", "4", "8")),
		corev1.ResourceMemory: resource.MustParse(pick(rng, "512Mi", "1Gi", "4Gi", "16Gi")),
		corev1.ResourcePods:   resource.MustParse(pick(rng, "2", "4", "110", "110")),
	}
	if chance(rng, 0.5) {
		alloc[corev1.ResourceEphemeralStorage] = resource.MustParse(pick(rng, storages...))
	}
	if chance(rng, 0.3) {
		alloc[hugePage] = resource.MustParse(pick(rng, "0", "4Mi", "8Mi"))
	}
	n.Status.Allocatable = alloc
	for _, tt := range taints {
		if chance(rng, 0.1) {
			n.Spec.Taints = append(n.Spec.Taints, tt)
		}
	}
	n.Spec.Unschedulable = chance(rng, 0.08)
	return n
}

func randomContainer(rng *rand.Rand, name string) corev1.Container {
	c := corev1.Container{Name: name, Image: "app"}
	c.Resources.Requests = randomList(rng, 0.5)
	c.Resources.Limits = randomList(rng, 0.3)
	// A request above its limit is invalid: the API server would refuse such a pod.
	for k, lim := range c.Resources.Limits {
		if req, ok := c.Resources.Requests[k]; ok && req.Cmp(lim) > 0 {
			c.Resources.Requests[k] = lim.DeepCopy()
		}
	}
	if k := corev1.ResourceName(hugePage); true {
		// hugepages need request == limit.
		if q, ok := c.Resources.Requests[k]; ok {
			if c.Resources.Limits == nil {
				c.Resources.Limits = corev1.ResourceList{}
			}
			c.Resources.Limits[k] = q
		} else if q, ok := c.Resources.Limits[k]; ok {
			if c.Resources.Requests == nil {
				c.Resources.Requests = corev1.ResourceList{}
			}
			c.Resources.Requests[k] = q
		}
	}
	if chance(rng, 0.2) {
		c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: 80, HostPort: pick[int32](rng, 80, 443, 8080),
			HostIP: pick(rng, "", "", "0.0.0.0", "127.0.0.1", "10.0.0.1"), Protocol: pick(rng, corev1.ProtocolTCP, corev1.ProtocolUDP, "")})
	}
	return c
}

// randomPodSpec has 1-2 containers, maybe an init container (sometimes a sidecar), overhead,
// and, for a pod to place, scheduling constraints.
func randomPodSpec(rng *rand.Rand, placing bool) corev1.PodSpec {
	var s corev1.PodSpec
	for i := range 1 + rng.Intn(2) {
		s.Containers = append(s.Containers, randomContainer(rng, fmt.Sprintf("c%d", i)))
	}
	if chance(rng, 0.4) {
		c := randomContainer(rng, "init")
		if chance(rng, 0.5) {
			c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
		}
		s.InitContainers = append(s.InitContainers, c)
	}
	if chance(rng, 0.15) {
		s.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("32Mi")}
	}
	if !placing {
		return s
	}
	if chance(rng, 0.2) {
		s.NodeSelector = map[string]string{}
		for _, k := range labelKeys {
			if chance(rng, 0.4) {
				s.NodeSelector[k] = pick(rng, labelSet[k]...)
			}
		}
	}
	if chance(rng, 0.2) {
		var terms []corev1.NodeSelectorTerm
		for range 1 + rng.Intn(2) {
			var term corev1.NodeSelectorTerm
			for range 1 + rng.Intn(2) {
				key := pick(rng, "zone", "pool", "size")
				op := pick(rng, corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
					corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt)
				r := corev1.NodeSelectorRequirement{Key: key, Operator: op}
				switch op {
				case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
					r.Values = []string{pick(rng, labelSet[key]...)}
				case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
					r.Key, r.Values = "size", []string{pick(rng, "0", "3", "7")}
				}
				term.MatchExpressions = append(term.MatchExpressions, r)
			}
			if chance(rng, 0.2) {
				term.MatchFields = []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn,
					Values: []string{fmt.Sprintf("node-%d", rng.Intn(7))}}}
			}
			terms = append(terms, term)
		}
		s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	for _, tt := range taints {
		if chance(rng, 0.2) {
			tol := corev1.Toleration{Key: tt.Key, Operator: corev1.TolerationOpEqual, Value: tt.Value, Effect: tt.Effect}
			if chance(rng, 0.3) {
				tol = corev1.Toleration{Key: tt.Key, Operator: corev1.TolerationOpExists}
			}
			s.Tolerations = append(s.Tolerations, tol)
		}
	}
	if chance(rng, 0.1) {
		s.Tolerations = append(s.Tolerations, corev1.Toleration{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	if chance(rng, 0.05) {
		s.NodeName = fmt.Sprintf("node-%d", rng.Intn(7))
	}
	return s
}

func randomPod(rng *rand.Rand, placing bool) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p%d", rng.Int())}, Spec: randomPodSpec(rng, placing)}
}

// randomTemplate is a Deployment's pod template as the API server stores it (not defaulted
// here: PodFromTemplate and the upstream path default it), with quota scopes' inputs.
func randomTemplate(rng *rand.Rand) *corev1.PodTemplateSpec {
	t := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: randomPodSpec(rng, false)}
	if chance(rng, 0.2) {
		t.Spec.ActiveDeadlineSeconds = ptr.To(pick[int64](rng, 0, 60))
	}
	if chance(rng, 0.3) {
		t.Spec.PriorityClassName = pick(rng, "high", "low")
	}
	return t
}

// randomLimitRanges returns 0-2 LimitRanges with Container defaults (and, rarely, a Pod item,
// which carries no defaults).
func randomLimitRanges(rng *rand.Rand) []corev1.LimitRange {
	var out []corev1.LimitRange
	for i := range rng.Intn(3) {
		lr := corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("lr%d", i)}}
		item := corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Default: randomList(rng, 0.5), DefaultRequest: randomList(rng, 0.5)}
		lr.Spec.Limits = append(lr.Spec.Limits, item)
		if chance(rng, 0.2) {
			lr.Spec.Limits = append(lr.Spec.Limits, corev1.LimitRangeItem{Type: corev1.LimitTypePod, Max: randomList(rng, 0.5)})
		}
		out = append(out, lr)
	}
	return out
}

var quotaNames = []corev1.ResourceName{"pods", "count/pods", "cpu", "memory", "requests.cpu", "requests.memory",
	"limits.cpu", "limits.memory", "requests.ephemeral-storage", "limits.ephemeral-storage", "requests.hugepages-2Mi",
	"services", "count/deployments.apps", "requests.example.com/gpu"}

// randomQuota has a random hard set and scopes (Terminating, NotTerminating, BestEffort,
// NotBestEffort, PriorityClass selectors).
func randomQuota(rng *rand.Rand) *corev1.ResourceQuota {
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "q"}}
	hard := corev1.ResourceList{}
	for _, n := range quotaNames {
		if chance(rng, 0.2) {
			hard[n] = resource.MustParse("10")
		}
	}
	q.Spec.Hard, q.Status.Hard = hard, hard
	if chance(rng, 0.3) {
		q.Spec.Scopes = []corev1.ResourceQuotaScope{pick(rng, corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
			corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort)}
	}
	if chance(rng, 0.3) {
		op := pick(rng, corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn, corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist)
		req := corev1.ScopedResourceSelectorRequirement{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: op}
		if op == corev1.ScopeSelectorOpIn || op == corev1.ScopeSelectorOpNotIn {
			req.Values = []string{pick(rng, "high", "low")}
		}
		q.Spec.ScopeSelector = &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{req}}
	}
	return q
}

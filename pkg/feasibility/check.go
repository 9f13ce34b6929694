package feasibility

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// Check runs the enabled checks on the plan of in.Plan and returns their Result. The plan is
// simulated here: once as given, and, when quota or capacity is checked, again with the pods
// the cluster holds back unavailable (planner.Input.PodCap); Result.Plan is that second plan
// when it differs from the first. Under ReadinessTimed the second simulation uses the
// batched model (the pod cap is not modelled with time) and Result.Plan stays nil.
//
// It returns an error only when the planner does (the Deployment cannot be modelled);
// missing objects make checks unchecked, never errors.
func Check(in Input) (*Result, error) {
	base, err := planner.Simulate(withoutCap(in.Plan))
	if err != nil {
		return nil, err
	}
	enabled := in.Checks
	if enabled == nil {
		enabled = AllChecks
	}
	on := func(c string) bool { return slices.Contains(enabled, c) }
	res := &Result{}
	d := in.Plan.Deployment
	c := in.Cluster

	templates := podTemplates(in.Plan, base, c.LimitRanges)
	var quotas []corev1.ResourceQuota
	if on(CheckQuota) {
		quotas = res.quotaInputs(c, templates)
	}
	capacity := on(CheckCapacity) && res.capacityInputs(c, templates, base)
	if quotas != nil || capacity {
		if err := res.replay(in, base, templates, quotas, capacity); err != nil {
			return nil, err
		}
	}
	if on(CheckPDB) {
		res.checkPDBs(d, base, c)
	}
	if on(CheckHPA) {
		res.checkHPAs(d, in.Live, base, c)
	}
	return res, nil
}

func withoutCap(in planner.Input) planner.Input {
	in.PodCap = nil
	return in
}

func (r *Result) unchecked(check, format string, args ...any) {
	r.Unchecked = append(r.Unchecked, Unchecked{Check: check, Reason: fmt.Sprintf(format, args...)})
}

func (r *Result) checked(check string) { r.Checked = append(r.Checked, check) }

func orReason(reason, kind string) string {
	if reason != "" {
		return reason
	}
	return kind + " not read"
}

// podTemplates returns, by ReplicaSet name, the pod each ReplicaSet of the plan creates,
// defaulted as the API server and the LimitRanger do.
func podTemplates(in planner.Input, p *planner.Plan, limitRanges []corev1.LimitRange) map[string]*corev1.Pod {
	ns := in.Deployment.Namespace
	out := map[string]*corev1.Pod{}
	for _, rs := range in.ReplicaSets {
		out[rs.Name] = PodFromTemplate(ns, &rs.Spec.Template, limitRanges)
	}
	if _, ok := out[p.NewReplicaSet.Name]; !ok {
		out[p.NewReplicaSet.Name] = PodFromTemplate(ns, &in.Deployment.Spec.Template, limitRanges)
	}
	return out
}

// quotaInputs decides whether quota can be checked and returns the quotas it models
// (nil: not checked).
func (r *Result) quotaInputs(c Cluster, templates map[string]*corev1.Pod) []corev1.ResourceQuota {
	if c.ResourceQuotas == nil {
		r.unchecked(CheckQuota, "%s", orReason(c.QuotaReason, "resourcequotas"))
		return nil
	}
	if c.LimitRanges == nil {
		r.unchecked(CheckQuota, "%s: pods' default requests and limits unknown", orReason(c.LimitRangeReason, "limitranges"))
		return nil
	}
	quotas := []corev1.ResourceQuota{}
	for _, q := range c.ResourceQuotas {
		known := true
		for _, t := range templates {
			if _, ok := scopeMatch(&q, t); !ok {
				known = false
			}
		}
		if !known {
			r.unchecked(CheckQuota, "resourcequota/%s: scope not modelled", q.Name)
			continue
		}
		quotas = append(quotas, q)
	}
	for _, rs := range sortedKeys(templates) {
		if rc := templates[rs].Spec.RuntimeClassName; rc != nil && *rc != "" {
			r.unchecked(CheckQuota, "pods of replicaset/%s: the overhead of runtime class %q is not read (charged without it)", rs, *rc)
		}
	}
	for _, lr := range c.LimitRanges {
		for _, item := range lr.Spec.Limits {
			if len(item.Min) > 0 || len(item.Max) > 0 || len(item.MaxLimitRequestRatio) > 0 {
				r.unchecked(CheckQuota, "limitrange/%s: min, max and ratio validation not modelled", lr.Name)
				break
			}
		}
	}
	r.checked(CheckQuota)
	return quotas
}

// capacityInputs decides whether capacity can be checked.
func (r *Result) capacityInputs(c Cluster, templates map[string]*corev1.Pod, p *planner.Plan) bool {
	switch {
	case c.Nodes == nil:
		r.unchecked(CheckCapacity, "%s", orReason(c.NodeReason, "nodes"))
		return false
	case c.Pods == nil:
		r.unchecked(CheckCapacity, "%s", orReason(c.PodReason, "pods"))
		return false
	}
	for _, rs := range p.ReplicaSets {
		if t := templates[rs.Name]; t != nil {
			if u := unmodelled(t); len(u) > 0 {
				r.unchecked(CheckCapacity, "pods of replicaset/%s: %s not modelled (only the node filters are checked)", rs.Name, strings.Join(u, ", "))
			}
		}
	}
	r.checked(CheckCapacity)
	return true
}

// replay simulates the plan again with the pods quota and capacity hold back, then walks its
// steps to say, per step, what is refused or Pending, and where it stalls.
func (r *Result) replay(in Input, base *planner.Plan, templates map[string]*corev1.Pod, quotas []corev1.ResourceQuota, capacity bool) error {
	c := in.Cluster
	existing := existingPods(in.Plan.Deployment.Namespace, c.Pods, in.Plan.ReplicaSets)
	if c.Pods == nil {
		existing = assumedPods(in.Plan.ReplicaSets, templates)
	}
	names := make([]string, len(base.ReplicaSets))
	for i, rs := range base.ReplicaSets {
		names[i] = rs.Name
	}
	mk := func() *world { return newWorld(names, templates, existing, quotas, c.Nodes, c.Pods, capacity) }

	capped := in.Plan
	timed := capped.Readiness == planner.ReadinessTimed
	if timed {
		capped.Readiness = planner.ReadinessBatched
	}
	hook := mk()
	capped.PodCap = func(got []string, replicas []int32) []int32 {
		if !slices.Equal(got, names) {
			return nil
		}
		return hook.reconcile(replicas)
	}
	p, err := planner.Simulate(capped)
	if err != nil {
		return err
	}
	w := mk()
	w.reconcile(p.Initial)
	prev := ""
	var last []shortfall
	for k, step := range p.Steps {
		w.reconcile(step.Replicas)
		last = w.shortfalls(step.Replicas)
		sig := fmt.Sprint(last)
		if sig != prev && len(last) > 0 {
			for _, sf := range last {
				r.Findings = append(r.Findings, sf.finding(printedStep(p, base, k+1, timed)))
			}
		}
		prev = sig
	}
	if len(p.Steps) == 0 {
		last = w.shortfalls(p.Initial)
	}
	if p.Outcome == planner.OutcomeStalled && base.Outcome != planner.OutcomeStalled && len(last) > 0 {
		r.Stall = stallOf(printedStep(p, base, len(p.Steps), timed), last)
		for i := range r.Findings {
			if r.Findings[i].Step == r.Stall.Step {
				r.Findings[i].Severity = SeverityStall
			}
		}
	}
	if !timed && !samePlan(p, base) {
		r.Plan = p
	}
	return nil
}

// printedStep is step k (from 1) of the replayed plan p as a step of the printed plan base.
// Under the timed model the replay is batched and its steps are not base's: k becomes the
// first step of base that reaches p's step k's replicas, or, if none does, the last step of
// base that has no more replicas than it in any ReplicaSet. Otherwise k is kept.
func printedStep(p, base *planner.Plan, k int, timed bool) int {
	if !timed || k < 1 || k > len(p.Steps) {
		return k
	}
	want := p.Steps[k-1].Replicas
	for j, s := range base.Steps {
		if slices.Equal(s.Replicas, want) {
			return j + 1
		}
	}
	out := min(k, len(base.Steps))
	for j, s := range base.Steps {
		if len(s.Replicas) != len(want) {
			continue
		}
		under := true
		for i := range want {
			under = under && s.Replicas[i] <= want[i]
		}
		if under {
			out = j + 1
		}
	}
	return out
}

// assumedPods stands for the existing pods when pods were not read: status.replicas pods of
// each ReplicaSet's template.
func assumedPods(rss []*appsv1.ReplicaSet, templates map[string]*corev1.Pod) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, rs := range rss {
		for range rs.Status.Replicas {
			out[rs.Name] = append(out[rs.Name], templates[rs.Name])
		}
	}
	return out
}

func (sf shortfall) finding(step int) Finding {
	f := Finding{Step: step, Severity: SeverityWarning}
	switch {
	case sf.refused != "":
		f.Check, f.Object = CheckQuota, sf.refusedBy
		f.Message = fmt.Sprintf("replicaset/%s: %d of %d pods created, %d refused: %s", sf.rs, sf.have, sf.want, sf.want-sf.have, sf.refused)
	default:
		f.Check, f.Object = CheckCapacity, "replicaset/"+sf.rs
		f.Message = fmt.Sprintf("replicaset/%s: %d of %d pods Pending: %s", sf.rs, sf.have-sf.placed, sf.want, sf.pending)
	}
	return f
}

// stallOf words the stall after step from the ReplicaSets' shortfalls there.
func stallOf(step int, sfs []shortfall) *Stall {
	s := &Stall{Step: step, Reason: ReasonUnschedulable}
	var msgs []string
	for _, sf := range sfs {
		if sf.refused != "" {
			s.Reason = ReasonQuota
		}
	}
	for _, sf := range sfs {
		switch {
		case sf.refused != "" && s.Reason == ReasonQuota:
			msgs = append(msgs, fmt.Sprintf("%d pod(s) of replicaset/%s refused: %s", sf.want-sf.have, sf.rs, sf.refused))
			if !slices.Contains(s.Objects, sf.refusedBy) {
				s.Objects = append(s.Objects, sf.refusedBy)
			}
		case sf.pending != "" && s.Reason == ReasonUnschedulable:
			msgs = append(msgs, fmt.Sprintf("%d pod(s) of replicaset/%s Pending: %s", sf.have-sf.placed, sf.rs, sf.pending))
			s.Objects = append(s.Objects, "replicaset/"+sf.rs)
		}
	}
	s.Message = strings.Join(msgs, "; ")
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// samePlan: same outcome and the same writes.
func samePlan(a, b *planner.Plan) bool {
	if a.Outcome != b.Outcome || len(a.Steps) != len(b.Steps) {
		return false
	}
	for i := range a.Steps {
		if !slices.Equal(a.Steps[i].Replicas, b.Steps[i].Replicas) {
			return false
		}
	}
	return true
}

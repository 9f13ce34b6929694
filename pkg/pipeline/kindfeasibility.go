package pipeline

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/planner/daemonset"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// CheckKind runs the feasibility checks (Config.Feasibility; none when empty) on p, a
// StatefulSet's or DaemonSet's plan made by PlanKind from src, and sets p.Feasibility
// (feasibility.CheckPodOperations; nil when quiet). The objects are read as for Deployments:
// from a cluster once per Source and namespace (and nodes and every pod once per Source),
// shared with every other plan of c; from a state file, its nodes and pods (capacity), the
// other kinds unchecked "not in the state file".
func (c *Config) CheckKind(ctx context.Context, src KindSource, p *KindPlan) {
	if len(c.Feasibility) == 0 || p == nil || p.desired.Object() == nil {
		return
	}
	in := feasibility.KindInput{Kind: p.Workload.Kind, Namespace: p.Workload.Namespace, Name: p.Workload.Name,
		Ops: p.PodOperations, Pods: p.pods, LiveReplicas: p.liveReplicas, Cluster: c.kindObjects(ctx, src, p.Workload.Namespace), Checks: c.Feasibility}
	if s := p.desired.StatefulSet; s != nil {
		in.Replicas = s.Spec.Replicas
		in.PodFor = func(planner.PodOperation) *corev1.Pod {
			return &corev1.Pod{ObjectMeta: *s.Spec.Template.ObjectMeta.DeepCopy(), Spec: *s.Spec.Template.Spec.DeepCopy()}
		}
	} else {
		ds := p.desired.DaemonSet
		in.PodFor = func(op planner.PodOperation) *corev1.Pod { return daemonset.NewNodePod(ds, op.Node) }
	}
	if r := feasibility.CheckPodOperations(in); !quiet(r) {
		p.Feasibility = r
	}
}

// kindObjects is Config.objects for a KindSource and namespace.
func (c *Config) kindObjects(ctx context.Context, src KindSource, namespace string) feasibility.Cluster {
	var out feasibility.Cluster
	if !src.Live() {
		const r = "not in the state file"
		out = feasibility.Cluster{QuotaReason: "resourcequotas " + r, LimitRangeReason: "limitranges " + r,
			NodeReason: "nodes " + r, PodReason: "pods " + r, PDBReason: "poddisruptionbudgets " + r, HPAReason: "horizontalpodautoscalers " + r}
		if f, ok := src.(*KindFile); ok {
			if objs, err := f.objects(); err == nil && len(objs.Nodes) > 0 {
				out.Nodes, out.Pods = []corev1.Node{}, []corev1.Pod{}
				for _, n := range objs.Nodes {
					out.Nodes = append(out.Nodes, *n)
				}
				for _, pod := range objs.Pods {
					out.Pods = append(out.Pods, *pod)
				}
			}
		}
	} else {
		out = c.liveObjects(ctx, src, namespace)
	}
	if out.Nodes != nil && len(out.Nodes) == 0 {
		out.Nodes, out.NodeReason = nil, noNodes
	}
	return out
}

// CheckKindChange plans change c to the object ref names in src (PlanKindMember) and runs
// c's feasibility checks on the plan (CheckKind): what drive sts/NAME runs before its first
// write. The partition walk replaces the pods the plan replaces, in the same order, so the
// plan's stall is the walk's. Returns nil when no check is asked for or they have nothing to
// say. Errors: the selection's and the plan's.
func (c *Config) CheckKindChange(ctx context.Context, src KindSource, ref target.KindRef, change KindChange) (*feasibility.Result, error) {
	if len(c.Feasibility) == 0 {
		return nil, nil
	}
	ms, err := src.SelectKinds(ctx, KindSelection{Refs: []target.KindRef{ref}})
	if err != nil {
		return nil, err
	}
	if len(ms) != 1 {
		return nil, fmt.Errorf("%s: not selected", ref)
	}
	p, err := PlanKindMember(ctx, src, ms[0], change, planner.ReadinessBatched)
	if err != nil {
		return nil, err
	}
	c.CheckKind(ctx, src, p)
	return p.Feasibility, nil
}

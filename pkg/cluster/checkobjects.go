package cluster

import (
	"context"
	"fmt"
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
)

// livePodsSelector leaves out terminal pods, which hold no node resources and no quota's
// compute resources.
const livePodsSelector = "status.phase!=Succeeded,status.phase!=Failed"

// LoadCheckObjects reads what the feasibility checks named in checks (feasibility.AllChecks
// when nil) need, with one LIST per kind and scope, each paginated in pages of chunkSize
// (0: one page): LoadNamespaceCheckObjects' kinds of namespace and LoadClusterCheckObjects'
// nodes and pods, in one Cluster.
//
// A read that fails leaves that kind nil with the reason set ("forbidden to list nodes"),
// which makes the checks needing it unchecked: it is never an error.
func LoadCheckObjects(ctx context.Context, client kubernetes.Interface, namespace string, checks []string, chunkSize int64) feasibility.Cluster {
	c := LoadNamespaceCheckObjects(ctx, client, namespace, checks, chunkSize)
	if capacityOn(checks) {
		all := LoadClusterCheckObjects(ctx, client, checks, chunkSize)
		c.Nodes, c.NodeReason, c.Pods, c.PodReason = all.Nodes, all.NodeReason, all.Pods, all.PodReason
	}
	return c
}

// LoadNamespaceCheckObjects reads the namespaced kinds of namespace the checks named in checks
// (feasibility.AllChecks when nil) need, one paginated LIST each: ResourceQuotas and
// LimitRanges (quota), PodDisruptionBudgets (pdb), HorizontalPodAutoscalers (hpa,
// autoscaling/v2), and the namespace's non-terminal Pods when quota is checked without
// capacity (quota: where the Deployment's pods are). With capacity on, the Pods are left to
// LoadClusterCheckObjects, whose read of every pod holds the namespace's: a second LIST of
// them would read the same pods twice.
func LoadNamespaceCheckObjects(ctx context.Context, client kubernetes.Interface, namespace string, checks []string, chunkSize int64) feasibility.Cluster {
	if checks == nil {
		checks = feasibility.AllChecks
	}
	on := func(c string) bool { return slices.Contains(checks, c) }
	scope := Scope{Namespace: namespace, ChunkSize: chunkSize}
	var c feasibility.Cluster
	if on(feasibility.CheckQuota) {
		c.ResourceQuotas, c.QuotaReason = listAll[corev1.ResourceQuota](ctx, scope, "resourcequotas", metav1.ListOptions{},
			func(o metav1.ListOptions) (runtime.Object, error) {
				return client.CoreV1().ResourceQuotas(namespace).List(ctx, o)
			})
		c.LimitRanges, c.LimitRangeReason = listAll[corev1.LimitRange](ctx, scope, "limitranges", metav1.ListOptions{},
			func(o metav1.ListOptions) (runtime.Object, error) {
				return client.CoreV1().LimitRanges(namespace).List(ctx, o)
			})
		if !capacityOn(checks) {
			c.Pods, c.PodReason = listAll[corev1.Pod](ctx, scope, "pods", metav1.ListOptions{FieldSelector: livePodsSelector},
				func(o metav1.ListOptions) (runtime.Object, error) {
					return client.CoreV1().Pods(namespace).List(ctx, o)
				})
		}
	}
	if on(feasibility.CheckPDB) {
		c.PodDisruptionBudgets, c.PDBReason = listAll[policyv1.PodDisruptionBudget](ctx, scope, "poddisruptionbudgets", metav1.ListOptions{},
			func(o metav1.ListOptions) (runtime.Object, error) {
				return client.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, o)
			})
	}
	if on(feasibility.CheckHPA) {
		c.HorizontalPodAutoscalers, c.HPAReason = listAll[autoscalingv2.HorizontalPodAutoscaler](ctx, scope, "horizontalpodautoscalers", metav1.ListOptions{},
			func(o metav1.ListOptions) (runtime.Object, error) {
				return client.AutoscalingV2().HorizontalPodAutoscalers(namespace).List(ctx, o)
			})
	}
	return c
}

// LoadClusterCheckObjects reads the Nodes and the non-terminal Pods of every namespace, one
// paginated LIST each, when checks (feasibility.AllChecks when nil) holds capacity; else it
// reads nothing and returns an empty Cluster.
func LoadClusterCheckObjects(ctx context.Context, client kubernetes.Interface, checks []string, chunkSize int64) feasibility.Cluster {
	var c feasibility.Cluster
	if !capacityOn(checks) {
		return c
	}
	all := Scope{ChunkSize: chunkSize}
	c.Nodes, c.NodeReason = listAll[corev1.Node](ctx, all, "nodes", metav1.ListOptions{},
		func(o metav1.ListOptions) (runtime.Object, error) { return client.CoreV1().Nodes().List(ctx, o) })
	c.Pods, c.PodReason = listAll[corev1.Pod](ctx, all, "pods", metav1.ListOptions{FieldSelector: livePodsSelector},
		func(o metav1.ListOptions) (runtime.Object, error) { return client.CoreV1().Pods("").List(ctx, o) })
	return c
}

// capacityOn says checks (feasibility.AllChecks when nil) holds capacity.
func capacityOn(checks []string) bool {
	return checks == nil || slices.Contains(checks, feasibility.CheckCapacity)
}

// listAll lists every item of one kind with listPages, without its managedFields (no check
// reads them, and they are a large part of a pod as the API server returns it: the read of
// every pod keeps thousands); on failure it returns nil and the reason the check shows.
func listAll[T any](ctx context.Context, scope Scope, resource string, opts metav1.ListOptions, list func(metav1.ListOptions) (runtime.Object, error)) ([]T, string) {
	out := []T{}
	err := listPages(ctx, scope, opts, list, func(obj runtime.Object) error {
		item, ok := any(obj).(*T)
		if !ok {
			return fmt.Errorf("got %T", obj)
		}
		if a, err := meta.Accessor(obj); err == nil {
			a.SetManagedFields(nil)
		}
		out = append(out, *item)
		return nil
	})
	if err == nil {
		return out, ""
	}
	where := "in namespace " + scope.Namespace
	if scope.Namespace == "" {
		where = "cluster-wide"
	}
	if resource == "nodes" {
		where = ""
	}
	switch {
	case apierrors.IsForbidden(err):
		return nil, joinWords("forbidden to list", resource, where)
	default:
		return nil, joinWords("list", resource, where) + ": " + err.Error()
	}
}

func joinWords(a, b, c string) string {
	if c == "" {
		return a + " " + b
	}
	return a + " " + b + " " + c
}

// checkKinds are the kinds a state file may carry for the feasibility checks, with the
// apiVersion read (`kubectl get quota,limitrange,pdb,hpa,nodes,pods -o yaml` prints these).
var checkKinds = map[string]string{
	"ResourceQuota":           "v1",
	"LimitRange":              "v1",
	"Node":                    "v1",
	"Pod":                     "v1",
	"PodDisruptionBudget":     "policy/v1",
	"HorizontalPodAutoscaler": "autoscaling/v2",
}

// checkObjectsOf returns the feasibility checks' objects of a state file for a Deployment
// in namespace: the namespaced kinds of that namespace (an object without a namespace
// matches), every Node and Pod. A kind the file does not hold is nil with the reason "no
// nodes in the state file"; one that did not decode, nil with the decoding error.
func checkObjectsOf(objs []object, namespace, source string) *feasibility.Cluster {
	var c feasibility.Cluster
	reasons := map[string]string{}
	seen := map[string]bool{}
	for _, o := range objs {
		if _, ok := checkKinds[o.kind]; !ok || checkKinds[o.kind] != o.apiVersion {
			continue
		}
		seen[o.kind] = true
		if o.checkErr != nil {
			reasons[o.kind] = fmt.Sprintf("%s: %s %s %q: %v", source, o.where, o.kind, o.name, o.checkErr)
			continue
		}
		namespaced := o.kind != "Node" && o.kind != "Pod"
		if namespaced && o.namespace != "" && namespace != "" && o.namespace != namespace {
			continue
		}
		switch t := o.check.(type) {
		case *corev1.ResourceQuota:
			c.ResourceQuotas = append(c.ResourceQuotas, *t)
		case *corev1.LimitRange:
			c.LimitRanges = append(c.LimitRanges, *t)
		case *corev1.Node:
			c.Nodes = append(c.Nodes, *t)
		case *corev1.Pod:
			c.Pods = append(c.Pods, *t)
		case *policyv1.PodDisruptionBudget:
			c.PodDisruptionBudgets = append(c.PodDisruptionBudgets, *t)
		case *autoscalingv2.HorizontalPodAutoscaler:
			c.HorizontalPodAutoscalers = append(c.HorizontalPodAutoscalers, *t)
		}
	}
	kind := func(k, plural string, reason *string, empty func()) {
		switch {
		case reasons[k] != "":
			*reason = reasons[k]
			return
		case !seen[k]:
			*reason = "no " + plural + " in the state file"
		default:
			empty()
		}
	}
	// A kind the file holds (perhaps only in another namespace) is read: none is an empty list.
	kind("ResourceQuota", "resourcequotas", &c.QuotaReason, func() { c.ResourceQuotas = nonNil(c.ResourceQuotas) })
	kind("LimitRange", "limitranges", &c.LimitRangeReason, func() { c.LimitRanges = nonNil(c.LimitRanges) })
	kind("Node", "nodes", &c.NodeReason, func() { c.Nodes = nonNil(c.Nodes) })
	kind("Pod", "pods", &c.PodReason, func() { c.Pods = nonNil(c.Pods) })
	kind("PodDisruptionBudget", "poddisruptionbudgets", &c.PDBReason, func() { c.PodDisruptionBudgets = nonNil(c.PodDisruptionBudgets) })
	kind("HorizontalPodAutoscaler", "horizontalpodautoscalers", &c.HPAReason, func() { c.HorizontalPodAutoscalers = nonNil(c.HorizontalPodAutoscalers) })
	// A kind with an object that did not decode is not read at all: a partial list would
	// check against the wrong numbers.
	if reasons["ResourceQuota"] != "" {
		c.ResourceQuotas = nil
	}
	if reasons["LimitRange"] != "" {
		c.LimitRanges = nil
	}
	if reasons["Node"] != "" {
		c.Nodes = nil
	}
	if reasons["Pod"] != "" {
		c.Pods = nil
	}
	if reasons["PodDisruptionBudget"] != "" {
		c.PodDisruptionBudgets = nil
	}
	if reasons["HorizontalPodAutoscaler"] != "" {
		c.HorizontalPodAutoscalers = nil
	}
	return &c
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

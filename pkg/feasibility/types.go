package feasibility

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// The checks, by the names --checks takes.
const (
	CheckQuota    = "quota"
	CheckCapacity = "capacity"
	CheckPDB      = "pdb"
	CheckHPA      = "hpa"
)

// AllChecks lists every check, in the order results show them.
var AllChecks = []string{CheckQuota, CheckCapacity, CheckPDB, CheckHPA}

// Severities of a Finding.
const (
	// SeverityStall: the rollout stops at this step until the cluster changes.
	SeverityStall = "Stall"
	// SeverityWarning: the rollout goes on, but not as the plan without the check says
	// (pods refused or Pending for a while, a budget exceeded, an HPA overriding the change).
	SeverityWarning = "Warning"
	// SeverityInfo: context (an HPA's numbers).
	SeverityInfo = "Info"
)

// Reasons of a Stall.
const (
	ReasonQuota         = "Quota"
	ReasonUnschedulable = "Unschedulable"
)

// Cluster is what the checks read. A nil slice means the kind was not read (the check that
// needs it is unchecked, with ...Reason saying why when set, for example "forbidden to list
// nodes"); an empty non-nil slice means read and none found.
type Cluster struct {
	ResourceQuotas []corev1.ResourceQuota
	LimitRanges    []corev1.LimitRange
	Nodes          []corev1.Node
	// Pods are every pod of the cluster (capacity: what each node has bound) or at least of
	// the namespace (quota: which of the Deployment's pods exist, and where).
	Pods                                                                       []corev1.Pod
	PodDisruptionBudgets                                                       []policyv1.PodDisruptionBudget
	HorizontalPodAutoscalers                                                   []autoscalingv2.HorizontalPodAutoscaler
	QuotaReason, LimitRangeReason, NodeReason, PodReason, PDBReason, HPAReason string
}

// Input is what Check needs.
type Input struct {
	// Plan is the planner's input (Deployment after the change, ReplicaSets, readiness).
	// Check simulates it again with a PodCap when quota or capacity hold pods back.
	Plan planner.Input
	// Live is the Deployment as it is in the cluster (nil: a new Deployment, or unknown):
	// the HPA check compares its spec.replicas with the change's.
	Live *appsv1.Deployment
	// Cluster holds the objects read.
	Cluster Cluster
	// Checks names the checks to run (AllChecks when nil; empty non-nil: none).
	Checks []string
}

// Result is the outcome of the checks; its JSON shape is the plan's `feasibility` field.
type Result struct {
	// Checked lists the checks that ran on every pod.
	Checked []string `json:"checked,omitempty"`
	// Unchecked lists what could not be checked, and why.
	Unchecked []Unchecked `json:"unchecked,omitempty"`
	// Stall is where the rollout stops, if the checks say it does.
	Stall *Stall `json:"stall,omitempty"`
	// Findings are the checks' findings, in step order.
	Findings []Finding `json:"findings,omitempty"`
	// Plan is the plan replayed with the pods the cluster holds back (refused by quota,
	// Pending) unavailable, when that differs from the input plan; nil otherwise.
	Plan *planner.Plan `json:"-"`
}

// Unchecked is a check, or part of one, that did not run.
type Unchecked struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
}

// Stall is the step where no further write can happen.
type Stall struct {
	// Step numbers the step (from 1) after which the controller stops writing; 0 when it
	// stops before its first write.
	Step int `json:"step"`
	// Reason is Quota or Unschedulable.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Objects name what holds the rollout ("resourcequota/compute", "node/a").
	Objects []string `json:"objects,omitempty"`
}

// Finding is one thing a check found.
type Finding struct {
	Check string `json:"check"`
	// Step numbers the plan's step (from 1) it concerns; 0 for the plan as a whole.
	Step     int    `json:"step"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Object names the object ("resourcequota/compute", "poddisruptionbudget/web").
	Object string `json:"object,omitempty"`
}

// ParseChecks parses the value of --checks: a comma-separated list of quota, capacity, pdb
// and hpa, "all" (AllChecks) or "none" (an empty, non-nil list). Unknown names are an error
// naming the valid ones.
func ParseChecks(s string) ([]string, error) {
	switch strings.TrimSpace(s) {
	case "", "all":
		return slices.Clone(AllChecks), nil
	case "none":
		return []string{}, nil
	}
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(AllChecks, name) {
			return nil, fmt.Errorf("--checks: unknown check %q: use a comma-separated list of quota, capacity, pdb, hpa, or all, or none", name)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

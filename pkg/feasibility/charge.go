package feasibility

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	resourcehelper "k8s.io/component-helpers/resource"
)

// countPods is the object-count quota name of pods.
const countPods corev1.ResourceName = "count/pods"

// deviceClassPrefix is resourceapi.ResourceDeviceClassPrefix (implicit DRA extended resources).
const deviceClassPrefix = "deviceclass.resource.kubernetes.io/"

// PodFromTemplate returns the pod the ReplicaSet controller creates from template in
// namespace, as quota admission and the scheduler see it: API defaulting of requests from
// limits (SetDefaults_Pod, pkg/apis/core/v1/defaults.go), then the LimitRanger's defaults of
// the namespace's LimitRanges, in list order (the first one to set a resource wins).
//
// Mirrors mergePodResourceRequirements, plugin/pkg/admission/limitranger, v1.36.3.
func PodFromTemplate(namespace string, template *corev1.PodTemplateSpec, limitRanges []corev1.LimitRange) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: *template.ObjectMeta.DeepCopy(),
		Spec:       *template.Spec.DeepCopy(),
	}
	pod.Namespace = namespace
	DefaultPod(pod, limitRanges)
	return pod
}

// DefaultPod applies to pod the API's request-from-limit defaulting and the LimitRanger's
// defaults (see PodFromTemplate). It modifies pod.
func DefaultPod(pod *corev1.Pod, limitRanges []corev1.LimitRange) {
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			requestsFromLimits(&cs[i].Resources)
		}
	}
	if pod.Spec.Resources != nil {
		requestsFromLimits(pod.Spec.Resources)
	}
	for i := range limitRanges {
		reqs, lims := containerDefaults(&limitRanges[i])
		if len(reqs) == 0 && len(lims) == 0 {
			continue
		}
		for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for j := range cs {
				mergeDefaults(&cs[j].Resources, reqs, lims)
			}
		}
	}
}

// requestsFromLimits sets a request equal to the limit for every resource with a limit and
// no request (SetDefaults_Pod).
func requestsFromLimits(r *corev1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	for k, v := range r.Limits {
		if _, ok := r.Requests[k]; !ok {
			r.Requests[k] = v.DeepCopy()
		}
	}
}

// containerDefaults mirrors defaultContainerResourceRequirements: the defaultRequest and
// default of the LimitRange's Container items.
func containerDefaults(lr *corev1.LimitRange) (reqs, lims corev1.ResourceList) {
	reqs, lims = corev1.ResourceList{}, corev1.ResourceList{}
	for _, item := range lr.Spec.Limits {
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		for k, v := range item.DefaultRequest {
			reqs[k] = v.DeepCopy()
		}
		for k, v := range item.Default {
			lims[k] = v.DeepCopy()
		}
	}
	return reqs, lims
}

// mergeDefaults mirrors mergeContainerResources: a default is set where the container has none.
func mergeDefaults(r *corev1.ResourceRequirements, reqs, lims corev1.ResourceList) {
	if r.Limits == nil {
		r.Limits = corev1.ResourceList{}
	}
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	for k, v := range lims {
		if _, ok := r.Limits[k]; !ok {
			r.Limits[k] = v.DeepCopy()
		}
	}
	for k, v := range reqs {
		if _, ok := r.Requests[k]; !ok {
			r.Requests[k] = v.DeepCopy()
		}
	}
}

// Charge is what quota admission charges for creating pod (already defaulted): count/pods,
// pods, and the compute usage of its effective requests and limits (init and sidecar
// containers, overhead and pod-level resources included).
//
// Mirrors PodUsageFunc and podComputeUsageHelper, pkg/quota/v1/evaluator/core/pods.go,
// v1.36.3, for a pod being created (not terminal, not deleted).
func Charge(pod *corev1.Pod) corev1.ResourceList {
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: true}
	requests := resourcehelper.PodRequests(pod, opts)
	limits := resourcehelper.PodLimits(pod, opts)
	out := computeUsage(requests, limits)
	out[countPods] = *resource.NewQuantity(1, resource.DecimalSI)
	return out
}

// computeUsage mirrors podComputeUsageHelper.
func computeUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
	for _, r := range []struct{ plain, req, lim corev1.ResourceName }{
		{corev1.ResourceCPU, corev1.ResourceRequestsCPU, corev1.ResourceLimitsCPU},
		{corev1.ResourceMemory, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory},
		{corev1.ResourceEphemeralStorage, corev1.ResourceRequestsEphemeralStorage, corev1.ResourceLimitsEphemeralStorage},
	} {
		if q, ok := requests[r.plain]; ok {
			out[r.plain] = q
			out[r.req] = q
		}
		if q, ok := limits[r.plain]; ok {
			out[r.lim] = q
		}
	}
	for name, q := range requests {
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			out[name] = q
			out[corev1.DefaultResourceRequestsPrefix+name] = q
		}
		if isExtendedResourceName(name) || strings.HasPrefix(string(name), deviceClassPrefix) {
			out[corev1.DefaultResourceRequestsPrefix+name] = q
		}
	}
	return out
}

// isNativeResource mirrors helper.IsNativeResource (pkg/apis/core/v1/helper).
func isNativeResource(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

// isExtendedResourceName mirrors helper.IsExtendedResourceName (pkg/apis/core/v1/helper).
func isExtendedResourceName(name corev1.ResourceName) bool {
	if isNativeResource(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// quotaTracks mirrors podEvaluator.MatchingResources for one resource name: whether quota of
// pods tracks it.
func quotaTracks(name corev1.ResourceName) bool {
	switch name {
	case countPods, corev1.ResourcePods, corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
		corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
		corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage:
		return true
	}
	s := string(name)
	if strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) || strings.HasPrefix(s, corev1.ResourceRequestsHugePagesPrefix) {
		return true
	}
	isRequest := strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix)
	return isRequest && (!isNativeResource(name) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix+deviceClassPrefix))
}

// isBestEffort mirrors qos.GetPodQOS(pod) == BestEffort: no cpu or memory request or limit
// in any container, init container, or at pod level.
func isBestEffort(pod *corev1.Pod) bool {
	has := func(l corev1.ResourceList) bool {
		for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := l[n]; ok && q.Sign() > 0 {
				return true
			}
		}
		return false
	}
	if r := pod.Spec.Resources; r != nil && (has(r.Requests) || has(r.Limits)) {
		return false
	}
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			if has(c.Resources.Requests) || has(c.Resources.Limits) {
				return false
			}
		}
	}
	return true
}

// missingRequired mirrors podEvaluator.Constraints: when a quota tracks cpu or memory, every
// container must state it; it returns the admission's message ("must specify limits.cpu for:
// app") or "".
func missingRequired(pod *corev1.Pod, tracked []corev1.ResourceName) string {
	if r := pod.Spec.Resources; r != nil && (len(r.Requests) > 0 || len(r.Limits) > 0) {
		return ""
	}
	var required []corev1.ResourceName
	for _, n := range tracked {
		switch n {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory,
			corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory:
			required = append(required, n)
		}
	}
	missing := map[corev1.ResourceName][]string{}
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			usage := computeUsage(c.Resources.Requests, c.Resources.Limits)
			for _, n := range required {
				if _, ok := usage[n]; !ok && !slices.Contains(missing[n], c.Name) {
					missing[n] = append(missing[n], c.Name)
				}
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	names := make([]string, 0, len(missing))
	for n := range missing {
		names = append(names, string(n))
	}
	slices.Sort(names)
	msgs := make([]string, 0, len(names))
	for _, n := range names {
		cs := missing[corev1.ResourceName(n)]
		slices.Sort(cs)
		msgs = append(msgs, fmt.Sprintf("%s for: %s", n, strings.Join(cs, ",")))
	}
	return "must specify " + strings.Join(msgs, "; ")
}

// quotaHard is the quota's status.hard, which admission enforces, or spec.hard while the
// quota controller has not filled the status yet.
func quotaHard(q *corev1.ResourceQuota) corev1.ResourceList {
	if len(q.Status.Hard) > 0 {
		return q.Status.Hard
	}
	return q.Spec.Hard
}

// scopeMatch says whether quota q applies to pod (generic.Matches with podMatchesScopeFunc);
// ok is false for a scope the check does not model.
func scopeMatch(q *corev1.ResourceQuota, pod *corev1.Pod) (match, ok bool) {
	var sels []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		sels = append(sels, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		sels = append(sels, q.Spec.ScopeSelector.MatchExpressions...)
	}
	match = true
	for _, sel := range sels {
		m, known := selectorMatch(sel, pod)
		if !known {
			return false, false
		}
		match = match && m
	}
	return match, true
}

func selectorMatch(sel corev1.ScopedResourceSelectorRequirement, pod *corev1.Pod) (match, known bool) {
	terminating := pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
	switch sel.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return terminating, true
	case corev1.ResourceQuotaScopeNotTerminating:
		return !terminating, true
	case corev1.ResourceQuotaScopeBestEffort:
		return isBestEffort(pod), true
	case corev1.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(pod), true
	case corev1.ResourceQuotaScopePriorityClass:
		if sel.Operator == corev1.ScopeSelectorOpExists {
			return pod.Spec.PriorityClassName != "", true
		}
		ls, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: string(corev1.ResourceQuotaScopePriorityClass), Operator: metav1.LabelSelectorOperator(sel.Operator), Values: sel.Values,
		}}})
		if err != nil {
			return false, false
		}
		set := map[string]string{}
		if pod.Spec.PriorityClassName != "" {
			set[string(corev1.ResourceQuotaScopePriorityClass)] = pod.Spec.PriorityClassName
		}
		return ls.Matches(labels.Set(set)), true
	}
	return false, false
}

func slicesSort(names []corev1.ResourceName) { slices.Sort(names) }

// QuotaApplies says whether quota admission charges pod (defaulted) to q: q's scopes match
// the pod and q limits a resource of pods. modelled is false for a scope the check does not
// model (CrossNamespacePodAffinity, VolumeAttributesClass).
//
// Mirrors podEvaluator.Matches (generic.Matches), pkg/quota/v1/evaluator/core, v1.36.3.
func QuotaApplies(q *corev1.ResourceQuota, pod *corev1.Pod) (applies, modelled bool) {
	m, ok := scopeMatch(q, pod)
	if !ok {
		return false, false
	}
	return m && tracksAny(quotaHard(q)), true
}

// QuotaConstraint is the admission's refusal of pod by q for a container that does not state
// cpu or memory while q limits it ("must specify limits.cpu for: app"), or "".
//
// Mirrors podEvaluator.Constraints, pkg/quota/v1/evaluator/core, v1.36.3.
func QuotaConstraint(q *corev1.ResourceQuota, pod *corev1.Pod) string {
	var tracked []corev1.ResourceName
	for n := range quotaHard(q) {
		if quotaTracks(n) {
			tracked = append(tracked, n)
		}
	}
	return missingRequired(pod, tracked)
}

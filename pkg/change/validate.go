package change

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

var deploymentKind = schema.GroupKind{Group: appsv1.GroupName, Kind: "Deployment"}

// Validate checks the parts of a Deployment's spec the API server would reject and the
// planner depends on, after the apps/v1 defaults (ApplyDefaults' spec part) as the server
// validates defaulted objects. It returns nil or an apierrors.StatusError of reason Invalid
// (apierrors.IsInvalid) worded as the API server words it:
//
//	Deployment.apps "web" is invalid: spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0
//
// Checked, mirroring ValidateDeploymentSpec (pkg/apis/apps/validation/validation.go,
// v1.36.3): replicas >= 0; selector present, non-empty, valid, and matching the template's
// labels; template restartPolicy Always and no activeDeadlineSeconds; strategy type Recreate
// or RollingUpdate, rollingUpdate absent for Recreate; maxSurge and maxUnavailable integers
// >= 0 or "N%", not both zero, maxUnavailable at most 100%; minReadySeconds,
// revisionHistoryLimit and progressDeadlineSeconds >= 0, progressDeadlineSeconds greater than
// minReadySeconds. The rest of pod template validation is left to the server.
func Validate(d *appsv1.Deployment) error {
	return invalid(d.Name, validateSpec(&ApplyDefaults(d).Spec, field.NewPath("spec")))
}

func invalid(name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(deploymentKind, name, errs)
}

func validateSpec(spec *appsv1.DeploymentSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(ptr.Deref(spec.Replicas, 1)), fldPath.Child("replicas"))...)
	if spec.Selector == nil {
		errs = append(errs, field.Required(fldPath.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector,
			metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}, fldPath.Child("selector"))...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(fldPath.Child("selector"), spec.Selector, "empty selector is invalid for deployment"))
		}
	}
	if selector, err := metav1.LabelSelectorAsSelector(spec.Selector); err != nil {
		errs = append(errs, field.Invalid(fldPath.Child("selector"), spec.Selector, "invalid label selector"))
	} else {
		errs = append(errs, validateTemplate(&spec.Template, selector, fldPath.Child("template"))...)
	}
	errs = append(errs, validateStrategy(&spec.Strategy, fldPath.Child("strategy"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*spec.RevisionHistoryLimit), fldPath.Child("revisionHistoryLimit"))...)
	}
	if spec.ProgressDeadlineSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*spec.ProgressDeadlineSeconds), fldPath.Child("progressDeadlineSeconds"))...)
		if *spec.ProgressDeadlineSeconds <= spec.MinReadySeconds {
			errs = append(errs, field.Invalid(fldPath.Child("progressDeadlineSeconds"), spec.ProgressDeadlineSeconds, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// validateTemplate mirrors the ReplicaSet-specific part of ValidatePodTemplateSpecForReplicaSet.
func validateTemplate(t *corev1.PodTemplateSpec, selector labels.Selector, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !selector.Empty() && !selector.Matches(labels.Set(t.Labels)) {
		errs = append(errs, field.Invalid(fldPath.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	if len(t.Spec.Containers) == 0 {
		errs = append(errs, field.Required(fldPath.Child("spec", "containers"), ""))
	}
	if t.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(fldPath.Child("spec", "restartPolicy"), t.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return errs
}

// validateStrategy mirrors ValidateDeploymentStrategy.
func validateStrategy(s *appsv1.DeploymentStrategy, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(fldPath.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if s.RollingUpdate == nil {
			errs = append(errs, field.Required(fldPath.Child("rollingUpdate"), "this should be defaulted and never be nil"))
		} else {
			errs = append(errs, validateRollingUpdate(s.RollingUpdate, fldPath.Child("rollingUpdate"))...)
		}
	default:
		errs = append(errs, field.NotSupported(fldPath, internalStrategy(s), []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)}))
	}
	return errs
}

// validateRollingUpdate mirrors ValidateRollingUpdateDeployment. Both fields are set by
// defaulting before it runs.
func validateRollingUpdate(ru *appsv1.RollingUpdateDeployment, fldPath *field.Path) field.ErrorList {
	maxUnavailable := ptr.Deref(ru.MaxUnavailable, intstr.FromInt32(0))
	maxSurge := ptr.Deref(ru.MaxSurge, intstr.FromInt32(0))
	var errs field.ErrorList
	errs = append(errs, validatePositiveIntOrPercent(maxUnavailable, fldPath.Child("maxUnavailable"))...)
	errs = append(errs, validatePositiveIntOrPercent(maxSurge, fldPath.Child("maxSurge"))...)
	if intOrPercentValue(maxUnavailable) == 0 && intOrPercentValue(maxSurge) == 0 {
		errs = append(errs, field.Invalid(fldPath.Child("maxUnavailable"), maxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	if v, isPercent := percentValue(maxUnavailable); isPercent && v > 100 {
		errs = append(errs, field.Invalid(fldPath.Child("maxUnavailable"), maxUnavailable, "must not be greater than 100%"))
	}
	return errs
}

// validatePositiveIntOrPercent mirrors ValidatePositiveIntOrPercent.
func validatePositiveIntOrPercent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(fldPath, v, msg))
		}
	case intstr.Int:
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(v.IntValue()), fldPath)...)
	default:
		errs = append(errs, field.Invalid(fldPath, v, "must be an integer or percentage (e.g '5%%')"))
	}
	return errs
}

func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// internalStrategy renders a strategy as the API server shows it in an error: the server
// validates its internal type, whose JSON has Go field names
// ({"Type":"Foo","RollingUpdate":{"MaxUnavailable":"25%","MaxSurge":"25%"}}).
func internalStrategy(s *appsv1.DeploymentStrategy) any {
	type rollingUpdate struct {
		MaxUnavailable intstr.IntOrString
		MaxSurge       intstr.IntOrString
	}
	type strategy struct {
		Type          appsv1.DeploymentStrategyType
		RollingUpdate *rollingUpdate
	}
	out := strategy{Type: s.Type}
	if ru := s.RollingUpdate; ru != nil {
		out.RollingUpdate = &rollingUpdate{
			MaxUnavailable: ptr.Deref(ru.MaxUnavailable, intstr.IntOrString{}),
			MaxSurge:       ptr.Deref(ru.MaxSurge, intstr.IntOrString{}),
		}
	}
	return out
}

package planner

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ResolveFenceposts resolves maxSurge and maxUnavailable against desired replicas: surge
// rounds up, unavailable rounds down, and if both resolve to 0, unavailable becomes 1. A nil
// value counts as 0. It returns an error for a value that is neither an integer nor a
// percentage ("25%").
//
// Example: 10 replicas, 25%/25% -> surge 3 (2.5 up), unavailable 2 (2.5 down).
//
// Mirrors deploymentutil.ResolveFenceposts, pkg/controller/deployment/util, v1.36.3.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (int32, int32, error) {
	surge, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxSurge, intstr.FromInt32(0)), int(desired), true)
	if err != nil {
		return 0, 0, fmt.Errorf("spec.strategy.rollingUpdate.maxSurge: %w", err)
	}
	unavailable, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxUnavailable, intstr.FromInt32(0)), int(desired), false)
	if err != nil {
		return 0, 0, fmt.Errorf("spec.strategy.rollingUpdate.maxUnavailable: %w", err)
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return int32(surge), int32(unavailable), nil
}

// resolveStrategy returns the strategy with fenceposts in pods as MaxSurge(d) and
// MaxUnavailable(d) compute them (deploymentutil, v1.36.3): 0 and 0 for Recreate; for
// RollingUpdate, unavailable is 0 when replicas is 0 and is capped at replicas.
func resolveStrategy(d *appsv1.Deployment) (Strategy, error) {
	st := Strategy{Type: d.Spec.Strategy.Type}
	if st.Type != appsv1.RollingUpdateDeploymentStrategyType {
		return st, nil
	}
	ru := d.Spec.Strategy.RollingUpdate
	st.MaxSurgeSpec, st.MaxUnavailableSpec = ru.MaxSurge.String(), ru.MaxUnavailable.String()
	replicas := *d.Spec.Replicas
	surge, unavailable, err := ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, replicas)
	if err != nil {
		return st, err
	}
	st.MaxSurge = surge
	if replicas != 0 {
		st.MaxUnavailable = min(unavailable, replicas)
	}
	return st, nil
}

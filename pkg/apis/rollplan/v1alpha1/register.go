package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of rollplan's output objects.
const GroupName = "rollplan.dev"

// SchemeGroupVersion is group rollplan.dev, version v1alpha1.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

var (
	// SchemeBuilder registers the kinds of this package.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds RolloutPlan, RolloutPlanList, RolloutHistory, DriveStatus,
	// RolloutStatus, RolloutStatusList, WorkloadHistory, WorkloadStatus,
	// WorkloadStatusList and StatefulSetDrive to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind returns the group-qualified kind of this version.
func Kind(kind string) schema.GroupKind {
	return SchemeGroupVersion.WithKind(kind).GroupKind()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&RolloutPlan{},
		&RolloutPlanList{},
		&RolloutHistory{},
		&DriveStatus{},
		&RolloutStatus{},
		&RolloutStatusList{},
		&WorkloadHistory{},
		&WorkloadStatus{},
		&WorkloadStatusList{},
		&StatefulSetDrive{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}

package drive

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// filledState is a State with every field set to a value other than its zero value.
func filledState() *State {
	started := time.Date(2026, 11, 24, 7, 0, 0, 123456789, time.UTC)
	lease := started.Add(30 * time.Second)
	held := started.Add(time.Minute)
	surge, unavail := intstr.FromString("25%"), intstr.FromInt32(1)
	return &State{
		Version: StateVersion, PlanID: "a1b2c3d4e5f6", Phase: PhaseAbort,
		OriginalStrategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavail}},
		OriginalPaused: true, TargetHash: "7d876db474", NewReplicaSet: "web-7d876db474",
		PreviousReplicaSet: "web-777f9fc55f", Revision: 4, Replicas: 10, MaxSurge: 3, MaxUnavailable: 1,
		PendingReplicas: true, Step: 2, Steps: 5, Generation: 7,
		Holder: "me@host pid 1/abcd", LeaseExpires: &lease, LastHolder: "you@host pid 2/ef01",
		StartedAt: started, UpdatedAt: started.Add(time.Second), HeldSince: &held, HeldReason: "--steps 2 done",
		Adopted: true,
	}
}

// TestAPIStateCarriesEveryField guards the one place where drive's State is written twice:
// the versioned DriveStatus repeats its field list. Every field of State, filled, must come
// out of apiState with the same JSON key and value, so a field added to State and not to
// v1alpha1.DriveState (or not copied by apiState) fails here.
func TestAPIStateCarriesEveryField(t *testing.T) {
	s := filledState()
	v := reflect.ValueOf(*s)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("filledState leaves State.%s zero: fill it so this test covers it", v.Type().Field(i).Name)
		}
	}
	asMap := func(x any) map[string]any {
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if diff := cmp.Diff(asMap(s), asMap(apiState(s))); diff != "" {
		t.Errorf("State as JSON (-) against v1alpha1.DriveState from apiState (+):\n%s", diff)
	}
}

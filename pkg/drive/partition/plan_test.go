package partition

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPlan(t *testing.T) {
	cases := []struct {
		name     string
		replicas int32
		from     int32
		c        Config
		resumed  bool
		want     []Step
	}{
		{"step 2 with a canary at ordinal 4", 5, 5, Config{Step: intstr.FromInt32(2), PauseAfter: []int32{4}}, false,
			[]Step{{1, 5, 4, true}, {2, 4, 2, false}, {3, 2, 0, false}}},
		{"step 34% of 3 rounds up to 2", 3, 3, Config{Step: intstr.FromString("34%")}, false,
			[]Step{{1, 3, 1, false}, {2, 1, 0, false}}},
		{"resumed past a pause at 2", 3, 2, Config{Step: intstr.FromInt32(1), PauseAfter: []int32{2}}, true,
			[]Step{{1, 2, 1, false}, {2, 1, 0, false}}},
		{"a pause at the stored partition without resuming: plans on after it", 3, 2, Config{Step: intstr.FromInt32(1), PauseAfter: []int32{2}}, false,
			[]Step{{1, 2, 1, false}, {2, 1, 0, false}}},
		{"already at 0", 3, 0, Config{Step: intstr.FromInt32(1)}, false, nil},
	}
	for _, c := range cases {
		got, err := Plan(c.replicas, c.from, c.c, c.resumed)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Plan = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	if _, err := Plan(3, 3, Config{Step: intstr.FromString("x%")}, false); err == nil {
		t.Error("a malformed --step: want an error")
	}
}

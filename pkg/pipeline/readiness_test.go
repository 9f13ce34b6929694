package pipeline

import (
	"strings"
	"testing"
)

// TestValidateReadiness: every planner readiness is accepted where the timed model is, timed
// is refused elsewhere naming preview, and an unknown value names the flag.
func TestValidateReadiness(t *testing.T) {
	names := ReadinessNames()
	if strings.Join(names, ",") != "batched,instant,never,timed" {
		t.Fatalf("ReadinessNames() = %q", names)
	}
	for _, n := range names {
		if err := ValidateReadiness(n, true); err != nil {
			t.Errorf("ValidateReadiness(%q, timed) = %v", n, err)
		}
		err := ValidateReadiness(n, false)
		if (n == "timed") != (err != nil) {
			t.Errorf("ValidateReadiness(%q, no timed) = %v", n, err)
		}
		if err != nil && !strings.Contains(err.Error(), "only 'kubectl rollplan preview' has the timed model") {
			t.Errorf("timed refused with %q", err)
		}
	}
	if err := ValidateReadiness("soon", true); err == nil || !strings.HasPrefix(err.Error(), "--readiness: ") {
		t.Errorf("ValidateReadiness(soon) = %v, want an error naming --readiness", err)
	}
}

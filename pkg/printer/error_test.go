package printer

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestPrintError: one "error: " prefix, never two; an API status error as kubectl words it.
func TestPrintError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("--replicas=-1: must be 0 or more"), "error: --replicas=-1: must be 0 or more\n"},
		{errors.New("error: already prefixed\n"), "error: already prefixed\n"},
		{apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web"), "Error from server (NotFound): deployments.apps \"web\" not found\n"},
	} {
		var b strings.Builder
		PrintError(&b, tc.err)
		if b.String() != tc.want {
			t.Errorf("PrintError(%v) = %q, want %q", tc.err, b.String(), tc.want)
		}
	}
}

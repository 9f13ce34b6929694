package printer

import (
	"errors"
	"strings"
	"testing"
)

// TestPrintFailure: every verb over many Deployments names a failed one in kubectl's
// resource/name form, with the namespace when the selection spans namespaces and the file of
// a manifest set, and says the error's first line.
func TestPrintFailure(t *testing.T) {
	notFound := errors.New(`deployments.apps "web" not found`)
	for _, tc := range []struct {
		name string
		f    Failure
		want string
	}{
		{"one namespace", Failure{Namespace: "shop", Name: "web", Err: notFound},
			"error: deployment.apps/web: deployments.apps \"web\" not found\n"},
		{"-A names the namespace", Failure{Namespace: "shop", Name: "web", WithNamespace: true, Err: notFound},
			"error: deployment.apps/web (namespace shop): deployments.apps \"web\" not found\n"},
		{"a manifest's file", Failure{Namespace: "shop", Name: "web", Source: "a.yaml", Err: notFound},
			"error: deployment.apps/web (a.yaml): deployments.apps \"web\" not found\n"},
		{"namespace and file", Failure{Namespace: "shop", Name: "web", WithNamespace: true, Source: "a.yaml", Err: notFound},
			"error: deployment.apps/web (namespace shop, a.yaml): deployments.apps \"web\" not found\n"},
		{"one line per Deployment", Failure{Namespace: "shop", Name: "web", Err: errors.New("first\tline\nsecond line")},
			"error: deployment.apps/web: first line\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			PrintFailure(&b, tc.f)
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
	if got := DeploymentName("shop", "web", true); got != "deployment.apps/web (namespace shop)" {
		t.Errorf("DeploymentName with namespace: %q", got)
	}
}

package drive

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestGuardInstallIsIdempotent(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	if ok, err := GuardInstalled(ctx, cs); ok || err != nil {
		t.Fatalf("installed %v, %v before install", ok, err)
	}
	for range 2 {
		if err := InstallGuard(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := GuardInstalled(ctx, cs); !ok || err != nil {
		t.Fatalf("installed %v, %v after install", ok, err)
	}
	p, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, GuardName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(GuardPolicy().Spec, p.Spec); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	for range 2 {
		if err := UninstallGuard(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := GuardInstalled(ctx, cs); ok {
		t.Error("installed after uninstall")
	}
}

func TestGuardYAML(t *testing.T) {
	b, err := GuardYAML()
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"kind: ValidatingAdmissionPolicy\n", "kind: ValidatingAdmissionPolicyBinding\n", "policyName: " + GuardName, "- Deny", "'" + Annotation + "' in oldObject.metadata.annotations", "object.spec.paused"} {
		if !strings.Contains(s, want) {
			t.Errorf("guard YAML lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "creationTimestamp") {
		t.Error("guard YAML carries creationTimestamp: null")
	}
}

package drive

import (
	"bytes"
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// GuardName names the ValidatingAdmissionPolicy and its binding.
const GuardName = "rollplan-drive-guard"

// heldCEL is a CEL expression over o (object or oldObject): a Deployment held by drive,
// with strategy Recreate set.
func heldCEL(o string) string {
	return fmt.Sprintf("has(%[1]s.metadata.annotations) && '%[2]s' in %[1]s.metadata.annotations && %[1]s.spec.strategy.type == 'Recreate'", o, Annotation)
}

// GuardPolicy returns the ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, GA
// since Kubernetes 1.30) that refuses the one dangerous edit of a held Deployment: leaving
// spec.paused false (set to false, or removed) while the strategy is Recreate and the
// Deployment is (or was) held. The controller would then scale every old ReplicaSet to 0
// at once. The hand-back write restores the original strategy in the same write, so it
// passes; so does any edit that keeps the Deployment paused.
func GuardPolicy() *admissionv1.ValidatingAdmissionPolicy {
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   GuardName,
			Labels: map[string]string{"app.kubernetes.io/managed-by": kube.FieldManager},
			Annotations: map[string]string{
				"rollplan.dev/description": "Refuses unpausing a Deployment that kubectl rollplan drive holds with strategy Recreate: the controller would scale every old ReplicaSet to 0 at once.",
			},
		},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{
				ResourceRules: []admissionv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionv1.RuleWithOperations{
						Operations: []admissionv1.OperationType{admissionv1.Update},
						Rule: admissionv1.Rule{
							APIGroups:   []string{"apps"},
							APIVersions: []string{"v1"},
							Resources:   []string{"deployments"},
						},
					},
				}},
			},
			MatchConditions: []admissionv1.MatchCondition{{
				Name: "held-by-drive",
				Expression: fmt.Sprintf("(has(oldObject.metadata.annotations) && '%[1]s' in oldObject.metadata.annotations) || (has(object.metadata.annotations) && '%[1]s' in object.metadata.annotations)",
					Annotation),
			}},
			Variables: []admissionv1.Variable{{
				Name:       "held",
				Expression: fmt.Sprintf("(%s) || (%s)", heldCEL("oldObject"), heldCEL("object")),
			}},
			Validations: []admissionv1.Validation{{
				Expression: "!variables.held || object.spec.strategy.type != 'Recreate' || (has(object.spec.paused) && object.spec.paused)",
				MessageExpression: "'deployment ' + object.metadata.name + ' is held by kubectl rollplan drive with strategy Recreate: unpausing it now would make the controller scale every old ReplicaSet to 0 at once. " +
					"Hand it back with `kubectl rollplan resume deploy/' + object.metadata.name + '` (or walk back with `kubectl rollplan abort deploy/' + object.metadata.name + '`)'",
				Reason: ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
}

// GuardBinding returns the binding that applies GuardPolicy in every namespace with the
// Deny action.
func GuardBinding() *admissionv1.ValidatingAdmissionPolicyBinding {
	return &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   GuardName,
			Labels: map[string]string{"app.kubernetes.io/managed-by": kube.FieldManager},
		},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        GuardName,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
}

// GuardYAML returns the policy and the binding as a two-document YAML stream, for
// `kubectl apply -f`.
func GuardYAML() ([]byte, error) {
	var buf bytes.Buffer
	for i, obj := range []any{GuardPolicy(), GuardBinding()} {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(bytes.ReplaceAll(b, []byte("  creationTimestamp: null\n"), nil))
	}
	return buf.Bytes(), nil
}

// InstallGuard creates the policy and the binding, or updates them to this version.
// It needs permission to create/update validatingadmissionpolicies and their bindings
// (cluster-scoped).
func InstallGuard(ctx context.Context, client kubernetes.Interface) error {
	ar := client.AdmissionregistrationV1()
	if err := kube.CreateOrUpdate(ctx, ar.ValidatingAdmissionPolicies(), GuardPolicy(), "validatingadmissionpolicy"); err != nil {
		return err
	}
	return kube.CreateOrUpdate(ctx, ar.ValidatingAdmissionPolicyBindings(), GuardBinding(), "validatingadmissionpolicybinding")
}

// UninstallGuard deletes the binding and the policy; absent ones are not an error.
func UninstallGuard(ctx context.Context, client kubernetes.Interface) error {
	ar := client.AdmissionregistrationV1()
	if err := kube.DeleteIfExists(ctx, ar.ValidatingAdmissionPolicyBindings(), GuardName, "validatingadmissionpolicybinding"); err != nil {
		return err
	}
	return kube.DeleteIfExists(ctx, ar.ValidatingAdmissionPolicies(), GuardName, "validatingadmissionpolicy")
}

// GuardInstalled reports whether the policy and its binding exist. An error means it could
// not be told (for example no permission to read them).
func GuardInstalled(ctx context.Context, client kubernetes.Interface) (bool, error) {
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, GuardName, metav1.GetOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	if _, err := client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Get(ctx, GuardName, metav1.GetOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

package change_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
)

// The messages were checked against a v1.36.3 API server (dry-run updates of the same specs).
func TestValidate(t *testing.T) {
	web := func() *testutil.DeploymentBuilder { return testutil.Deployment("web").Replicas(10) }
	const prefix = `Deployment.apps "web" is invalid: `
	tests := []struct {
		name string
		d    *appsv1.Deployment
		want string // "" = valid
	}{
		{name: "defaults are valid", d: web().Build()},
		{name: "undefaulted is valid (defaults first)", d: web().Undefaulted().Build()},
		{name: "maxSurge 0 with maxUnavailable 1", d: web().MaxSurge("0").MaxUnavailable("1").Build()},
		{name: "maxUnavailable 100%", d: web().MaxUnavailable("100%").Build()},
		{name: "Recreate", d: web().Strategy(testutil.Recreate()).Build()},
		{name: "zero replicas", d: web().Replicas(0).Build()},
		{name: "negative maxSurge", d: web().MaxSurge("-1").Build(),
			want: prefix + "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0"},
		{name: "negative maxUnavailable", d: web().MaxUnavailable("-2").Build(),
			want: prefix + "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -2: must be greater than or equal to 0"},
		{name: "both zero", d: web().MaxSurge("0").MaxUnavailable("0%").Build(),
			want: prefix + "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"},
		{name: "maxUnavailable over 100%", d: web().MaxUnavailable("150%").Build(),
			want: prefix + `spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%`},
		{name: "not a percent", d: web().MaxSurge("abc").Build(),
			want: prefix + `spec.strategy.rollingUpdate.maxSurge: Invalid value: "abc": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`},
		{name: "Recreate with rollingUpdate", d: web().Strategy(appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: testutil.IntOrPercent("25%"), MaxUnavailable: testutil.IntOrPercent("25%")}}).Build(),
			want: prefix + "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"},
		{name: "unknown strategy type", d: web().Strategy(appsv1.DeploymentStrategy{Type: "Foo", RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: testutil.IntOrPercent("25%"), MaxUnavailable: testutil.IntOrPercent("25%")}}).Build(),
			want: prefix + `spec.strategy: Unsupported value: {"Type":"Foo","RollingUpdate":{"MaxUnavailable":"25%","MaxSurge":"25%"}}: supported values: "Recreate", "RollingUpdate"`},
		{name: "negative replicas", d: web().Replicas(-1).Build(),
			want: prefix + "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		{name: "template labels do not match", d: web().TemplateLabel("app", "other").Build(),
			want: prefix + "spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`"},
		{name: "no selector", d: web().Selector(nil).Build(),
			want: prefix + "[spec.selector: Required value, spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`]"},
		{name: "empty selector", d: web().Selector(&metav1.LabelSelector{}).Build(),
			want: prefix + "spec.selector: Invalid value: {}: empty selector is invalid for deployment"},
		{name: "progress deadline not above minReadySeconds", d: web().MinReadySeconds(600).Build(),
			want: prefix + "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"},
		{name: "negative revisionHistoryLimit", d: web().RevisionHistoryLimit(-1).Build(),
			want: prefix + "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"},
		{name: "restartPolicy Never", d: func() *appsv1.Deployment {
			d := web().Build()
			d.Spec.Template.Spec.RestartPolicy = "Never"
			return d
		}(), want: prefix + `spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		{name: "activeDeadlineSeconds", d: func() *appsv1.Deployment {
			d := web().Build()
			d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](5)
			return d
		}(), want: prefix + "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"},
		{name: "no containers", d: web().Containers().Build(),
			want: prefix + "spec.template.spec.containers: Required value"},
		{name: "several errors at once", d: web().Replicas(-1).MaxSurge("-1").Build(),
			want: prefix + "[spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := change.Validate(tc.d)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n  %s\nwant\n  %s", err, tc.want)
			}
			if !apierrors.IsInvalid(err) {
				t.Errorf("not an Invalid status error: %T", err)
			}
		})
	}
}

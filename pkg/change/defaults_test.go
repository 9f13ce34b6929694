package change_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

func readJSON(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

// A manifest with probes, ports, env, resources and many volume kinds, defaulted on the
// client, must equal what a v1.36.3 API server returned for it (testdata/apply/README.md),
// down to the pod-template-hash.
func TestApplyDefaultsMatchesServer(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join("testdata", "apply", "rich.manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var server appsv1.Deployment
	readJSON(t, filepath.Join("testdata", "apply", "rich.server-dry-run.json"), &server)

	got, err := change.FromManifest(nil, manifest)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(server.Spec, got.Spec); diff != "" {
		t.Errorf("client-defaulted spec differs from the server's (-server +client):\n%s", diff)
	}
	if h, want := planner.ComputeHash(&got.Spec.Template, nil), planner.ComputeHash(&server.Spec.Template, nil); h != want {
		t.Errorf("pod-template-hash %s, the server's template gives %s", h, want)
	}
}

func TestApplyDefaultsSpec(t *testing.T) {
	tests := []struct {
		name string
		in   *appsv1.Deployment
		want appsv1.DeploymentSpec
	}{
		{
			name: "empty spec gets every apps/v1 default",
			in:   testutil.Deployment("web").Undefaulted().Build(),
			want: testutil.Deployment("web").Build().Spec,
		},
		{
			name: "Recreate gets no rollingUpdate",
			in:   testutil.Deployment("web").Undefaulted().Strategy(testutil.Recreate()).Build(),
			want: testutil.Deployment("web").Strategy(testutil.Recreate()).Build().Spec,
		},
		{
			name: "a partial rollingUpdate is completed",
			in:   testutil.Deployment("web").Undefaulted().Strategy(testutil.RollingUpdate("1", "")).Build(),
			want: testutil.Deployment("web").Strategy(testutil.RollingUpdate("1", "25%")).Build().Spec,
		},
		{
			name: "set values are kept",
			in:   testutil.Deployment("web").Undefaulted().Replicas(0).RevisionHistoryLimit(0).ProgressDeadlineSeconds(60).Build(),
			want: testutil.Deployment("web").Replicas(0).RevisionHistoryLimit(0).ProgressDeadlineSeconds(60).Build().Spec,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.DeepCopy()
			got := change.ApplyDefaults(tc.in)
			if diff := cmp.Diff(tc.want, got.Spec); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.in); diff != "" {
				t.Errorf("input mutated:\n%s", diff)
			}
		})
	}
}

func TestApplyDefaultsPodTemplate(t *testing.T) {
	in := testutil.Deployment("web").Undefaulted().Build()
	c := &in.Spec.Template.Spec.Containers[0]
	c.Image = "nginx"
	c.Ports = []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, Protocol: corev1.ProtocolUDP}}
	c.Env = []corev1.EnvVar{{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}, PeriodSeconds: 5}
	c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/stop", Port: intstr.FromInt32(80)}}}
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("0.0001")}
	in.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "scratch"}, {Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: ptr.To[int32](0o400)}}}}

	got := change.ApplyDefaults(in).Spec.Template.Spec
	gc := got.Containers[0]
	checks := []struct {
		what      string
		got, want any
	}{
		{"untagged image pulls Always", gc.ImagePullPolicy, corev1.PullAlways},
		{"terminationMessagePath", gc.TerminationMessagePath, "/dev/termination-log"},
		{"terminationMessagePolicy", gc.TerminationMessagePolicy, corev1.TerminationMessageReadFile},
		{"port protocol defaults to TCP", gc.Ports[0].Protocol, corev1.ProtocolTCP},
		{"a set protocol is kept", gc.Ports[1].Protocol, corev1.ProtocolUDP},
		{"fieldRef apiVersion", gc.Env[0].ValueFrom.FieldRef.APIVersion, "v1"},
		{"probe timeout", gc.LivenessProbe.TimeoutSeconds, int32(1)},
		{"probe period kept", gc.LivenessProbe.PeriodSeconds, int32(5)},
		{"probe thresholds", [2]int32{gc.LivenessProbe.SuccessThreshold, gc.LivenessProbe.FailureThreshold}, [2]int32{1, 3}},
		{"httpGet path and scheme", [2]string{gc.LivenessProbe.HTTPGet.Path, string(gc.LivenessProbe.HTTPGet.Scheme)}, [2]string{"/", "HTTP"}},
		{"preStop httpGet keeps its path", [2]string{gc.Lifecycle.PreStop.HTTPGet.Path, string(gc.Lifecycle.PreStop.HTTPGet.Scheme)}, [2]string{"/stop", "HTTP"}},
		{"cpu rounded up to 1m", gc.Resources.Limits.Cpu().String(), "1m"},
		{"sourceless volume is an emptyDir", got.Volumes[0].EmptyDir != nil, true},
		{"a set defaultMode is kept", *got.Volumes[1].Secret.DefaultMode, int32(0o400)},
		{"dnsPolicy", got.DNSPolicy, corev1.DNSClusterFirst},
		{"restartPolicy", got.RestartPolicy, corev1.RestartPolicyAlways},
		{"schedulerName", got.SchedulerName, "default-scheduler"},
		{"terminationGracePeriodSeconds", *got.TerminationGracePeriodSeconds, int64(30)},
		{"securityContext", got.SecurityContext != nil, true},
		{"no enableServiceLinks (a Pod default, not a template one)", got.EnableServiceLinks == nil, true},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.what, diff)
		}
	}
}

// "0.5" and "500m" are one quantity but two Go values: the defaults must give the form a
// client decodes from the server, or the pod-template-hash differs.
func TestApplyDefaultsCanonicalQuantities(t *testing.T) {
	with := func(cpu, size string) *appsv1.Deployment {
		d := testutil.Deployment("web").Build()
		d.Spec.Template.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse(size))}}}}
		return d
	}
	tests := []struct{ a, b [2]string }{
		{[2]string{"0.5", "1Gi"}, [2]string{"500m", "1Gi"}},
		{[2]string{"1", "1.5Gi"}, [2]string{"1", "1536Mi"}}, // sizeLimit has no default: only the round trip canonicalizes it
	}
	for _, tc := range tests {
		a, b := change.ApplyDefaults(with(tc.a[0], tc.a[1])), change.ApplyDefaults(with(tc.b[0], tc.b[1]))
		if ha, hb := planner.ComputeHash(&a.Spec.Template, nil), planner.ComputeHash(&b.Spec.Template, nil); ha != hb {
			t.Errorf("hash of %v = %s, of %v = %s: want equal after defaulting", tc.a, ha, tc.b, hb)
		}
		raw := with(tc.a[0], tc.a[1])
		if planner.ComputeHash(&raw.Spec.Template, nil) == planner.ComputeHash(&with(tc.b[0], tc.b[1]).Spec.Template, nil) {
			t.Errorf("%v and %v hash equal even before defaulting: the test shows nothing", tc.a, tc.b)
		}
	}
}

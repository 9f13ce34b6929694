package cmd

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

const reloadSecretValue = "hunter2-unit-value"

// reloadFixture: web reads key A of ConfigMap app (recorded at A=1, now A=2) and every key of
// Secret db; api reads key B of app (unchanged); both with their one ReplicaSet.
func reloadFixture(t *testing.T, withSecret bool) (*fake.Clientset, []runtime.Object) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: testutil.DefaultNamespace, Name: "app", UID: "uid-app"},
		Data: map[string]string{"A": "1", "B": "1"}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: testutil.DefaultNamespace, Name: "db", UID: "uid-db"},
		Data: map[string][]byte{"password": []byte(reloadSecretValue)}}
	env := func(key string) corev1.EnvVar {
		return corev1.EnvVar{Name: "K", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Key: key}}}
	}
	build := func(name, key string, withDB bool) *appsv1.Deployment {
		c := corev1.Container{Name: "app", Image: "nginx:1.18", Env: []corev1.EnvVar{env(key)}}
		if withDB {
			c.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}}}
		}
		return testutil.Deployment(name).Replicas(3).Containers(c).ResourceVersion("10").Status(3, 3, 3, 3).Build()
	}
	objects := map[reload.ObjectKey]reload.Object{
		{Namespace: testutil.DefaultNamespace, Kind: reload.ConfigMap, Name: "app"}: reload.ConfigMapObject(cm),
		{Namespace: testutil.DefaultNamespace, Kind: reload.Secret, Name: "db"}:     reload.SecretObject(secret),
	}
	var objs []runtime.Object
	for _, d := range []*appsv1.Deployment{build("web", "A", true), build("api", "B", false)} {
		d = reload.Restarted(d, reload.Decide(d, objects).Checksums)
		objs = append(objs, d, testutil.ReplicaSetFor(d).OwnedBy(d).Created(1).Replicas(3).Revision(1).Build())
	}
	cm.Data["A"] = "2"
	objs = append(objs, cm)
	if withSecret {
		objs = append(objs, secret)
	}
	return fake.NewClientset(objs...), objs
}

func newReloadTest(t *testing.T, withSecret bool, names ...string) (*ReloadOptions, *fake.Clientset, *strings.Builder, *strings.Builder) {
	t.Helper()
	c, _ := reloadFixture(t, withSecret)
	streams, _, _ := testStreams()
	o := NewReloadOptions(streams)
	out, errOut := &strings.Builder{}, &strings.Builder{}
	o.Out, o.ErrOut = out, errOut
	o.Selection = &target.Selection{Args: names, Namespace: testutil.DefaultNamespace, Many: true}
	o.Client = clientOf(c)
	o.Terminal = func() bool { return false }
	return o, c, out, errOut
}

func TestReloadDryRunClient(t *testing.T) {
	o, c, out, _ := newReloadTest(t, true, "deploy/web", "deploy/api")
	o.DryRun = cmdutil.DryRunClient
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"CONFIG", "ACTION",
		"configmap/app[A]: changed since the last restart, secret/db[*]: current",
		"configmap/app[B]: current",
		"Restart of deployment default/web (changed: configmap/app):",
		"deployment.apps/web restarted (dry run)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Restart of deployment default/api") || strings.Contains(got, "deployment.apps/api restarted") {
		t.Errorf("api (key B, unchanged) would be restarted:\n%s", got)
	}
	if w := writes(c); len(w) != 0 {
		t.Errorf("--dry-run=client wrote: %v", w)
	}
	if strings.Contains(got, reloadSecretValue) {
		t.Error("output holds the secret value")
	}
	testutil.Golden(t, "reload-dry-run", []byte(got))
}

func TestReloadRefusesMissingSecret(t *testing.T) {
	o, c, out, _ := newReloadTest(t, false, "deploy/web", "deploy/api")
	o.Yes = true
	err := o.Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "secret/db not found") || !strings.Contains(err.Error(), "nothing was written") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error = %v, want one line naming secret/db, nothing written", err)
	}
	if w := writes(c); len(w) != 0 {
		t.Errorf("a refused reload wrote: %v", w)
	}
	if !strings.Contains(out.String(), "refused") {
		t.Errorf("the table does not show the refusal:\n%s", out)
	}
}

func TestReloadNeedsYesWithoutATerminal(t *testing.T) {
	o, c, _, _ := newReloadTest(t, true, "deploy/web")
	err := o.Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "pass --yes") {
		t.Fatalf("error = %v, want one asking for --yes", err)
	}
	if w := writes(c); len(w) != 0 {
		t.Errorf("wrote without confirmation: %v", w)
	}
}

func TestReloadAdopt(t *testing.T) {
	o, c, out, _ := newReloadTest(t, true, "deploy/web")
	// First sight: drop the recorded checksums.
	d, err := c.AppsV1().Deployments(testutil.DefaultNamespace).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	delete(d.Spec.Template.Annotations, reload.ChecksumsAnnotation)
	if _, err := c.AppsV1().Deployments(testutil.DefaultNamespace).Update(t.Context(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.ClearActions()
	o.Adopt, o.Yes = true, true
	if err := o.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "deployment.apps/web config checksums adopted") {
		t.Errorf("output:\n%s", out)
	}
	w := writes(c)
	if len(w) != 1 || w[0].GetVerb() != "patch" {
		t.Fatalf("writes = %v, want one patch", w)
	}
	// Not "kubectl"-prefixed: Flux takes over (and then reverts) the fields of those.
	if fm := w[0].(k8stesting.PatchAction).(k8stesting.PatchActionImpl).PatchOptions.FieldManager; fm != "rollplan-reload" {
		t.Errorf("adopt patch field manager = %q, want rollplan-reload", fm)
	}
	d, err = c.AppsV1().Deployments(testutil.DefaultNamespace).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Annotations[reload.AdoptedAnnotation] == "" || d.Spec.Template.Annotations[reload.ChecksumsAnnotation] != "" {
		t.Errorf("after adopt: annotations %v, template annotations %v", d.Annotations, d.Spec.Template.Annotations)
	}
}

func TestReloadValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*ReloadOptions)
		want   string
	}{
		{"defaults", func(*ReloadOptions) {}, ""},
		{"max-concurrent 0", func(o *ReloadOptions) { o.MaxConcurrent = 0 }, "--max-concurrent=0"},
		{"timeout 0", func(o *ReloadOptions) { o.Timeout = 0 }, "--timeout=0s"},
		{"drive and adopt", func(o *ReloadOptions) { o.Drive, o.Adopt = true, true }, "--drive and --adopt"},
		{"drive with max-concurrent 2", func(o *ReloadOptions) { o.Drive, o.MaxConcurrent = true, 2 }, "one restart at a time"},
		{"bad readiness", func(o *ReloadOptions) { o.Readiness = "soon" }, "--readiness"},
		{"watch with --adopt", func(o *ReloadOptions) { o.Watch.Watch, o.Adopt = true, true }, "are for one run without --watch"},
		{"-o json alone", func(o *ReloadOptions) { o.Output.Output = "json" }, "pass --yes"},
		{"-o json --yes", func(o *ReloadOptions) { o.Output.Output, o.Yes = "json", true }, ""},
		{"-o yaml --dry-run=server", func(o *ReloadOptions) { o.Output.Output, o.DryRun = "yaml", cmdutil.DryRunServer }, ""},
		{"-o wide", func(o *ReloadOptions) { o.Output.Output, o.Yes = "wide", true }, "unknown output format"},
		{"-o with --watch", func(o *ReloadOptions) { o.Output.Output, o.Watch.Watch = "json", true }, "-o: --watch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			streams, _, _ := testStreams()
			o := NewReloadOptions(streams)
			tc.mutate(o)
			err := o.Validate()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
}

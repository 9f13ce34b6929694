//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

// reloadFixture is the setup shared by the reload tests (reload_test.go, reload_watch_test.go,
// preview_mixed_test.go, the faults and the benchmark): a fresh namespace of the local
// cluster, its ConfigMaps, and Deployments whose pods read them.
type reloadFixture struct {
	t  testing.TB
	c  *framework.Cluster
	ns string
}

// newReloadNamespace is a fixture on a fresh namespace holding nothing yet.
func newReloadNamespace(t testing.TB) *reloadFixture {
	c := framework.Get(t)
	return &reloadFixture{t: t, c: c, ns: c.Namespace(t)}
}

// newReloadFixture is a fresh namespace with ConfigMap app {a: 1, b: 1}, for Deployments
// made with deployment.
func newReloadFixture(t testing.TB) *reloadFixture {
	f := newReloadNamespace(t)
	f.setConfigMap("app", map[string]string{"a": "1", "b": "1"})
	return f
}

// keyEnv is an env var from key of ConfigMap cm.
func keyEnv(cm, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: "K_" + key, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Key: key}}}
}

// readsKey makes the first container read key of ConfigMap cm (its only env var).
func readsKey(cm, key string) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{keyEnv(cm, key)} }
}

// optIn annotates a Deployment rollplan.dev/reload: "true".
func optIn(d *appsv1.Deployment) {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[reload.ReloadAnnotation] = "true"
}

// oneByOne sets maxSurge 1 and maxUnavailable 0, so that a rollout takes several writes.
func oneByOne(d *appsv1.Deployment) {
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &zero}}
}

// create creates b's Deployment in the namespace after each mutate, without waiting.
func (f *reloadFixture) create(b *framework.DeploymentBuilder, mutate ...func(*appsv1.Deployment)) *appsv1.Deployment {
	f.t.Helper()
	d := b.Build()
	d.Namespace = f.ns
	for _, m := range mutate {
		m(d)
	}
	out, err := f.c.Client.AppsV1().Deployments(f.ns).Create(f.t.Context(), d, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatalf("create deployment %s/%s: %v", f.ns, d.Name, err)
	}
	return out
}

// createRolling is create with oneByOne first (the one-shot tests' Deployments).
func (f *reloadFixture) createRolling(b *framework.DeploymentBuilder, mutate ...func(*appsv1.Deployment)) *appsv1.Deployment {
	f.t.Helper()
	return f.create(b, append([]func(*appsv1.Deployment){oneByOne}, mutate...)...)
}

// deployment creates Deployment name (2 replicas) reading key of ConfigMap app, opted in
// when optedIn, and waits for its rollout.
func (f *reloadFixture) deployment(name, key string, optedIn bool) *appsv1.Deployment {
	f.t.Helper()
	mutate := []func(*appsv1.Deployment){readsKey("app", key)}
	if optedIn {
		mutate = append(mutate, optIn)
	}
	f.create(framework.NewDeployment(name).Replicas(2), mutate...)
	return f.c.WaitForRollout(f.t, f.ns, name, time.Minute)
}

// setConfigMap creates ConfigMap name with data, or replaces the data of the live one.
func (f *reloadFixture) setConfigMap(name string, data map[string]string) {
	f.t.Helper()
	cms := f.c.Client.CoreV1().ConfigMaps(f.ns)
	cm, err := cms.Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		if _, err := cms.Create(f.t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{}); err != nil {
			f.t.Fatalf("create configmap %s: %v", name, err)
		}
		return
	}
	cm.Data = data
	if _, err := cms.Update(f.t.Context(), cm, metav1.UpdateOptions{}); err != nil {
		f.t.Fatalf("update configmap %s: %v", name, err)
	}
}

// setKey writes one key of ConfigMap app, keeping the others.
func (f *reloadFixture) setKey(key, value string) {
	f.t.Helper()
	cm, err := f.c.Client.CoreV1().ConfigMaps(f.ns).Get(f.t.Context(), "app", metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	cm.Data[key] = value
	if _, err := f.c.Client.CoreV1().ConfigMaps(f.ns).Update(f.t.Context(), cm, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *reloadFixture) get(name string) *appsv1.Deployment {
	f.t.Helper()
	d, err := f.c.Client.AppsV1().Deployments(f.ns).Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatalf("get deployment %s/%s: %v", f.ns, name, err)
	}
	return d
}

// replicaSetNames are the names of the ReplicaSets Deployment name owns, sorted.
func (f *reloadFixture) replicaSetNames(name string) []string {
	f.t.Helper()
	var names []string
	for _, rs := range f.c.ReplicaSetsOf(f.t, f.get(name)) {
		names = append(names, rs.Name)
	}
	slices.Sort(names)
	return names
}

// replicaSets is how many ReplicaSets Deployment name owns: 1 + the restarts since it was
// created (each restart's template is new). Adoption writes the Deployment's metadata: it
// bumps metadata.generation (the Deployment strategy counts annotations) but makes no
// ReplicaSet.
func (f *reloadFixture) replicaSets(name string) int {
	f.t.Helper()
	return len(f.replicaSetNames(name))
}

// currentReplicaSet is the ReplicaSet with all of the Deployment's replicas after its
// rollout completed.
func (f *reloadFixture) currentReplicaSet(name string) string {
	f.t.Helper()
	d := f.c.WaitForRollout(f.t, f.ns, name, time.Minute)
	for _, rs := range f.c.ReplicaSetsOf(f.t, d) {
		if rs.Spec.Replicas != nil && *rs.Spec.Replicas > 0 {
			return rs.Name
		}
	}
	f.t.Fatalf("deployment %s/%s has no ReplicaSet with replicas", f.ns, name)
	return ""
}

// fingerprint changes whenever Deployment name is written: its resourceVersion and reload's
// two annotations.
func (f *reloadFixture) fingerprint(name string) string {
	f.t.Helper()
	d := f.get(name)
	return strings.Join([]string{d.ResourceVersion, d.Spec.Template.Annotations[reload.ChecksumsAnnotation], d.Annotations[reload.AdoptedAnnotation]}, "|")
}

// reload runs `kubectl rollplan reload -n NS ARGS`.
func (f *reloadFixture) reload(args ...string) framework.Result {
	f.t.Helper()
	return f.c.Plugin(f.t, append([]string{"reload", "-n", f.ns}, args...)...)
}

// mustReload is reload, failing the test unless it exits 0.
func (f *reloadFixture) mustReload(args ...string) framework.Result {
	f.t.Helper()
	res := f.reload(args...)
	if res.ExitCode != 0 {
		f.t.Fatalf("reload %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, res.ExitCode, res.Stdout, res.Stderr)
	}
	return res
}

func adopted(d *appsv1.Deployment) bool { return d.Annotations[reload.AdoptedAnnotation] != "" }

func restartedWith(d *appsv1.Deployment) string {
	return d.Spec.Template.Annotations[reload.ChecksumsAnnotation]
}

func ptrTrue() *bool { b := true; return &b }

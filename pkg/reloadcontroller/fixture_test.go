package reloadcontroller

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/printer"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
)

const ns = "shop"

// configMap is ConfigMap name in ns with data.
func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), ResourceVersion: "1"}, Data: data}
}

// deployment is an opted-in Deployment in ns whose container reads key of ConfigMap cm
// (every key when key is ""), rolled out and complete (1 replica) at generation 1.
func deployment(name, cm, key string) *appsv1.Deployment {
	c := corev1.Container{Name: "app", Image: "nginx"}
	if key == "" {
		c.EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}}
	} else {
		c.Env = []corev1.EnvVar{{Name: "V", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Key: key}}}}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), Generation: 1, ResourceVersion: "1",
			Annotations: map[string]string{reload.ReloadAnnotation: "true"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{c}},
			},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1},
	}
}

// recorded gives d the checksums annotation of the current content of objs (as a restart
// would have written it).
func recorded(d *appsv1.Deployment, objs ...*corev1.ConfigMap) *appsv1.Deployment {
	m := map[reload.ObjectKey]reload.Object{}
	for _, o := range objs {
		m[reload.ObjectKey{Namespace: ns, Kind: reload.ConfigMap, Name: o.Name}] = reload.ConfigMapObject(o)
	}
	dec := reload.Decide(d, m)
	d.Spec.Template.Annotations = map[string]string{reload.ChecksumsAnnotation: dec.Annotation()}
	return d
}

// harness is a Controller running on a fake clientset.
type harness struct {
	t       *testing.T
	cs      *fake.Clientset
	c       *Controller
	metrics *Metrics
	rec     *kube.Recorder
	out     *syncBuffer
	cancel  context.CancelFunc
	done    chan error
	stopped sync.Once
	err     error // Run's error, after stop
}

func fastLimiter() workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 100*time.Millisecond)
}

// start runs a Controller with cfg (MaxConcurrent 1 if unset) over a fake clientset holding
// objs, and stops it at the end of the test.
func start(t *testing.T, cfg Config, objs ...runtime.Object) *harness {
	t.Helper()
	cs := fake.NewClientset(objs...)
	return startOn(t, cs, cfg, nil)
}

func startOn(t *testing.T, cs *fake.Clientset, cfg Config, le *LeaderElection) *harness {
	t.Helper()
	h := &harness{t: t, cs: cs, out: &syncBuffer{}, done: make(chan error, 1)}
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = 1
	}
	h.rec = kube.NewRecorder(cs, nil)
	h.metrics = NewMetrics(nil)
	cfg.Recorder, cfg.Metrics, cfg.Limiter = h.rec, h.metrics, fastLimiter()
	// The lines kubectl rollplan reload --watch prints for the outcomes.
	cfg.Report = func(o Outcome) {
		printer.ReloadWorkloadOutcome(h.out, string(o.Type), o.Resource, o.Namespace, o.Name, o.Message)
	}
	c, err := New(cs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- c.Run(ctx, le) }()
	t.Cleanup(h.stop)
	h.eventually("caches synced", c.Synced)
	if le == nil {
		h.eventually("the workers", c.Leading)
	}
	return h
}

// stop ends the controller's context and waits for Run to return (once).
func (h *harness) stop() {
	h.stopped.Do(func() {
		h.cancel()
		select {
		case h.err = <-h.done:
		case <-time.After(10 * time.Second):
			h.t.Error("the controller did not stop within 10s of its context ending")
		}
		h.rec.Shutdown(time.Second)
	})
}

// eventually polls cond (every 10ms, at most 10s) and fails the test naming what.
func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		h.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// patches lists the Deployment names patched so far, in order.
func patches(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && a.GetResource().Resource == "deployments" {
			out = append(out, p.GetName())
		}
	}
	return out
}

func (h *harness) patches() []string { return patches(h.cs) }

func (h *harness) updateConfigMap(cm *corev1.ConfigMap) {
	h.t.Helper()
	if _, err := h.cs.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) deployment(name string) *appsv1.Deployment {
	h.t.Helper()
	d, err := h.cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return d
}

// eventsWith waits up to 10 s for the events on name (events) to hold an event containing
// each of subs and returns them, with ok false when one is still missing (the caller fails
// naming what there is): the controller records an event after its write returns, so a test
// that saw the write may look before the event exists.
func (h *harness) eventsWith(name string, subs ...string) (ev []string, ok bool) {
	h.t.Helper()
	has := func() bool {
		for _, sub := range subs {
			if !contains(ev, sub) {
				return false
			}
		}
		return true
	}
	_ = wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		ev = h.events(name)
		return has(), nil
	})
	return ev, has()
}

// events lists "REASON MESSAGE" of the Events on Deployment name, after a flush.
func (h *harness) events(name string) []string {
	h.t.Helper()
	h.rec.Flush(5 * time.Second)
	list, err := h.cs.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Name == name {
			out = append(out, e.Reason+" "+e.Message)
		}
	}
	return out
}

// settle sleeps long enough for a wrongly queued sync (grace included) to have happened.
func settle(grace time.Duration) { time.Sleep(grace + 300*time.Millisecond) }

func contains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

package kube

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

// TestRecorder: after Shutdown every Event is in the fake clientset's Events, one each (more
// than the spam filter's burst of 25 and the aggregator's 10 similar ones), with its reason,
// type, source, reporting controller, involved object and field manager.
func TestRecorder(t *testing.T) {
	d := testutil.Deployment("web").Build()
	d.UID, d.ResourceVersion = "uid-1", "7"
	cs := fake.NewClientset()
	var mu sync.Mutex
	var warnings []string
	r := NewRecorder(cs, func(s string) { mu.Lock(); defer mu.Unlock(); warnings = append(warnings, s) })
	const n = 30
	for i := range n {
		r.Eventf(d, corev1.EventTypeNormal, "RollplanScaled", "Scaled up replica set web-1 from %d to %d", i, i+1)
	}
	r.Eventf(d, corev1.EventTypeWarning, "RollplanStopped", "Drive stopped")
	r.Eventf((*appsv1.Deployment)(nil), corev1.EventTypeNormal, "Nothing", "on no object")
	r.Shutdown(10 * time.Second)

	list, err := cs.CoreV1().Events(d.Namespace).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n+1 {
		t.Fatalf("%d events, want %d", len(list.Items), n+1)
	}
	reasons := map[string]int{}
	for _, e := range list.Items {
		reasons[e.Reason+"/"+e.Type]++
		if e.Source.Component != FieldManager || e.ReportingController != FieldManager || e.Count != 1 {
			t.Errorf("event %s: source %+v, reportingController %q, count %d", e.Name, e.Source, e.ReportingController, e.Count)
		}
		o := e.InvolvedObject
		if o.Kind != "Deployment" || o.APIVersion != "apps/v1" || o.Name != "web" || o.Namespace != d.Namespace || o.UID != "uid-1" || o.ResourceVersion != "7" {
			t.Errorf("event %s on %+v", e.Name, o)
		}
		if strings.Contains(e.Message, "combined from similar events") {
			t.Errorf("event %s aggregated: %s", e.Name, e.Message)
		}
	}
	if reasons["RollplanScaled/Normal"] != n || reasons["RollplanStopped/Warning"] != 1 {
		t.Errorf("events by reason/type: %v", reasons)
	}
	for _, a := range cs.Actions() {
		if c, ok := a.(k8stesting.CreateActionImpl); ok && c.GetCreateOptions().FieldManager != FieldManager {
			t.Errorf("event created with field manager %q", c.GetCreateOptions().FieldManager)
		}
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
}

// TestRecorderRefused: an Event the API server refuses is reported through warn, and
// Shutdown does not wait for it.
func TestRecorderRefused(t *testing.T) {
	d := testutil.Deployment("web").Build()
	cs := fake.NewClientset()
	cs.PrependReactor("create", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", errors.New("no"))
	})
	var mu sync.Mutex
	var warnings []string
	r := NewRecorder(cs, func(s string) { mu.Lock(); defer mu.Unlock(); warnings = append(warnings, s) })
	r.Eventf(d, corev1.EventTypeNormal, "RollplanHeld", "Held")
	start := time.Now()
	r.Shutdown(10 * time.Second)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Shutdown took %s for a refused event", took)
	}
	mu.Lock()
	defer mu.Unlock()
	want := fmt.Sprintf("could not record event RollplanHeld on deployment %s/web: ", d.Namespace)
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
		t.Errorf("warnings %q, want one starting %q", warnings, want)
	}
}

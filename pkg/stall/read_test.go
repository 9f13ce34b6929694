package stall

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// reads lists the requests c got as "verb resource".
func reads(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
	}
	return out
}

func TestRead(t *testing.T) {
	withSelector := func(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		return rs
	}
	labelled := func(p *corev1.Pod) { p.Labels = map[string]string{"app": "web"} }
	tests := []struct {
		name      string
		rs        *appsv1.ReplicaSet
		objects   []runtime.Object
		wantReads []string
		wantWhy   []string
	}{{
		name:      "image pull: the pods' LIST only (no events, no nodes: the container says why)",
		rs:        withSelector(newRS(1, 1)),
		objects:   []runtime.Object{pod("a", 0, labelled, onNode("n1"), waiting("ImagePullBackOff", "x", 0))},
		wantReads: []string{"list pods"},
		wantWhy:   []string{"1 pod ImagePullBackOff: x"},
	}, {
		name: "pods missing without a ReplicaFailure condition: the ReplicaSet's events",
		rs:   withSelector(newRS(2, 0)),
		objects: []runtime.Object{func() *corev1.Event {
			e := event("ReplicaSet", "web-2", FailedCreate, "exceeded quota", 1, 2)
			e.Namespace, e.Name = "shop", "e1"
			return e
		}()},
		wantReads: []string{"list pods", "list events"},
		wantWhy:   []string{"FailedCreate (2 pods not created): exceeded quota"},
	}, {
		name:      "running, not Ready, on a deleted node: Unhealthy events and the node's GET",
		rs:        withSelector(newRS(1, 1)),
		objects:   []runtime.Object{pod("a", 0, labelled, onNode("gone"), running)},
		wantReads: []string{"list pods", "list events", "get nodes"},
		wantWhy:   []string{"1 pod NodeLost: node gone was deleted"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientset(tc.objects...)
			in, err := Read(context.Background(), c, tc.rs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantReads, reads(c)); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
			var why []string
			for _, r := range Diagnose(in, t0) {
				why = append(why, r.String())
			}
			if diff := cmp.Diff(tc.wantWhy, why); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadForbidden: a forbidden events or nodes read leaves that part out, no error.
func TestReadForbidden(t *testing.T) {
	c := fake.NewClientset(pod("a", 0, onNode("n1"), running))
	c.PrependReactor("*", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errForbidden
	})
	c.PrependReactor("get", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errForbidden
	})
	pods, _ := c.CoreV1().Pods("shop").List(context.Background(), metav1.ListOptions{})
	in, err := Read(context.Background(), c, newRS(1, 1), []*corev1.Pod{&pods.Items[0]})
	if err != nil || in.Events != nil || in.Nodes != nil {
		t.Fatalf("Read = events %v, nodes %v, err %v; want none, no error", in.Events, in.Nodes, err)
	}
	if got := Diagnose(in, t0); len(got) != 1 || got[0].Reason != Unhealthy {
		t.Errorf("Diagnose = %v, want one Unhealthy", got)
	}
}

var errForbidden = apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", nil)

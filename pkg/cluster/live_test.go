package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

func TestLoadLive(t *testing.T) {
	d := testutil.Deployment("web").Replicas(10).Revision(3).Build()
	rev1 := testutil.ReplicaSetFor(d).Image("nginx:1.16").Revision(1).Replicas(0).Created(1).Build()
	rev3 := testutil.ReplicaSetFor(d).Revision(3).Replicas(10).Created(3).Build()
	rev2 := testutil.ReplicaSetFor(d).Image("nginx:1.17").Revision(2).Replicas(0).Created(2).Build()
	orphan := testutil.ReplicaSet("web-manual", "web").Created(4).Build()
	foreign := testutil.ReplicaSet("web-theirs", "web").ControlledBy("apps/v1", "Deployment", "web-old", "uid-x").Build()
	unrelated := testutil.ReplicaSetFor(testutil.Deployment("api").Build()).Build()
	elsewhere := testutil.ReplicaSetFor(d).Namespace("prod").Build()
	client := fake.NewClientset(d, rev3, rev1, rev2, orphan, foreign, unrelated, elsewhere)

	s, err := LoadLive(context.Background(), client, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{rev1.Name, rev2.Name, rev3.Name, "web-manual"}, names(s.ReplicaSets)); diff != "" {
		t.Errorf("ReplicaSets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"web-manual"}, names(s.Orphans)); diff != "" {
		t.Errorf("Orphans (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"web-theirs"}, names(s.Foreign)); diff != "" {
		t.Errorf("Foreign (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(d, s.Deployment); diff != "" {
		t.Errorf("Deployment (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rev3, s.ReplicaSets[2]); diff != "" {
		t.Errorf("ReplicaSet as read (-want +got):\n%s", diff)
	}
	if s.Source != "cluster" {
		t.Errorf("Source = %q", s.Source)
	}

	// Exactly one GET of the Deployment and one LIST of ReplicaSets by selector.
	type call struct{ Verb, Resource, Namespace, Name, Selector string }
	var got []call
	for _, a := range client.Actions() {
		c := call{Verb: a.GetVerb(), Resource: a.GetResource().Resource, Namespace: a.GetNamespace()}
		switch a := a.(type) {
		case k8stesting.GetAction:
			c.Name = a.GetName()
		case k8stesting.ListAction:
			c.Selector = a.GetListRestrictions().Labels.String()
		}
		got = append(got, c)
	}
	want := []call{
		{Verb: "get", Resource: "deployments", Namespace: "default", Name: "web"},
		{Verb: "list", Resource: "replicasets", Namespace: "default", Selector: "app=web"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestLoadLiveErrors(t *testing.T) {
	d := testutil.Deployment("web").Build()
	forbid := func(verb, resource string) k8stesting.ReactionFunc {
		return func(a k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: resource}, "",
				errors.New(`User "bob" cannot `+verb+` resource "`+resource+`" in API group "apps" in the namespace "default"`))
		}
	}
	tests := []struct {
		name      string
		objects   []runtime.Object
		reactVerb string
		reactRes  string
		react     k8stesting.ReactionFunc
		target    string
		want      []string
		is        func(error) bool
	}{
		{
			name:   "missing deployment",
			target: "nope",
			want:   []string{`deployments.apps "nope" not found in namespace "default"`, "kubectl get deployments -n default"},
			is:     apierrors.IsNotFound,
		},
		{
			name:      "get forbidden",
			objects:   []runtime.Object{d},
			reactVerb: "get", reactRes: "deployments", react: forbid("get", "deployments"),
			target: "web",
			want:   []string{`get deployments.apps "web" in namespace "default": forbidden`, "permission to get deployments", "kubectl auth can-i get deployments.apps -n default", `User "bob"`},
			is:     apierrors.IsForbidden,
		},
		{
			name:      "list forbidden",
			objects:   []runtime.Object{d},
			reactVerb: "list", reactRes: "replicasets", react: forbid("list", "replicasets"),
			target: "web",
			want:   []string{`list replicasets.apps in namespace "default": forbidden`, "permission to list replicasets", "kubectl auth can-i list replicasets.apps -n default"},
			is:     apierrors.IsForbidden,
		},
		{
			name:      "unauthorized",
			objects:   []runtime.Object{d},
			reactVerb: "get", reactRes: "deployments",
			react: func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewUnauthorized("token expired")
			},
			target: "web",
			want:   []string{"unauthorized", "kubeconfig"},
			is:     apierrors.IsUnauthorized,
		},
		{
			name:      "other API error is wrapped",
			objects:   []runtime.Object{d},
			reactVerb: "list", reactRes: "replicasets",
			react: func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewServiceUnavailable("etcd down")
			},
			target: "web",
			want:   []string{`list replicasets.apps in namespace "default": etcd down`},
			is:     apierrors.IsServiceUnavailable,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.objects...)
			if tc.react != nil {
				client.PrependReactor(tc.reactVerb, tc.reactRes, tc.react)
			}
			_, err := LoadLive(context.Background(), client, "default", tc.target)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if !tc.is(err) {
				t.Errorf("the API status is not reachable through the error: %v", err)
			}
		})
	}
}

func TestLoadLiveSetsTypeMeta(t *testing.T) {
	d := testutil.Deployment("web").Build()
	rs := testutil.ReplicaSetFor(d).Build()
	d.TypeMeta, rs.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	client := fake.NewClientset(d, rs)
	s, err := LoadLive(context.Background(), client, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	if s.Deployment.Kind != "Deployment" || s.Deployment.APIVersion != "apps/v1" {
		t.Errorf("Deployment TypeMeta = %+v", s.Deployment.TypeMeta)
	}
	if got := s.ReplicaSets[0].TypeMeta; got.Kind != "ReplicaSet" || got.APIVersion != appsv1.SchemeGroupVersion.String() {
		t.Errorf("ReplicaSet TypeMeta = %+v", got)
	}
}

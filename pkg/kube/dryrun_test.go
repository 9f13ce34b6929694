package kube_test

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
	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// dryRunServer answers create and update of deployments like an API server asked for a dry
// run: it defaults the object and returns it without storing it. Any write without
// dryRun=All fails the test.
func dryRunServer(t *testing.T, client *fake.Clientset) {
	t.Helper()
	client.PrependReactor("*", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
		var obj runtime.Object
		var dryRun []string
		switch a := a.(type) {
		case k8stesting.CreateActionImpl:
			obj, dryRun = a.GetObject(), a.GetCreateOptions().DryRun
		case k8stesting.UpdateActionImpl:
			obj, dryRun = a.GetObject(), a.GetUpdateOptions().DryRun
		default:
			return false, nil, nil
		}
		if diff := cmp.Diff([]string{metav1.DryRunAll}, dryRun); diff != "" {
			t.Errorf("%s without dryRun=All (-want +got):\n%s", a.GetVerb(), diff)
			return true, nil, errors.New("not a dry run")
		}
		d := change.ApplyDefaults(obj.(*appsv1.Deployment))
		d.Generation++
		return true, d, nil
	})
}

func TestDryRunUpdate(t *testing.T) {
	live := testutil.Deployment("web").Replicas(10).ResourceVersion("42").Build()
	client := fake.NewClientset(live)
	dryRunServer(t, client)

	desired, err := change.SetImages(live, []string{"web=nginx:1.19"})
	if err != nil {
		t.Fatal(err)
	}
	desired.Spec.Template.Spec.Containers[0].ImagePullPolicy = "" // the server defaults it
	got, err := kube.DryRunUpdate(context.Background(), client, desired)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Template.Spec.Containers[0].ImagePullPolicy != "IfNotPresent" || got.Kind != "Deployment" || got.APIVersion != "apps/v1" {
		t.Errorf("not the server's answer: pull policy %q, TypeMeta %+v", got.Spec.Template.Spec.Containers[0].ImagePullPolicy, got.TypeMeta)
	}
	var verbs []string
	for _, a := range client.Actions() {
		verbs = append(verbs, a.GetVerb())
		if u, ok := a.(k8stesting.UpdateActionImpl); ok {
			if rv := u.GetObject().(*appsv1.Deployment).ResourceVersion; rv != "42" {
				t.Errorf("update sent resourceVersion %q, want the one read (42)", rv)
			}
		}
	}
	if diff := cmp.Diff([]string{"update"}, verbs); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	stored, err := client.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(live, stored); diff != "" {
		t.Errorf("the dry run stored something (-live +stored):\n%s", diff)
	}
}

func TestDryRunCreate(t *testing.T) {
	client := fake.NewClientset()
	dryRunServer(t, client)
	desired := testutil.Deployment("new").Undefaulted().Build()
	got, err := kube.DryRunUpdate(context.Background(), client, desired)
	if err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 1 {
		t.Errorf("not defaulted: %+v", got.Spec)
	}
	if verbs := client.Actions(); len(verbs) != 1 || verbs[0].GetVerb() != "create" {
		t.Errorf("requests %v, want one create", verbs)
	}
	if list, _ := client.AppsV1().Deployments("default").List(context.Background(), metav1.ListOptions{}); len(list.Items) != 0 {
		t.Errorf("the dry run stored %d Deployments", len(list.Items))
	}
}

func TestDryRunErrors(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	live := testutil.Deployment("web").ResourceVersion("42").Build()
	tests := []struct {
		name      string
		desired   *appsv1.Deployment
		err       error
		want      string
		forbidden bool
		is        func(error) bool
	}{
		{name: "forbidden update", desired: live, err: apierrors.NewForbidden(gr, "web", errors.New(`User "bob" cannot update resource "deployments"`)),
			want: `server-side dry run of update deployment default/web: forbidden: it needs permission to update deployments.apps in namespace "default"`, forbidden: true, is: apierrors.IsForbidden},
		{name: "forbidden create", desired: testutil.Deployment("new").ResourceVersion("").Build(), err: apierrors.NewForbidden(gr, "new", errors.New("no")),
			want: `server-side dry run of create deployment default/new: forbidden: it needs permission to create deployments.apps`, forbidden: true, is: apierrors.IsForbidden},
		{name: "conflict", desired: live, err: apierrors.NewConflict(gr, "web", errors.New("the object has been modified")),
			want: "server-side dry run of update deployment default/web: the Deployment changed since it was read (resourceVersion 42): run the command again", is: apierrors.IsConflict},
		{name: "already exists", desired: testutil.Deployment("web").ResourceVersion("").Build(), err: apierrors.NewAlreadyExists(gr, "web"),
			want: "server-side dry run of create deployment default/web: the Deployment exists already: read it first so the change is an update", is: apierrors.IsAlreadyExists},
		{name: "invalid", desired: live, err: apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", nil),
			want: `server-side dry run of update deployment default/web: Deployment.apps "web" is invalid`, is: apierrors.IsInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			client.PrependReactor("*", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tc.err
			})
			_, err := kube.DryRunUpdate(context.Background(), client, tc.desired)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %s\nwant it to contain\n  %s", err, tc.want)
			}
			if errors.Is(err, kube.ErrDryRunForbidden) != tc.forbidden {
				t.Errorf("errors.Is(err, ErrDryRunForbidden) = %v, want %v", !tc.forbidden, tc.forbidden)
			}
			if !tc.is(err) {
				t.Errorf("API status not reachable: %v", err)
			}
		})
	}
}

// TestDryRunUpdateOfStatusMoved: a Conflict because the controller updated the status since
// the read is sent again with the current resourceVersion; one because the spec changed is
// returned.
func TestDryRunUpdateOfStatusMoved(t *testing.T) {
	for _, c := range []struct {
		name                string
		specMoved, revMoved bool
		wantErr             bool
		wantSends           int
	}{
		{"status moved", false, false, false, 2},
		{"status and the controller's revision annotation moved", false, true, false, 2},
		{"spec moved", true, false, true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			read := testutil.Deployment("web").Replicas(10).ResourceVersion("42").Build()
			now := read.DeepCopy()
			now.ResourceVersion = "43"
			now.Status.ReadyReplicas = 7
			if c.specMoved {
				now.Spec.Replicas = ptrTo(int32(3))
				now.Generation++
			}
			if c.revMoved {
				now.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
			}
			client := fake.NewClientset(now)
			sends := 0
			client.PrependReactor("update", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
				sends++
				obj := a.(k8stesting.UpdateActionImpl).GetObject().(*appsv1.Deployment)
				if obj.ResourceVersion != "43" {
					return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("the object has been modified"))
				}
				return true, obj, nil
			})
			desired, err := change.SetImages(read, []string{"web=nginx:1.19"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := kube.DryRunUpdateOf(context.Background(), client, read, desired)
			if (err != nil) != c.wantErr || sends != c.wantSends {
				t.Fatalf("err %v after %d dry runs; want error %v after %d", err, sends, c.wantErr, c.wantSends)
			}
			if err == nil && got.Spec.Template.Spec.Containers[0].Image != "nginx:1.19" {
				t.Errorf("dry run returned %s, want the change", got.Spec.Template.Spec.Containers[0].Image)
			}
			if err == nil && c.revMoved && got.Annotations["deployment.kubernetes.io/revision"] != "1" {
				t.Errorf("dry run sent annotations %v, want the controller's revision kept", got.Annotations)
			}
			if err != nil && !apierrors.IsConflict(err) {
				t.Errorf("err %v, want the Conflict", err)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

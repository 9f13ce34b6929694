package change_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
	"github.com/rollplan/kubectl-rollplan/pkg/change"
)

type images struct{ Init, Containers []string }

func imagesOf(d *appsv1.Deployment) images {
	var out images
	for _, c := range d.Spec.Template.Spec.InitContainers {
		out.Init = append(out.Init, c.Name+"="+c.Image)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		out.Containers = append(out.Containers, c.Name+"="+c.Image)
	}
	return out
}

func TestSetImages(t *testing.T) {
	base := func() *appsv1.Deployment {
		return testutil.Deployment("web").Container("side", "envoy:1").InitContainer("init", "busybox:1").InitContainer("web", "migrate:1").Build()
	}
	tests := []struct {
		name    string
		pairs   []string
		want    images
		wantErr string
	}{
		{name: "one container", pairs: []string{"side=envoy:2"},
			want: images{Init: []string{"init=busybox:1", "web=migrate:1"}, Containers: []string{"web=nginx:1.18", "side=envoy:2"}}},
		{name: "a name in both lists sets both, as kubectl", pairs: []string{"web=nginx:1.19"},
			want: images{Init: []string{"init=busybox:1", "web=nginx:1.19"}, Containers: []string{"web=nginx:1.19", "side=envoy:1"}}},
		{name: "init container only", pairs: []string{"init=busybox:2"},
			want: images{Init: []string{"init=busybox:2", "web=migrate:1"}, Containers: []string{"web=nginx:1.18", "side=envoy:1"}}},
		{name: "star sets every container and init container", pairs: []string{"*=busybox"},
			want: images{Init: []string{"init=busybox", "web=busybox"}, Containers: []string{"web=busybox", "side=busybox"}}},
		{name: "several pairs", pairs: []string{"side=envoy:3", "init=busybox:3"},
			want: images{Init: []string{"init=busybox:3", "web=migrate:1"}, Containers: []string{"web=nginx:1.18", "side=envoy:3"}}},
		{name: "last pair for a name wins", pairs: []string{"side=envoy:3", "side=envoy:4"},
			want: images{Init: []string{"init=busybox:1", "web=migrate:1"}, Containers: []string{"web=nginx:1.18", "side=envoy:4"}}},
		{name: "image with a registry port and digest", pairs: []string{"side=reg:5000/envoy@sha256:abc=="},
			want: images{Init: []string{"init=busybox:1", "web=migrate:1"}, Containers: []string{"web=nginx:1.18", "side=reg:5000/envoy@sha256:abc=="}}},
		{name: "unknown container", pairs: []string{"side=envoy:2", "x=nginx"},
			wantErr: `unable to find container named "x" (containers: web, side; init containers: init, web)`},
		{name: "several unknown names, one line", pairs: []string{"x=a", "y=b"},
			wantErr: `unable to find containers named "x", "y" (containers: web, side; init containers: init, web)`},
		{name: "no pair", pairs: nil, wantErr: "at least one image update is required"},
		{name: "no equals sign", pairs: []string{"nginx:1.19", "=x"}, wantErr: "invalid image format: nginx:1.19, =x"},
		{name: "empty image", pairs: []string{"web="}, wantErr: "invalid image format: web=: the image is empty"},
		{name: "newline in a pair is quoted", pairs: []string{"web\n"}, wantErr: `invalid image format: "web\n"`},
		{name: "newline before an empty image is quoted", pairs: []string{"we\nb="}, wantErr: `invalid image format: "we\nb=": the image is empty`},
		{name: "star with others", pairs: []string{"*=a", "web=b"}, wantErr: "all containers are already specified by *, but saw more than one container_name=container_image pairs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			got, err := change.SetImages(in, tc.pairs)
			if diff := cmp.Diff(base(), in); diff != "" {
				t.Errorf("input mutated (-before +after):\n%s", diff)
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if got != nil {
					t.Errorf("got a Deployment with an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, imagesOf(got)); diff != "" {
				t.Errorf("images (-want +got):\n%s", diff)
			}
			// Only images change: pull policies stay as they were (kubectl does not re-default them).
			restored := got.DeepCopy()
			for i := range restored.Spec.Template.Spec.Containers {
				restored.Spec.Template.Spec.Containers[i].Image = in.Spec.Template.Spec.Containers[i].Image
			}
			for i := range restored.Spec.Template.Spec.InitContainers {
				restored.Spec.Template.Spec.InitContainers[i].Image = in.Spec.Template.Spec.InitContainers[i].Image
			}
			if diff := cmp.Diff(in, restored); diff != "" {
				t.Errorf("SetImages changed more than images (-in +out):\n%s", diff)
			}
		})
	}
}

func TestSetReplicas(t *testing.T) {
	in := testutil.Deployment("web").Replicas(3).Build()
	for _, n := range []int32{0, 1, 12} {
		got, err := change.SetReplicas(in, n)
		if err != nil || *got.Spec.Replicas != n {
			t.Errorf("SetReplicas(%d) = %v, %v", n, got.Spec.Replicas, err)
		}
	}
	if *in.Spec.Replicas != 3 {
		t.Errorf("input mutated: replicas %d", *in.Spec.Replicas)
	}
	_, err := change.SetReplicas(in, -1)
	if want := "spec.replicas: Invalid value: -1: must be greater than or equal to 0"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("SetReplicas(-1) error %v, want %q", err, want)
	}
}

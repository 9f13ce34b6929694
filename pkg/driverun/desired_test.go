package driverun

import (
	"context"
	"io"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// conflictOnce is a Change that answers a Conflict the first `conflicts` times, then the
// read Deployment with its image changed.
type conflictOnce struct {
	any       bool
	conflicts int
	calls     int
}

func (c *conflictOnce) Any() bool { return c.any }

func (c *conflictOnce) ServerDesired(_ context.Context, _ kubernetes.Interface, st *cluster.State, _ string, _ io.Reader, _ time.Time) (*appsv1.Deployment, []string, error) {
	c.calls++
	if c.calls <= c.conflicts {
		return nil, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, st.Deployment.Name, nil)
	}
	d := st.Deployment.DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = "nginx:1.21"
	return d, []string{"a warning"}, nil
}

func webDeployment() *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx:1.20"}}
	return d
}

func TestDesired(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		change     *conflictOnce
		rereadable bool
		wantImage  string // "" for no Deployment
		wantErr    bool
		wantCalls  int
	}{
		{"no change: nil after the read", &conflictOnce{}, true, "", false, 0},
		{"a change", &conflictOnce{any: true}, true, "nginx:1.21", false, 1},
		{"a conflict is read again and retried", &conflictOnce{any: true, conflicts: 1}, true, "nginx:1.21", false, 2},
		{"a conflict with a manifest from stdin is not retried", &conflictOnce{any: true, conflicts: 1}, false, "", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewSimpleClientset(webDeployment())
			got, warnings, err := Desired(ctx, cs, DesiredInput{Namespace: "shop", Name: "web", Change: tc.change, Rereadable: tc.rereadable, Now: time.Now})
			switch {
			case tc.wantErr != (err != nil):
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			case tc.change.calls != tc.wantCalls:
				t.Errorf("change applied %d times, want %d", tc.change.calls, tc.wantCalls)
			case tc.wantImage == "" && got != nil:
				t.Errorf("got a Deployment, want none")
			case tc.wantImage != "" && (got == nil || got.Spec.Template.Spec.Containers[0].Image != tc.wantImage || len(warnings) != 1):
				t.Errorf("got %v (warnings %q), want image %s and one warning", got, warnings, tc.wantImage)
			}
		})
	}
	if _, _, err := Desired(ctx, fake.NewSimpleClientset(), DesiredInput{Namespace: "shop", Name: "web", Change: &conflictOnce{any: true}, Now: time.Now}); !apierrors.IsNotFound(err) {
		t.Errorf("missing Deployment: error %v, want NotFound", err)
	}
}

func TestCheckAndPreviewHandBackSkip(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewSimpleClientset()
	if r, ran, err := Check(ctx, cs, webRef(), "none", &drive.Prepared{Takeover: &drive.Takeover{}}); ran || r != nil || err != nil {
		t.Errorf("--checks=none: ran %v, %v, %v; want nothing run", ran, r, err)
	}
	if r, ran, err := Check(ctx, cs, webRef(), "all", &drive.Prepared{}); ran || r != nil || err != nil {
		t.Errorf("no takeover: ran %v, %v, %v; want nothing run", ran, r, err)
	}
	if hb, ok, err := PreviewHandBack(&cluster.State{Deployment: webDeployment()}, "", time.Now()); ok || hb != nil || err != nil {
		t.Errorf("not held: %v %v %v; want not handled", hb, ok, err)
	}
}

func webRef() target.Ref { return target.Ref{Namespace: "shop", Name: "web"} }

package cmd

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/pkg/driverun"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// TestDriveDesiredReadsThroughTransientErrors: drive's read before its change (desired: a
// GET of the Deployment, a LIST of its ReplicaSets) fails once with a 503; it is read again
// (pipeline.LoadLive, kube.Read) and the changed Deployment comes back. After a dry run that
// conflicts, the second read fails once with a refused connection and is read again too.
func TestDriveDesiredReadsThroughTransientErrors(t *testing.T) {
	unavailable := func() error { return apierrors.NewServiceUnavailable("the server is restarting") }
	cases := []struct {
		name      string
		conflicts int // dry runs answered with a conflict before the one that passes
		// fail is the transient error of the GET of each read, in order (nil: answered).
		fail     []func() error
		wantGets int
	}{
		{"first read fails once", 0, []func() error{unavailable}, 2},
		{"read after a conflict fails once", 1, []func() error{nil, refused}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, rss := webFixture()
			c := fakeClient(d, rss)
			gets := 0
			c.PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				gets++
				if gets <= len(tc.fail) && tc.fail[gets-1] != nil {
					return true, nil, tc.fail[gets-1]()
				}
				return false, nil, nil
			})
			updates := 0
			c.PrependReactor("update", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				if updates++; updates <= tc.conflicts {
					return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
				}
				return false, nil, nil
			})
			streams, _, errOut := testStreams()
			o := NewDriveOptions(streams)
			o.Target = Target{Ref: target.Ref{Namespace: "default", Name: "web"}, Client: clientOf(c)}
			o.Change.Images = []string{"web=nginx:1.21"}
			o.Now = func() time.Time { return time.Date(2024, 1, 1, 1, 0, 0, 0, time.UTC) }
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			got, _, err := driverun.Desired(ctx, c, driverun.DesiredInput{Namespace: "default", Name: "web", Change: &o.Change, Rereadable: true, Now: o.Now})
			if err != nil {
				t.Fatalf("desired: %v (stderr %q)", err, errOut)
			}
			if img := got.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.21" {
				t.Errorf("desired image %q, want nginx:1.21", img)
			}
			if gets != tc.wantGets {
				t.Errorf("%d GETs of the Deployment, want %d", gets, tc.wantGets)
			}
			if updates != tc.conflicts+1 {
				t.Errorf("%d dry runs, want %d", updates, tc.conflicts+1)
			}
			if strings.Contains(errOut.String(), "error") {
				t.Errorf("stderr: %s", errOut)
			}
		})
	}
}

package kube

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

// TestRetryPolicy counts the updates a reactor sees: an error the policy retries is sent
// Backoff.Steps times and then returned; one it does not retry, or one wrapped by Stop, once.
func TestRetryPolicy(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	conflict := apierrors.NewConflict(gr, "web", errors.New("the object has been modified"))
	unavailable := apierrors.NewServiceUnavailable("etcd leader changed")
	forbidden := apierrors.NewForbidden(gr, "web", errors.New("no"))
	for _, tc := range []struct {
		name      string
		errs      []error // the reactor's answers, in turn; nil: success
		retry     func(fn func() error) error
		stop      bool // the caller wraps every error in Stop
		wantCalls int
		wantErr   error
	}{
		{"a conflict is retried Steps times, then returned", []error{conflict}, RetryOnConflict, false, Backoff.Steps, conflict},
		{"a transient error is retried Steps times, then returned", []error{unavailable}, func(fn func() error) error { return OnError(IsTransient, fn) }, false, Backoff.Steps, unavailable},
		{"success after two conflicts", []error{conflict, conflict, nil}, RetryOnConflict, false, 3, nil},
		{"forbidden is not retried", []error{forbidden}, RetryOnConflict, false, 1, forbidden},
		{"a transient error is not a conflict", []error{unavailable}, RetryOnConflict, false, 1, unavailable},
		{"Stop ends the retries with its error", []error{conflict}, RetryOnConflict, true, 1, conflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testutil.Deployment("web").Build()
			cs := fake.NewClientset(d)
			calls := 0
			cs.PrependReactor("update", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
				err := tc.errs[min(calls, len(tc.errs)-1)]
				calls++
				return err != nil, nil, err
			})
			err := tc.retry(func() error {
				_, err := UpdateDeployment(t.Context(), cs, d, Default())
				if tc.stop {
					return Stop(err)
				}
				return err
			})
			if calls != tc.wantCalls {
				t.Errorf("%d updates, want %d", calls, tc.wantCalls)
			}
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Errorf("err %v, want %v", err, tc.wantErr)
			}
			if _, wrapped := err.(*stopError); wrapped {
				t.Errorf("err %v is still wrapped by Stop", err)
			}
		})
	}
	if Backoff.Steps < 2 {
		t.Errorf("Backoff.Steps = %d: the policy must retry at least once", Backoff.Steps)
	}
}

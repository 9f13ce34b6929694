package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestIsTransient: the failures of an API server that restarts, throttles or loses etcd are
// transient; a guard, a refusal, an invalid object and a context's end are not.
func TestIsTransient(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/apis", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused (API server down)", refused, true},
		{"connection reset", fmt.Errorf("patch: %w", os.NewSyscallError("read", syscall.ECONNRESET)), true},
		{"429 Too Many Requests", apierrors.NewTooManyRequests("slow down", 1), true},
		{"503", apierrors.NewServiceUnavailable("unavailable"), true},
		{"504 timeout", apierrors.NewTimeoutError("request did not complete", 1), true},
		{"502 from a proxy", apierrors.NewGenericServerResponse(502, "get", gr, "web", "bad gateway", 0, true), true},
		{"etcd request timed out", apierrors.NewInternalError(errors.New("etcdserver: request timed out")), true},
		{"etcd leader changed, as text", errors.New("rpc error: code = Unavailable desc = etcdserver: leader changed"), true},
		{"conflict", apierrors.NewConflict(gr, "web", errors.New("modified")), false},
		{"aggregate of a refused LIST and a 503 (the builder's visits)", utilerrors.NewAggregate([]error{refused, utilerrors.NewAggregate([]error{apierrors.NewServiceUnavailable("x")})}), true},
		{"aggregate with a forbidden among transients", utilerrors.NewAggregate([]error{refused, apierrors.NewForbidden(gr, "web", errors.New("no"))}), false},
		{"forbidden", apierrors.NewForbidden(gr, "web", errors.New("no")), false},
		{"invalid", apierrors.NewBadRequest("bad"), false},
		{"context canceled", fmt.Errorf("get: %w", context.Canceled), false},
		{"context deadline (a net.Error with Timeout)", &url.Error{Op: "Get", URL: "x", Err: context.DeadlineExceeded}, false},
		{"nil", nil, false},
	} {
		if got := IsTransient(tc.err); got != tc.want {
			t.Errorf("%s: IsTransient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestRetryDo: transient failures are retried until success or the deadline, a server's
// Retry-After is waited, Check and the context end the retries, other errors are returned
// at once; fn is told whether an earlier attempt failed.
func TestRetryDo(t *testing.T) {
	unavailable := apierrors.NewServiceUnavailable("unavailable")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "deployments"}, "web", errors.New("no"))
	t.Run("success after transient failures", func(t *testing.T) {
		calls, retried, told := 0, []bool{}, 0
		err := Retry{Deadline: time.Now().Add(10 * time.Second), OnRetry: func(error, int, time.Duration) { told++ }}.Do(t.Context(), func(_ context.Context, r bool) error {
			calls++
			retried = append(retried, r)
			if calls < 3 {
				return unavailable
			}
			return nil
		})
		if err != nil || calls != 3 || told != 2 || retried[0] || !retried[1] || !retried[2] {
			t.Errorf("err %v, %d calls, %d told, retried %v; want nil, 3, 2, [false true true]", err, calls, told, retried)
		}
	})
	t.Run("gives up at the deadline, still transient", func(t *testing.T) {
		began, calls := time.Now(), 0
		err := Retry{Deadline: began.Add(time.Second)}.Do(t.Context(), func(context.Context, bool) error { calls++; return unavailable })
		took := time.Since(began)
		if !IsTransient(err) || !apierrors.IsServiceUnavailable(err) || calls < 2 || took > 1500*time.Millisecond {
			t.Errorf("err %v after %d calls in %s; want the 503 after 2 or more calls within about 1s", err, calls, took)
		}
	})
	t.Run("Retry-After is waited", func(t *testing.T) {
		began, calls := time.Now(), 0
		err := Retry{Deadline: began.Add(5 * time.Second)}.Do(t.Context(), func(context.Context, bool) error {
			if calls++; calls == 1 {
				return apierrors.NewTooManyRequests("apf", 1)
			}
			return nil
		})
		if took := time.Since(began); err != nil || took < time.Second {
			t.Errorf("err %v after %s; want success after the 1s Retry-After", err, took)
		}
	})
	t.Run("other errors at once", func(t *testing.T) {
		calls := 0
		err := Retry{}.Do(t.Context(), func(context.Context, bool) error { calls++; return forbidden })
		if err != forbidden || calls != 1 {
			t.Errorf("err %v after %d calls, want forbidden after 1", err, calls)
		}
	})
	t.Run("Check ends the retries", func(t *testing.T) {
		lapsed := errors.New("lease lapsed")
		calls := 0
		check := func() error {
			if calls > 0 {
				return lapsed
			}
			return nil
		}
		err := Retry{Check: check}.Do(t.Context(), func(context.Context, bool) error { calls++; return unavailable })
		if err != lapsed || calls != 1 {
			t.Errorf("err %v after %d calls, want the Check error after 1", err, calls)
		}
	})
	t.Run("the context ends the retries", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		stop := errors.New("interrupted")
		calls := 0
		err := Retry{}.Do(ctx, func(context.Context, bool) error {
			if calls++; calls == 2 {
				cancel(stop)
			}
			return unavailable
		})
		if err != stop || calls != 2 {
			t.Errorf("err %v after %d calls, want the context's cause after 2", err, calls)
		}
	})
}

// TestRead: a read is sent again after a transient failure and its last result returned; a
// permanent error returns the zero value at once.
func TestRead(t *testing.T) {
	unavailable := apierrors.NewServiceUnavailable("unavailable")
	calls := 0
	got, err := Read(t.Context(), Retry{Deadline: time.Now().Add(10 * time.Second)}, func(context.Context) ([]string, error) {
		if calls++; calls < 3 {
			return []string{"partial"}, unavailable
		}
		return []string{"web", "api"}, nil
	})
	if err != nil || calls != 3 || fmt.Sprint(got) != "[web api]" {
		t.Errorf("got %v, err %v after %d calls; want [web api], nil after 3", got, err, calls)
	}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "deployments"}, "web", errors.New("no"))
	calls = 0
	got, err = Read(t.Context(), Retry{Deadline: time.Now().Add(10 * time.Second)}, func(context.Context) ([]string, error) {
		calls++
		return []string{"partial"}, forbidden
	})
	if !apierrors.IsForbidden(err) || calls != 1 || got != nil {
		t.Errorf("got %v, err %v after %d calls; want nil, the Forbidden after 1", got, err, calls)
	}
}

// TestRetryAttemptTimeout: an API server that takes a request and never answers it (seen
// after an etcd restart) holds no caller for ever: the attempt ends at its time with a
// NoAnswerError, which is transient and not a context's end, and the request is sent
// again; the caller's own context still ends the retries with its cause. Run against a
// real HTTP server and client-go's typed client, so the request itself is what hangs.
func TestRetryAttemptTimeout(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			select { // the first request is taken and never answered
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","resourceVersion":"7"}}`)
	}))
	defer srv.Close()
	defer close(release)
	client := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL})
	var told []error
	r := Retry{AttemptTimeout: 300 * time.Millisecond, Deadline: time.Now().Add(10 * time.Second),
		OnRetry: func(err error, _ int, _ time.Duration) { told = append(told, err) }}
	got, err := Read(t.Context(), r, func(ctx context.Context) (*appsv1.Deployment, error) {
		return client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	})
	if err != nil || got.ResourceVersion != "7" || calls.Load() != 2 {
		t.Fatalf("got %v, err %v after %d requests; want resourceVersion 7 after 2", got, err, calls.Load())
	}
	var na *NoAnswerError
	if len(told) != 1 || !errors.As(told[0], &na) || na.After != 300*time.Millisecond || !IsTransient(told[0]) || IsContextError(told[0]) {
		t.Errorf("retried after %v; want one NoAnswerError after 300ms, transient and not a context's end", told)
	}

	t.Run("the caller's context still ends it", func(t *testing.T) {
		calls.Store(0)
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		_, err := Read(ctx, Retry{AttemptTimeout: 5 * time.Second}, func(ctx context.Context) (*appsv1.Deployment, error) {
			return client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		})
		if !IsContextError(err) || IsTransient(err) || calls.Load() != 1 {
			t.Errorf("err %v after %d requests; want the context's deadline after 1, not transient", err, calls.Load())
		}
	})
	t.Run("an attempt near its deadline still gets MinAttemptTimeout", func(t *testing.T) {
		began := time.Now()
		err := Retry{Deadline: began.Add(10 * time.Millisecond)}.Do(t.Context(), func(ctx context.Context, _ bool) error {
			<-ctx.Done()
			return ctx.Err()
		})
		if took := time.Since(began); !IsTransient(err) || took < MinAttemptTimeout {
			t.Errorf("err %v after %s; want a NoAnswerError after %s", err, took, MinAttemptTimeout)
		}
	})
}

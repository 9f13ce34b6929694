package target

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// flakyServer fails (503) or holds (until the request ends) the first `bad` requests, then
// serves the paged LIST; it counts every request.
type flakyServer struct {
	mu   sync.Mutex
	n    int
	bad  int
	hold bool
	next *pagedServer
}

func (f *flakyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.n++
	failing := f.n <= f.bad
	f.mu.Unlock()
	switch {
	case failing && f.hold:
		<-r.Context().Done() // the client gave up: the attempt's time ran out
	case failing:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"ServiceUnavailable","code":503}`))
	default:
		f.next.ServeHTTP(w, r)
	}
}

// TestListRetriesThroughKubeRead: the selection's LIST is a kube.Read: a first attempt that
// fails transiently (503) or gets no answer within the attempt's time is sent again whole,
// and the result is the second attempt's.
func TestListRetriesThroughKubeRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		hold bool
	}{{name: "503 first"}, {name: "no answer first", hold: true}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &flakyServer{bad: 1, hold: tc.hold, next: &pagedServer{items: fleet()}}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			var retried []error
			s := &Selection{Many: true, Namespace: "shop", All: true, Builder: NewBuilder(apiServer{host: hs.URL}),
				Retry: kube.Retry{AttemptTimeout: 300 * time.Millisecond, OnRetry: func(err error, _ int, _ time.Duration) { retried = append(retried, err) }}}
			start := time.Now()
			ds, err := s.List(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != 5 || srv.n != 2 || len(retried) != 1 {
				t.Errorf("%d Deployments after %d requests, %d retries (%v); want 5 after 2, 1", len(ds), srv.n, len(retried), retried)
			}
			if tc.hold {
				var na *kube.NoAnswerError
				if len(retried) == 1 && !errors.As(retried[0], &na) {
					t.Errorf("retried on %v, want a NoAnswerError", retried[0])
				}
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("took %s: the attempt's time did not end the held request", took)
				}
			}
			refs, err := s.Resolve(t.Context()) // the server now answers: one more LIST
			if err != nil || len(refs) != 5 {
				t.Errorf("Resolve: %d refs, %v", len(refs), err)
			}
		})
	}
}

// TestListGivesUp: a LIST that keeps failing transiently ends at the Retry's deadline with
// kube's "gave up" error, not at the first failure and not never.
func TestListGivesUp(t *testing.T) {
	srv := &flakyServer{bad: 1 << 30, next: &pagedServer{}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	s := &Selection{Many: true, Namespace: "shop", Selector: "app=web", Builder: NewBuilder(apiServer{host: hs.URL}),
		Retry: kube.Retry{Deadline: time.Now().Add(700 * time.Millisecond)}}
	_, err := s.List(t.Context())
	if err == nil || !kube.IsTransient(err) || srv.n < 2 {
		t.Fatalf("after %d requests: %v; want a transient error after retries", srv.n, err)
	}
}

package cmd

import (
	"context"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// refused is the error a client gets from an API server that is not listening.
func refused() error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
}

// failReads makes the first n requests of verb on resource fail with err and counts every
// one of them; the count is returned.
func failReads(c *fake.Clientset, verb, resource string, n int, err func() error) func() int {
	var mu sync.Mutex
	calls := 0
	c.PrependReactor(verb, resource, func(k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls <= n {
			return true, nil, err()
		}
		return false, nil, nil
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return calls
	}
}

// TestVerbsReadThroughTransientErrors: the read before each verb's write (a GET of the
// Deployment, a LIST of its ReplicaSets) fails twice, a 503 then a refused connection; the
// verb reads again (kube.Retry), completes, and writes exactly once.
func TestVerbsReadThroughTransientErrors(t *testing.T) {
	unavailable := func() error { return apierrors.NewServiceUnavailable("the server is restarting") }
	type run struct {
		c   *fake.Clientset
		run func(context.Context) error
		out *strings.Builder
	}
	action := func(verb rollout.Verb, mutate func(*appsv1.Deployment)) func(t *testing.T) run {
		return func(t *testing.T) run {
			d, rss := webFixture()
			if mutate != nil {
				mutate(d)
			}
			o, c, out := newActionTest(t, verb, d, rss)
			o.DryRun = cmdutil.DryRunNone
			return run{c, o.Run, out}
		}
	}
	cases := []struct {
		name string
		make func(t *testing.T) run
		done string
	}{
		{"pause", action(rollout.VerbPause, nil), "deployment.apps/web paused"},
		{"resume", action(rollout.VerbResume, func(d *appsv1.Deployment) { d.Spec.Paused = true }), "deployment.apps/web resumed"},
		{"restart", action(rollout.VerbRestart, nil), "deployment.apps/web restarted"},
		{"undo", func(t *testing.T) run {
			o, c, out, _ := newUndoTest(t, nil)
			o.DryRun, o.ToRevision = cmdutil.DryRunNone, 2
			return run{c, o.Run, out}
		}, "deployment.apps/web rolled back"},
	}
	for _, tc := range cases {
		for _, read := range []struct{ verb, resource string }{{"get", "deployments"}, {"list", "replicasets"}} {
			t.Run(tc.name+"/"+read.verb+"-"+read.resource, func(t *testing.T) {
				t.Parallel()
				r := tc.make(t)
				first := true
				calls := failReads(r.c, read.verb, read.resource, 2, func() error {
					if first {
						first = false
						return unavailable()
					}
					return refused()
				})
				mustRun(t, r.run)
				if got := calls(); got != 3 {
					t.Errorf("%d %s %s requests, want 3 (two failed, one answered)", got, read.verb, read.resource)
				}
				if w := writes(r.c); len(w) != 1 {
					t.Errorf("writes %v, want exactly one", w)
				}
				if !strings.HasSuffix(r.out.String(), "\n"+tc.done+"\n") {
					t.Errorf("output does not end with %q:\n%s", tc.done, r.out)
				}
			})
		}
	}
}

// TestVerbReadStopsAtOnceOnAPermanentError: a Forbidden read is not retried.
func TestVerbReadStopsAtOnceOnAPermanentError(t *testing.T) {
	d, rss := webFixture()
	o, c, _ := newActionTest(t, rollout.VerbRestart, d, rss)
	o.DryRun = cmdutil.DryRunNone
	calls := failReads(c, "get", "deployments", 100, func() error {
		return apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
	})
	code, msg := exit(o.Run)
	if code != ExitError || !strings.Contains(msg, "forbidden") {
		t.Errorf("exit %d %q, want 1 and forbidden", code, msg)
	}
	if got := calls(); got != 1 {
		t.Errorf("%d GETs of a forbidden Deployment, want 1", got)
	}
	if w := writes(c); len(w) != 0 {
		t.Errorf("writes %v after a failed read", w)
	}
}

// TestFleetReadThroughTransientErrors: -l's two LISTs (cluster.LoadFleet through
// Targets.load) are read again after a 503 and a refused connection.
func TestFleetReadThroughTransientErrors(t *testing.T) {
	c := fake.NewClientset(fleetObjects()...)
	first := true
	calls := failReads(c, "list", "deployments", 2, func() error {
		if first {
			first = false
			return apierrors.NewServiceUnavailable("the server is restarting")
		}
		return refused()
	})
	rsCalls := failReads(c, "list", "replicasets", 1, refused)
	tg := &Targets{Selection: &target.Selection{Many: true, Selector: "tier=front", Namespace: "shop", ChunkSize: 500}, Client: clientOf(c)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ms, err := pipeline.SelectFrom(ctx, tg.Selection, tg.Client, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 {
		t.Errorf("%d members, want 2: %v", len(ms), ms)
	}
	for _, m := range ms {
		if m.Err != nil || m.State == nil {
			t.Errorf("%s: %v", m.Ref, m.Err)
		}
	}
	// Deployments: two failed, one answered, one more when the read was sent again whole
	// after the refused LIST of ReplicaSets.
	if calls() != 4 || rsCalls() != 2 {
		t.Errorf("%d LISTs of Deployments (want 4), %d of ReplicaSets (want 2)", calls(), rsCalls())
	}
}

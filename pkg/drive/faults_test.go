package drive

import (
	"errors"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// connReset is the error of a request whose connection dropped before the answer came.
var connReset = &url.Error{Op: "Patch", URL: "https://127.0.0.1:6443/apis/apps/v1", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}

// connRefused is the error of a request to an API server that is down.
var connRefused = &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/apis/apps/v1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}

// replicaSetWrites keeps the ReplicaSet writes of fc's record ("patch replicasets/web-x").
func replicaSetWrites(writes []string) []string {
	return slices.DeleteFunc(slices.Clone(writes), func(w string) bool { return !strings.Contains(w, " replicasets/") })
}

// TestRunRidesThroughTransientFailures drives the fixture while the API server fails one
// request in three: a 503 before the write, a write applied whose answer is lost (connection
// reset), a read answered 429. The drive completes with exactly the ReplicaSet writes of an
// undisturbed drive (a write whose answer was lost is not applied twice: its second
// attempt fails its guard and the driver sees the change in place), and counts its
// retries.
func TestRunRidesThroughTransientFailures(t *testing.T) {
	calm := newRunFixture(t)
	if _, res, err := calm.drive(t, Options{Identity: "tester"}); err != nil || res.Outcome != OutcomeComplete {
		t.Fatalf("undisturbed drive: %+v, %v", res, err)
	}
	want := replicaSetWrites(calm.fc.written())

	f := newRunFixture(t)
	var mu sync.Mutex
	calls, lost, failed, on := 0, 0, 0, true
	fault := func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		stop := !on
		mu.Unlock()
		if a.GetSubresource() != "" || stop {
			return false, nil, nil
		}
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		switch {
		case a.GetVerb() == "get" && n%4 == 0:
			return true, nil, apierrors.NewTooManyRequests("API Priority and Fairness", 0)
		case a.GetVerb() == "get" || a.GetVerb() == "list":
			return false, nil, nil
		case n%3 == 1:
			mu.Lock()
			failed++
			mu.Unlock()
			return true, nil, apierrors.NewServiceUnavailable("etcd leader changed")
		case n%3 == 2:
			if handled, _, err := f.fc.react(a); !handled || err != nil {
				return handled, nil, err // refused on its own (a failed guard): answered
			}
			mu.Lock()
			lost++
			mu.Unlock()
			return true, nil, connReset
		}
		return false, nil, nil
	}
	for _, verb := range []string{"get", "create", "update", "patch"} {
		for _, res := range []string{"deployments", "replicasets"} {
			f.fc.cs.PrependReactor(verb, res, fault)
		}
	}
	_, res, err := f.drive(t, Options{Identity: "tester"})
	mu.Lock()
	on = false
	mu.Unlock()
	if err != nil {
		t.Fatalf("drive through faults: %v", err)
	}
	if res.Outcome != OutcomeComplete || res.Revision != 2 {
		t.Errorf("result %+v, want Complete at revision 2", res)
	}
	if got := replicaSetWrites(f.fc.written()); !slices.Equal(got, want) {
		t.Errorf("ReplicaSet writes through faults:\n  %v\nundisturbed:\n  %v", got, want)
	}
	if lost == 0 || failed == 0 || res.Retries < lost+failed {
		t.Errorf("%d answers lost, %d writes failed, %d retries counted: want some of each, retries covering them", lost, failed, res.Retries)
	}
	if got := f.fc.replicasOf(t, f.newName); got != 10 {
		t.Errorf("new ReplicaSet has %d replicas, want 10", got)
	}
}

// TestRunLeaseLapsesDuringAnOutage: the API server stops answering after step 1 for longer
// than the lease. The driver retries until its lease would lapse, then stops and says so (a
// HeldError, intact, lease not released): no ReplicaSet write is attempted after the
// lapse, and no more than one state write (a renewal's first attempt, which the test of
// the annotation's value makes safe); the next run (another driver, no --force: the lease
// has lapsed) continues the drive to the end.
func TestRunLeaseLapsesDuringAnOutage(t *testing.T) {
	f := newRunFixture(t)
	var mu sync.Mutex
	down := false
	var attempts []string
	f.fc.afterDo = func(fc *fakeCluster, s *State) {
		if s != nil && s.Step == 1 && s.Holder == "first" {
			mu.Lock()
			down = true
			mu.Unlock()
		}
	}
	outage := func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		if !down {
			return false, nil, nil
		}
		if v := a.GetVerb(); v == "create" || v == "update" || v == "patch" {
			attempts = append(attempts, time.Now().Format(time.RFC3339Nano)+" "+v+" "+a.GetResource().Resource)
		}
		return true, nil, connRefused
	}
	for _, verb := range []string{"get", "list", "create", "update", "patch"} {
		for _, res := range []string{"deployments", "replicasets"} {
			f.fc.cs.PrependReactor(verb, res, outage)
		}
	}
	lease := 900 * time.Millisecond
	_, res, err := f.drive(t, Options{Identity: "first", LeaseDuration: lease, Interval: 200 * time.Millisecond})
	var held *HeldError
	if !errors.As(err, &held) || !held.Intact || held.Released || held.Step != 1 || held.Steps != 3 || held.InStep != 0 || !errors.Is(err, errLeaseLapsed) {
		t.Fatalf("run during the outage: result %+v, error %v (%#v); want an intact HeldError at step 1 of 3 (none under way), lease lapsed, not released", res, err, held)
	}
	mu.Lock()
	down = false // the API server is back
	mu.Unlock()
	s, err := ReadState(f.deployment(t))
	if err != nil || s == nil || s.Holder != "first" || s.LeaseExpires == nil {
		t.Fatalf("drive state after the outage: %+v, %v", s, err)
	}
	mu.Lock()
	var late []string
	for _, a := range attempts {
		at, _ := time.Parse(time.RFC3339Nano, strings.Fields(a)[0])
		if at.After(s.LeaseExpires.Add(20 * time.Millisecond)) {
			late = append(late, a)
		}
	}
	if len(late) > 1 || (len(late) == 1 && !strings.HasSuffix(late[0], "patch deployments")) {
		t.Errorf("writes attempted after the lease lapsed at %s: %v", s.LeaseExpires.Format(time.RFC3339Nano), late)
	}
	if len(attempts) == 0 {
		t.Error("no write was attempted during the outage: the renewal did not retry")
	}
	mu.Unlock()

	time.Sleep(time.Until(*s.LeaseExpires) + 10*time.Millisecond)
	f.desired = nil // continue the held drive: no change flags
	_, res, err = f.drive(t, Options{Identity: "second", Desired: nil, Adopt: false})
	if err != nil || res.Outcome != OutcomeComplete || res.Revision != 2 {
		t.Fatalf("the next run: %+v, %v; want Complete at revision 2", res, err)
	}
}

// TestRunStopsInAStepAfterItsWriteLanded: the API server stops answering right after the
// first step creates the new ReplicaSet, for longer than the progress timeout. The drive
// state still records no step done (a step is recorded once done), and the HeldError says
// which step was under way and which of its writes landed, for the closing block.
func TestRunStopsInAStepAfterItsWriteLanded(t *testing.T) {
	f := newRunFixture(t)
	var mu sync.Mutex
	down := false
	outage := func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		if !down {
			return false, nil, nil
		}
		return true, nil, connRefused
	}
	for _, verb := range []string{"get", "list", "create", "update", "patch"} {
		for _, res := range []string{"deployments", "replicasets"} {
			f.fc.cs.PrependReactor(verb, res, outage)
		}
	}
	f.fc.cs.PrependReactor("create", "replicasets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		handled, obj, err := f.fc.react(a)
		mu.Lock()
		down = err == nil
		mu.Unlock()
		return handled, obj, err
	})
	_, res, err := f.drive(t, Options{Identity: "tester", ProgressTimeout: 500 * time.Millisecond})
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("run: result %+v, error %v; want a HeldError", res, err)
	}
	want := []string{"created " + f.newName + " with 3 replicas"}
	if !held.Intact || held.Step != 0 || held.Steps != 3 || held.InStep != 1 || !slices.Equal(held.Landed, want) {
		t.Errorf("HeldError %+v; want intact, step 0 of 3 recorded, step 1 under way with %q landed", held, want)
	}
}

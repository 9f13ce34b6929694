package framework

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func rs(name string, replicas int32, rv string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv},
		Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)},
	}
}

// describeChanges gives "Modified old 10->8 (rv 11)" for each change of ReplicaSets.
func describeChanges(changes []Change) []string {
	replicas := func(o runtime.Object) string {
		if r, ok := o.(*appsv1.ReplicaSet); ok {
			return fmt.Sprint(*r.Spec.Replicas)
		}
		return "-"
	}
	var out []string
	for _, c := range changes {
		r := c.New.(*appsv1.ReplicaSet)
		s := fmt.Sprintf("%s %s %s->%s (rv %s)", c.Type, r.Name, replicas(c.Old), replicas(c.New), r.ResourceVersion)
		if c.Initial {
			s += " initial"
		}
		out = append(out, s)
	}
	return out
}

func TestRelist(t *testing.T) {
	tests := []struct {
		name   string
		known  []runtime.Object
		listed []runtime.Object
		want   []string
	}{
		{"first list: every object added", nil,
			[]runtime.Object{rs("old", 10, "5"), rs("new", 0, "6")},
			[]string{"ADDED old -->10 (rv 5)", "ADDED new -->0 (rv 6)"}},
		{"an object seen before is modified from its last seen state, not created", []runtime.Object{rs("old", 10, "5")},
			[]runtime.Object{rs("old", 8, "9")},
			[]string{"MODIFIED old 10->8 (rv 9)"}},
		{"an object seen before and unchanged is no change", []runtime.Object{rs("old", 10, "5")},
			[]runtime.Object{rs("old", 10, "5")},
			nil},
		{"an object seen before and not listed is deleted, by key", []runtime.Object{rs("b", 2, "5"), rs("a", 3, "4"), rs("c", 1, "6")},
			[]runtime.Object{rs("c", 1, "6"), rs("new", 3, "8")},
			[]string{"ADDED new -->3 (rv 8)", "DELETED a 3->3 (rv 4)", "DELETED b 2->2 (rv 5)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			known := map[string]runtime.Object{}
			for _, o := range tc.known {
				key, _ := objectKey(o)
				known[key] = o
			}
			got := describeChanges(Relist(known, tc.listed))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Relist (-want +got):\n%s", diff)
			}
			var keys []string
			for _, o := range tc.listed {
				key, _ := objectKey(o)
				keys = append(keys, key)
			}
			if len(known) != len(keys) {
				t.Errorf("known after Relist has %d objects, want the %d listed", len(known), len(keys))
			}
			for i, key := range keys {
				if known[key] != tc.listed[i] {
					t.Errorf("known[%s] is not the listed object", key)
				}
			}
		})
	}
}

// fakeAPI is a fake clientset whose ReplicaSet LIST answers the test's current list (with a
// resourceVersion) and whose ReplicaSet WATCHes are the test's FakeWatchers, in order; an
// API server that restarted is a 410 Gone on the open watch. Events list empty and never
// change.
type fakeAPI struct {
	*fake.Clientset
	mu       sync.Mutex
	list     *appsv1.ReplicaSetList
	watchers chan *watch.FakeWatcher
}

func newFakeAPI(rv string, items ...*appsv1.ReplicaSet) *fakeAPI {
	f := &fakeAPI{Clientset: fake.NewClientset(), watchers: make(chan *watch.FakeWatcher, 8)}
	f.setList(rv, items...)
	f.PrependReactor("list", "replicasets", func(clienttesting.Action) (bool, runtime.Object, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return true, f.list.DeepCopy(), nil
	})
	f.PrependReactor("list", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, &corev1.EventList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}, nil
	})
	f.PrependWatchReactor("*", func(a clienttesting.Action) (bool, watch.Interface, error) {
		if a.GetResource().Resource == "replicasets" {
			select {
			case w := <-f.watchers:
				return true, w, nil
			default:
			}
		}
		return true, watch.NewFake(), nil // silent
	})
	return f
}

func (f *fakeAPI) setList(rv string, items ...*appsv1.ReplicaSet) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list = &appsv1.ReplicaSetList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, r := range items {
		f.list.Items = append(f.list.Items, *r)
	}
}

// nextWatch queues the watcher the next ReplicaSet WATCH gets.
func (f *fakeAPI) nextWatch() *watch.FakeWatcher {
	w := watch.NewFake()
	f.watchers <- w
	return w
}

var gone = &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}

// An API server restart while a Recorder runs: its watch ends with 410 Gone and the
// Recorder lists again. A ReplicaSet it saw before (in its first list, or in a watch event)
// is a scale from its last seen replicas, or nothing when unchanged, never a create; one
// gone from the list is a delete. (Before Follow, the list after 410 counted "stable", seen
// only in the first list, as created: "create stable 0->10", and missed the delete.)
func TestRecorderListsAgainAfterGone(t *testing.T) {
	api := newFakeAPI("10", rs("old", 10, "5"), rs("stable", 10, "6"), rs("gone", 2, "7"))
	w1 := api.nextWatch()
	rec := (&Cluster{Client: api}).RecordReplicaSets(t, "ns")
	w1.Modify(rs("old", 8, "11"))
	api.setList("20", rs("old", 5, "19"), rs("stable", 10, "6"), rs("new", 5, "18"))
	api.nextWatch()
	w1.Error(gone)
	want := []string{"scale old 10->8", "scale old 8->5", "create new 0->5", "delete gone 2"}
	rec.WaitFor(t, 30*time.Second, func(writes []RSWrite, _ []ScalingEvent) bool { return len(writes) >= len(want) })
	var got []string
	for _, w := range rec.Writes() {
		got = append(got, w.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

// Follow hands the first list, then each watch event alone, then the whole difference of
// a list after 410 Gone in one call (a bound checked after each call sees no half state).
func TestFollowHandsAListInOneCall(t *testing.T) {
	api := newFakeAPI("10", rs("old", 10, "5"))
	w1 := api.nextWatch()
	var (
		mu    sync.Mutex
		calls [][]string
		wg    sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); wg.Wait() }()
	rsc := api.AppsV1().ReplicaSets("ns")
	lw := ListWatch(api.Clientset, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		return rsc.List(ctx, o)
	}, rsc.Watch)
	err := Follow(ctx, 30*time.Second, lw, &appsv1.ReplicaSet{}, &wg, func(c []Change) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, describeChanges(c))
	})
	if err != nil {
		t.Fatal(err)
	}
	w1.Add(rs("new", 3, "11"))
	api.setList("20", rs("old", 8, "13"), rs("new", 5, "12"), rs("newer", 1, "14"))
	api.nextWatch()
	w1.Error(gone)
	want := [][]string{
		{"ADDED old -->10 (rv 5) initial"},
		{"ADDED new -->3 (rv 11)"},
		{"MODIFIED old 10->8 (rv 13)", "MODIFIED new 3->5 (rv 12)", "ADDED newer -->1 (rv 14)"},
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(calls)
		got := append([][]string(nil), calls...)
		mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("calls of handle (-want +got):\n%s", diff)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

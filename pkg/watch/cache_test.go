package watch

import (
	"context"
	"errors"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func deployment(name string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name}, Generation: 1},
		Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}},
	}
}

func replicaSet(name, app string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": app}}}
}

func TestForDeploymentWaitsForAnUpdate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	web := deployment("web")
	cs := fake.NewClientset(web, replicaSet("web-1", "web"), replicaSet("api-1", "api"))
	c, err := ForDeployment(ctx, cs, web, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Deployment("web") == nil || c.ReplicaSet("web-1") == nil {
		t.Fatal("the Deployment or its ReplicaSet is not in the cache after Start")
	}
	if c.ReplicaSet("api-1") != nil {
		t.Error("a ReplicaSet the selector does not match is in the cache")
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		upd := web.DeepCopy()
		upd.Status.ObservedGeneration = 1
		_, _ = cs.AppsV1().Deployments("default").UpdateStatus(context.Background(), upd, metav1.UpdateOptions{})
	}()
	err = c.Wait(ctx, 5*time.Second, func() (bool, error) {
		d := c.Deployment("web")
		return d != nil && d.Status.ObservedGeneration == 1, nil
	}, nil)
	if err != nil {
		t.Fatalf("wait for observedGeneration 1: %v", err)
	}
	err = c.Wait(ctx, 50*time.Millisecond, func() (bool, error) { return c.ReplicaSet("web-2") != nil, nil }, nil)
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("wait for a ReplicaSet nobody creates: %v, want ErrTimeout", err)
	}
}

func TestStartBySelectorWatchesManyDeployments(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	api := deployment("api")
	api.Labels["tier"] = "backend"
	web := deployment("web")
	cs := fake.NewClientset(api, web)
	c, err := Start(ctx, cs, Options{Namespace: "default", Selector: labels.SelectorFromSet(labels.Set{"tier": "backend"}), Pods: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	all, err := c.Deployments().List(labels.Everything())
	if err != nil || len(all) != 1 || all[0].Name != "api" {
		t.Fatalf("listed %d Deployments (%v), want api alone", len(all), err)
	}
	if c.Pods() == nil {
		t.Fatal("no pod lister with Pods")
	}
	q := NewQueue("test", nil, 0, nil)
	defer q.ShutDown()
	if _, err := c.AddEventHandler(q.EventHandler()); err != nil {
		t.Fatal(err)
	}
	// The handler added late gets the cached objects as adds: api's key arrives.
	if key, _ := q.queue.Get(); key != "default/api" {
		t.Errorf("queued %q, want default/api", key)
	}
}

// A Cache of metav1.NamespaceAll lists the Deployments and ReplicaSets of every namespace.
func TestStartAllNamespaces(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ledger, ledgerRS := deployment("ledger"), replicaSet("ledger-1", "ledger")
	ledger.Namespace, ledgerRS.Namespace = "bank", "bank"
	cs := fake.NewClientset(deployment("web"), replicaSet("web-1", "web"), ledger, ledgerRS)
	c, err := Start(ctx, cs, Options{Namespace: metav1.NamespaceAll})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ds, err := c.Deployments().List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	rss, err := c.ReplicaSets().List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range ds {
		got["deploy "+d.Namespace+"/"+d.Name] = true
	}
	for _, rs := range rss {
		got["rs "+rs.Namespace+"/"+rs.Name] = true
	}
	for _, want := range []string{"deploy default/web", "deploy bank/ledger", "rs default/web-1", "rs bank/ledger-1"} {
		if !got[want] {
			t.Errorf("%s not in the cache of all namespaces: %v", want, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("cache holds %v, want 4 objects", got)
	}
}

// A watch that stays open and never delivers (seen after an etcd restart): the ReplicaSet
// becomes available on the API server, the informer never hears of it. Without Reread the
// wait runs to its timeout; with it, the wait re-reads after the silence and sees it.
func TestWaitRereadsASilentWatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reread time.Duration
		want   error
	}{
		{"no re-read: the timeout", 0, ErrTimeout},
		{"re-read after 1ns of silence: done", time.Nanosecond, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			web := deployment("web")
			web.ResourceVersion = "4"
			rs := replicaSet("web-1", "web")
			rs.ResourceVersion = "5"
			cs := fake.NewClientset(web, rs)
			cs.PrependWatchReactor("*", func(k8stesting.Action) (bool, watch.Interface, error) {
				return true, watch.NewFake(), nil // open, silent
			})
			sel := labels.SelectorFromSet(labels.Set{"app": "web"})
			c, err := Start(ctx, cs, Options{Namespace: "default", Name: "web", ReplicaSets: sel, Reread: tc.reread})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			avail := rs.DeepCopy()
			avail.ResourceVersion, avail.Status.AvailableReplicas = "9", 3
			if err := cs.Tracker().Update(appsv1.SchemeGroupVersion.WithResource("replicasets"), avail, "default"); err != nil {
				t.Fatal(err)
			}
			err = c.Wait(ctx, 3*time.Second, func() (bool, error) {
				r := c.ReplicaSet("web-1")
				return r != nil && r.Status.AvailableReplicas == 3, nil
			}, nil)
			if !errors.Is(err, tc.want) {
				t.Errorf("wait for web-1 available: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestUseReread(t *testing.T) {
	at := func(rv string) metav1.Object {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-1", ResourceVersion: rv}}
	}
	for _, tc := range []struct {
		name               string
		cached, reread     metav1.Object
		informerRV, listRV string
		want               bool
	}{
		{"no re-read", at("5"), nil, "5", "", false},
		{"the re-read is newer", at("5"), at("9"), "5", "9", true},
		{"the informer is as new", at("9"), at("9"), "9", "9", false},
		{"the informer is newer (numbers compared, not strings)", at("10"), at("9"), "10", "9", false},
		{"the informer lacks it, not synced past the re-read", nil, at("9"), "5", "9", true},
		{"the informer lacks it, synced past the re-read: deleted since", nil, at("9"), "12", "9", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := useReread(tc.cached, tc.reread, tc.informerRV, tc.listRV); got != tc.want {
				t.Errorf("useReread = %v, want %v", got, tc.want)
			}
		})
	}
}

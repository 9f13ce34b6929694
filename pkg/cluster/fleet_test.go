package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/rollplan/kubectl-rollplan/internal/testutil"
)

func memberNames(ms []Member) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Deployment.Namespace+"/"+m.Deployment.Name)
	}
	return out
}

func TestGroupReplicaSets(t *testing.T) {
	web := testutil.Deployment("web").Replicas(3).Revision(2).Build()
	webOld := testutil.ReplicaSetFor(web).Image("nginx:1.16").Revision(1).Replicas(0).Created(1).Build()
	webNew := testutil.ReplicaSetFor(web).Revision(2).Created(2).Build()
	webOrphan := testutil.ReplicaSet("web-manual", "web").Created(3).Build()
	// Owned by web, but its labels no longer match web's selector: the controller releases it.
	webReleased := testutil.ReplicaSetFor(web).Image("nginx:1.10").Label("app", "other").Created(0).Build()
	// Matches web's selector, owned by another controller.
	webForeign := testutil.ReplicaSet("web-theirs", "web").ControlledBy("apps/v1", "Deployment", "web-old", "uid-x").Build()
	api := testutil.Deployment("api").Build()
	apiRS := testutil.ReplicaSetFor(api).Build()
	// The same name in another namespace: its own ReplicaSet, never web's of default.
	prodWeb := testutil.Deployment("web").Namespace("prod").UID("uid-prod-web").Build()
	prodWebRS := testutil.ReplicaSetFor(prodWeb).Build()
	// A set-based selector without an equality: matched against every ReplicaSet of its namespace.
	any := testutil.Deployment("any").Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}).Build()
	bad := testutil.Deployment("bad").Build()
	bad.Spec.Selector = nil

	rss := []*appsv1.ReplicaSet{webNew, apiRS, webOrphan, webReleased, prodWebRS, webForeign, webOld}
	got := GroupReplicaSets([]*appsv1.Deployment{web, api, prodWeb, any, bad}, rss, "cluster")
	if d := cmp.Diff([]string{"default/web", "default/api", "prod/web", "default/any", "default/bad"}, memberNames(got)); d != "" {
		t.Fatalf("members (-want +got):\n%s", d)
	}
	w := got[0].State
	if d := cmp.Diff([]string{webOld.Name, webNew.Name, "web-manual"}, names(w.ReplicaSets)); d != "" {
		t.Errorf("web ReplicaSets (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"web-manual"}, names(w.Orphans)); d != "" {
		t.Errorf("web Orphans (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"web-theirs"}, names(w.Foreign)); d != "" {
		t.Errorf("web Foreign (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{apiRS.Name}, names(got[1].State.ReplicaSets)); d != "" {
		t.Errorf("api (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{prodWebRS.Name}, names(got[2].State.ReplicaSets)); d != "" || got[2].State.ReplicaSets[0].Namespace != "prod" {
		t.Errorf("prod/web (-want +got):\n%s", d)
	}
	// "any" owns nothing; it would adopt the orphan and sees the others as foreign.
	if d := cmp.Diff([]string{"web-manual"}, names(got[3].State.Orphans)); d != "" {
		t.Errorf("any Orphans (-want +got):\n%s", d)
	}
	if got[4].Err == nil || !strings.Contains(got[4].Err.Error(), "deployment default/bad has no spec.selector") || got[4].State != nil {
		t.Errorf("bad: %+v", got[4])
	}
	for i, m := range got[:4] {
		if m.Err != nil || m.State.Source != "cluster" {
			t.Errorf("member %d: %+v", i, m)
		}
	}
}

// TestGroupIsLoadLiveClaim: for random fleets (overlapping selectors, orphans, ReplicaSets of
// other controllers, released ones, other namespaces, set-based selectors), every member's
// State is exactly what newState (LoadLive's claim) gives over every ReplicaSet: the label
// index only skips ReplicaSets that cannot match.
func TestGroupIsLoadLiveClaim(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 30 {
		ds, rss := randomFleet(rng, 12, 60)
		got := GroupReplicaSets(ds, rss, "cluster")
		for i, d := range ds {
			want, err := newState(d, rss, "cluster")
			if err != nil {
				t.Fatal(err)
			}
			g := got[i].State
			for _, l := range []struct {
				what      string
				want, got []*appsv1.ReplicaSet
			}{{"ReplicaSets", want.ReplicaSets, g.ReplicaSets}, {"Orphans", want.Orphans, g.Orphans}, {"Foreign", want.Foreign, g.Foreign}} {
				if d := cmp.Diff(names(l.want), names(l.got)); d != "" {
					t.Fatalf("round %d, %s/%s %s (-newState +GroupReplicaSets):\n%s", round, ds[i].Namespace, ds[i].Name, l.what, d)
				}
			}
		}
	}
}

func randomFleet(rng *rand.Rand, nd, nrs int) ([]*appsv1.Deployment, []*appsv1.ReplicaSet) {
	apps := []string{"a", "b", "c", "d"}
	var ds []*appsv1.Deployment
	for i := range nd {
		ns := []string{"default", "prod"}[rng.IntN(2)]
		name := fmt.Sprintf("d%d", i)
		b := testutil.Deployment(name).Namespace(ns).UID(testutil.UIDFor("Deployment", ns+name))
		app := apps[rng.IntN(len(apps))]
		switch rng.IntN(4) {
		case 0:
			b = b.Selector(&metav1.LabelSelector{MatchLabels: map[string]string{"app": app}})
		case 1:
			b = b.Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{app, apps[rng.IntN(len(apps))]}}}})
		case 2:
			b = b.Selector(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{app}}}})
		default:
			b = b.Selector(&metav1.LabelSelector{MatchLabels: map[string]string{"app": app, "tier": "x"}})
		}
		ds = append(ds, b.Build())
	}
	var rss []*appsv1.ReplicaSet
	for i := range nrs {
		owner := ds[rng.IntN(len(ds))]
		rs := testutil.ReplicaSet(fmt.Sprintf("rs%d", i), apps[rng.IntN(len(apps))]).Namespace(owner.Namespace).Created(rng.IntN(5)).Build()
		if rng.IntN(2) == 0 {
			rs.Labels["tier"] = "x"
		}
		switch rng.IntN(4) {
		case 0: // an orphan
		case 1:
			rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
		case 2:
			rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "x", UID: "uid-x", Controller: new(true)}}
		default:
			rs.Namespace = "elsewhere"
		}
		rss = append(rss, rs)
	}
	return ds, rss
}

// pagedAPI serves paginated LISTs of Deployments and ReplicaSets (namespaced or
// cluster-wide, with labelSelector, limit and continue) and records every request.
type pagedAPI struct {
	mu       sync.Mutex
	requests []string
	ds       []appsv1.Deployment
	rss      []appsv1.ReplicaSet
}

func (p *pagedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	p.mu.Unlock()
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/apis/apps/v1/"), "/")
	ns, resource := "", parts[len(parts)-1]
	if len(parts) == 3 {
		ns = parts[1]
	}
	q := r.URL.Query()
	sel, _ := labels.Parse(q.Get("labelSelector"))
	start, _ := strconv.Atoi(q.Get("continue"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	page := func(n int) (int, string) {
		end := n
		if limit > 0 && start+limit < n {
			end = start + limit
		}
		if end < n {
			return end, strconv.Itoa(end)
		}
		return end, ""
	}
	var body any
	switch resource {
	case "deployments":
		var m []appsv1.Deployment
		for _, d := range p.ds {
			if (ns == "" || d.Namespace == ns) && sel.Matches(labels.Set(d.Labels)) {
				m = append(m, d)
			}
		}
		end, cont := page(len(m))
		body = &appsv1.DeploymentList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"}, ListMeta: metav1.ListMeta{Continue: cont}, Items: m[start:end]}
	case "replicasets":
		var m []appsv1.ReplicaSet
		for _, rs := range p.rss {
			if (ns == "" || rs.Namespace == ns) && sel.Matches(labels.Set(rs.Labels)) {
				m = append(m, rs)
			}
		}
		end, cont := page(len(m))
		body = &appsv1.ReplicaSetList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSetList"}, ListMeta: metav1.ListMeta{Continue: cont}, Items: m[start:end]}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func pagedClient(t *testing.T, api *pagedAPI) kubernetes.Interface {
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	c, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadFleet(t *testing.T) {
	api := &pagedAPI{}
	for _, ns := range []string{"shop", "bank"} {
		for i := range 5 {
			d := testutil.Deployment(fmt.Sprintf("app%d", i)).Namespace(ns).UID(testutil.UIDFor("Deployment", ns+fmt.Sprint(i))).Revision(2).Build()
			if i%2 == 0 {
				d.Labels["tier"] = "front"
			}
			api.ds = append(api.ds, *d)
			api.rss = append(api.rss,
				*testutil.ReplicaSetFor(d).Image("nginx:1.16").Revision(1).Replicas(0).Created(1).Build(),
				*testutil.ReplicaSetFor(d).Revision(2).Created(2).Build())
		}
	}
	for _, tc := range []struct {
		name         string
		scope        Scope
		wantMembers  int
		wantRequests []string
	}{
		{
			name: "--all, pages of 4", scope: Scope{Namespace: "shop", ChunkSize: 4}, wantMembers: 5,
			wantRequests: []string{
				"GET /apis/apps/v1/namespaces/shop/deployments?limit=4",
				"GET /apis/apps/v1/namespaces/shop/deployments?continue=4&limit=4",
				"GET /apis/apps/v1/namespaces/shop/replicasets?limit=4",
				"GET /apis/apps/v1/namespaces/shop/replicasets?continue=4&limit=4",
				"GET /apis/apps/v1/namespaces/shop/replicasets?continue=8&limit=4",
			},
		},
		{
			name: "-l, one page", scope: Scope{Namespace: "bank", LabelSelector: "tier=front", ChunkSize: 500}, wantMembers: 3,
			wantRequests: []string{
				"GET /apis/apps/v1/namespaces/bank/deployments?labelSelector=tier%3Dfront&limit=500",
				"GET /apis/apps/v1/namespaces/bank/replicasets?limit=500",
			},
		},
		{
			name: "-A, pages of 15", scope: Scope{ChunkSize: 15}, wantMembers: 10,
			wantRequests: []string{
				"GET /apis/apps/v1/deployments?limit=15",
				"GET /apis/apps/v1/replicasets?limit=15",
				"GET /apis/apps/v1/replicasets?continue=15&limit=15",
			},
		},
		{
			name: "nothing selected: no ReplicaSet LIST", scope: Scope{Namespace: "shop", LabelSelector: "app=none", ChunkSize: 500},
			wantRequests: []string{"GET /apis/apps/v1/namespaces/shop/deployments?labelSelector=app%3Dnone&limit=500"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api.requests = nil
			ms, err := LoadFleet(context.Background(), pagedClient(t, api), tc.scope)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != tc.wantMembers {
				t.Fatalf("%d members, want %d", len(ms), tc.wantMembers)
			}
			for _, m := range ms {
				if m.Err != nil || len(m.State.ReplicaSets) != 2 || m.State.ReplicaSets[0].Namespace != m.Deployment.Namespace {
					t.Errorf("%s/%s: %+v", m.Deployment.Namespace, m.Deployment.Name, m)
				}
				for _, rs := range m.State.ReplicaSets {
					if !metav1.IsControlledBy(rs, m.Deployment) {
						t.Errorf("%s/%s got %s", m.Deployment.Namespace, m.Deployment.Name, rs.Name)
					}
				}
			}
			if d := cmp.Diff(tc.wantRequests, api.requests); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
		})
	}
}

func TestLoadFleetForbidden(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"deployments.apps is forbidden"}`))
	}))
	defer srv.Close()
	c, _ := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	_, err := LoadFleet(context.Background(), c, Scope{Namespace: "shop", ChunkSize: 500})
	if err == nil || !strings.Contains(err.Error(), "rollplan needs permission to list deployments (apps) in namespace \"shop\"") || !apierrors.IsForbidden(err) {
		t.Errorf("%v", err)
	}
	_, err = LoadFleet(context.Background(), c, Scope{ChunkSize: 500})
	if err == nil || !strings.HasPrefix(err.Error(), "list deployments.apps in all namespaces: forbidden: rollplan needs permission to list deployments (apps) cluster-wide for -A; check with `kubectl auth can-i list deployments.apps -A`") || !apierrors.IsForbidden(err) {
		t.Errorf("-A: %v", err)
	}
}

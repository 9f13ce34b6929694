package target

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// apiServer is a getter for resource.NewBuilder whose REST config points at a server that
// fails the test on any request, and whose own mapper and discovery fail: resolving names
// must use neither.
type apiServer struct{ host string }

func (a apiServer) ToRESTConfig() (*rest.Config, error) { return &rest.Config{Host: a.host}, nil }
func (apiServer) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return nil, errors.New("discovery asked")
}
func (apiServer) ToRESTMapper() (meta.RESTMapper, error) { return nil, errors.New("mapper asked") }

func noRequests(t *testing.T) apiServer {
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
	}))
	t.Cleanup(srv.Close)
	return apiServer{host: srv.URL}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		ns      string
		offline bool
		want    []Ref
		wantErr string
	}{
		{name: "NAME", args: []string{"web"}, ns: "shop", want: []Ref{{"shop", "web"}}},
		{name: "deploy/NAME", args: []string{"deploy/web"}, ns: "shop", want: []Ref{{"shop", "web"}}},
		{name: "deploy.v1.apps/NAME", args: []string{"deploy.v1.apps/web"}, ns: "shop", want: []Ref{{"shop", "web"}}},
		{name: "deployments.v1.apps/NAME", args: []string{"deployments.v1.apps/web"}, ns: "default", want: []Ref{{"default", "web"}}},
		{name: "TYPE NAME", args: []string{"Deployment", "web"}, ns: "shop", want: []Ref{{"shop", "web"}}},
		{name: "offline without -n", args: []string{"deploy/web"}, offline: true, want: []Ref{{"", "web"}}},
		{name: "offline with -n", args: []string{"web"}, ns: "shop", offline: true, want: []Ref{{"shop", "web"}}},
		{name: "wrong kind", args: []string{"rs/web-1"}, ns: "shop", wantErr: "rollplan works on Deployments; got replicasets"},
		{name: "wrong kind offline", args: []string{"daemonset/web"}, offline: true, wantErr: "rollplan works on Deployments; got daemonsets"},
		{name: "two names", args: []string{"deploy/a", "deploy/b"}, ns: "shop", wantErr: `one Deployment at a time: got "deploy/a" and "deploy/b"`},
		{name: "no name", ns: "shop", wantErr: "a Deployment is required: give deploy/NAME (or NAME)"},
		{name: "online without a namespace", args: []string{"web"}, wantErr: "namespace may not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Selection{Args: tc.args, Namespace: tc.ns}
			if !tc.offline {
				s.Builder = NewBuilder(noRequests(t))
			}
			got, err := s.Resolve(t.Context())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, error %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if err := s.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestValidateIsParseArgs(t *testing.T) {
	for _, args := range [][]string{nil, {"web"}, {"rs/x"}, {"deploy", "web"}, {"a", "b", "c"}} {
		_, want := ParseArgs(args)
		got := (&Selection{Args: args}).Validate()
		if (want == nil) != (got == nil) || (want != nil && want.Error() != got.Error()) {
			t.Errorf("%q: Validate %v, ParseArgs %v", args, got, want)
		}
	}
}

func TestRESTMapper(t *testing.T) {
	m := RESTMapper()
	for _, r := range []string{"deployments", "deployment"} {
		gvk, err := m.KindFor(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: r})
		if err != nil || gvk.Kind != "Deployment" {
			t.Errorf("%s: %v, %v", r, gvk, err)
		}
	}
	if _, err := m.KindFor(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}); !meta.IsNoMatchError(err) {
		t.Errorf("replicasets: %v, want no match", err)
	}
}

func TestCheckMapping(t *testing.T) {
	rs := &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"},
		GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	}
	if err := checkMapping(rs); err == nil || err.Error() != "rollplan works on Deployments; got replicasets.apps" {
		t.Errorf("replicasets: %v", err)
	}
	pods := &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
	}
	if err := checkMapping(pods); err == nil || err.Error() != "rollplan works on Deployments; got pods" {
		t.Errorf("pods: %v", err)
	}
	d, err := RESTMapper().RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMapping(d); err != nil {
		t.Errorf("deployments: %v", err)
	}
}

func TestRefString(t *testing.T) {
	if s := (Ref{Namespace: "shop", Name: "web"}).String(); s != "shop/web" {
		t.Error(s)
	}
	if s := (Ref{Name: "web"}).String(); s != "web" {
		t.Error(s)
	}
}

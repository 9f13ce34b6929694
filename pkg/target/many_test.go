package target

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/resource"
)

func TestParseNames(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    []string
		typed   bool
		wantErr string
	}{
		{name: "names", args: []string{"a", "b"}, want: []string{"a", "b"}},
		{name: "TYPE/NAME each", args: []string{"deploy/a", "deployments.v1.apps/b"}, want: []string{"a", "b"}},
		{name: "mixed", args: []string{"a", "deploy/b"}, want: []string{"a", "b"}},
		{name: "TYPE NAME NAME", args: []string{"deployment", "a", "b"}, want: []string{"a", "b"}, typed: true},
		{name: "TYPE alone", args: []string{"deploy"}, typed: true},
		{name: "repeated", args: []string{"a", "deploy/a", "b"}, want: []string{"a", "b"}},
		{name: "none", args: nil},
		{name: "TYPE TYPE/NAME", args: []string{"deploy", "deploy/a"}, wantErr: "give either TYPE NAME or TYPE/NAME, not both"},
		{name: "another kind", args: []string{"a", "rs/b"}, wantErr: "rollplan works on Deployments; got replicasets"},
		{name: "invalid name", args: []string{"a", "B"}, wantErr: `invalid Deployment name "B"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, typed, err := ParseNames(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || typed != tc.typed {
				t.Fatalf("typed %v, error %v; want typed %v", typed, err, tc.typed)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestValidateMany(t *testing.T) {
	fo := func(files []string, k string, r bool) *resource.FilenameOptions {
		return &resource.FilenameOptions{Filenames: files, Kustomize: k, Recursive: r}
	}
	for _, tc := range []struct {
		name    string
		s       Selection
		wantErr string
	}{
		{name: "one name", s: Selection{Args: []string{"web"}}},
		{name: "a Deployment named deploy", s: Selection{Args: []string{"deploy"}}},
		{name: "several names", s: Selection{Args: []string{"a", "b"}}},
		{name: "TYPE NAME NAME", s: Selection{Args: []string{"deploy", "a", "b"}}},
		{name: "-l", s: Selection{Selector: "app=web"}},
		{name: "TYPE -l", s: Selection{Args: []string{"deployments"}, Selector: "app=web"}},
		{name: "--all", s: Selection{All: true}},
		{name: "-A", s: Selection{AllNamespaces: true}},
		{name: "-A -l", s: Selection{AllNamespaces: true, Selector: "app"}},
		{name: "-f", s: Selection{Filenames: fo([]string{"x.yaml"}, "", false)}},
		{name: "-f -l", s: Selection{Filenames: fo([]string{"x.yaml"}, "", false), Selector: "a=b"}},
		{name: "nothing", s: Selection{}, wantErr: "a Deployment is required: give deploy/NAME (or NAME), several names, -l/--selector, --all or -A"},
		{name: "TYPE alone", s: Selection{Args: []string{"deploy", "deploy/a"}}, wantErr: "not both"},
		{name: "names and -l", s: Selection{Args: []string{"a", "b"}, Selector: "app=web"}, wantErr: "name cannot be provided when a selector is specified"},
		{name: "one name and --all", s: Selection{Args: []string{"web"}, All: true}, wantErr: "name cannot be provided when a selector is specified"},
		{name: "names and -A", s: Selection{Args: []string{"deploy/a"}, AllNamespaces: true}, wantErr: "a resource cannot be retrieved by name across all namespaces"},
		{name: "-l and --all", s: Selection{Selector: "a=b", All: true}, wantErr: "setting 'all' parameter but found a non empty selector"},
		{name: "bad selector", s: Selection{Selector: "a in (b"}, wantErr: `the provided selector "a in (b" is not valid`},
		{name: "negative chunk", s: Selection{All: true, ChunkSize: -1}, wantErr: "--chunk-size -1: give 0 or more"},
		{name: "-f and names", s: Selection{Args: []string{"a"}, Filenames: fo([]string{"x"}, "", false)}, wantErr: "you may not specify resource arguments as well"},
		{name: "-f and --all", s: Selection{All: true, Filenames: fo([]string{"x"}, "", false)}, wantErr: "do not go with -f/-k"},
		{name: "-f and -k", s: Selection{Filenames: fo([]string{"x"}, "dir", false)}, wantErr: "only one of -f or -k can be specified"},
		{name: "-k and -R", s: Selection{Filenames: fo(nil, "dir", true)}, wantErr: "the -k flag can't be used with -f or -R"},
		{name: "another kind among names", s: Selection{Args: []string{"a", "sts/b"}}, wantErr: "rollplan works on Deployments; got statefulsets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Many = true
			err := tc.s.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v; want %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestOne(t *testing.T) {
	for _, tc := range []struct {
		s    Selection
		want bool
	}{
		{Selection{Args: []string{"a", "b"}}, true}, // not Many: ParseArgs' error later
		{Selection{Many: true, Args: []string{"web"}}, true},
		{Selection{Many: true, Args: []string{"deploy/web"}}, true},
		{Selection{Many: true, Args: []string{"deployment", "web"}}, true},
		{Selection{Many: true, Args: []string{"deploy"}}, true},
		{Selection{Many: true, Args: []string{"a", "b"}}, false},
		{Selection{Many: true, Args: []string{"deploy", "a", "b"}}, false},
		{Selection{Many: true, Args: []string{"deploy", "deploy/a"}}, false},
		{Selection{Many: true, Selector: "app=web"}, false},
		{Selection{Many: true, Args: []string{"deploy"}, All: true}, false},
		{Selection{Many: true, AllNamespaces: true}, false},
		{Selection{Many: true, Filenames: &resource.FilenameOptions{Filenames: []string{"x"}}}, false},
	} {
		if got := tc.s.One(); got != tc.want {
			t.Errorf("%+v: One() = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestResolveManyNames(t *testing.T) {
	s := &Selection{Many: true, Args: []string{"a", "deploy/b", "a"}, Namespace: "shop", Builder: NewBuilder(noRequests(t))}
	got, err := s.Resolve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Ref{{"shop", "a"}, {"shop", "b"}}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	s.Builder = nil
	if got, err = s.Resolve(t.Context()); err != nil || len(got) != 2 {
		t.Errorf("offline: %v, %v", got, err)
	}
	s = &Selection{Many: true, Args: []string{"a", "rs/b"}, Namespace: "shop", Builder: NewBuilder(noRequests(t))}
	if _, err := s.Resolve(t.Context()); err == nil || !strings.Contains(err.Error(), "got replicasets") {
		t.Errorf("rs/b: %v", err)
	}
}

// pagedServer serves LISTs of Deployments in pages of the request's limit and records every
// request's path and query.
type pagedServer struct {
	mu       sync.Mutex
	requests []string
	items    []appsv1.Deployment
}

func (p *pagedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, r.URL.Path+"?"+r.URL.RawQuery)
	q := r.URL.Query()
	ns := ""
	if parts := strings.Split(r.URL.Path, "/"); len(parts) > 5 && parts[4] == "namespaces" {
		ns = parts[5]
	}
	sel, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var match []appsv1.Deployment
	for _, d := range p.items {
		if (ns == "" || d.Namespace == ns) && sel.Matches(labels.Set(d.Labels)) {
			match = append(match, d)
		}
	}
	start, _ := strconv.Atoi(q.Get("continue"))
	end := len(match)
	if l, _ := strconv.Atoi(q.Get("limit")); l > 0 && start+l < end {
		end = start + l
	}
	list := appsv1.DeploymentList{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"}, Items: match[start:end]}
	if end < len(match) {
		list.Continue = strconv.Itoa(end)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&list)
}

func fleet() []appsv1.Deployment {
	var out []appsv1.Deployment
	for _, ns := range []string{"shop", "bank"} {
		for i := range 5 {
			app := "web"
			if i%2 == 1 {
				app = "api"
			}
			out = append(out, appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{
				Namespace: ns, Name: fmt.Sprintf("%s-%d", app, i), Labels: map[string]string{"app": app},
			}})
		}
	}
	return out
}

func TestListBulk(t *testing.T) {
	for _, tc := range []struct {
		name         string
		s            Selection
		want         int
		wantRequests []string
	}{
		{
			name: "--all pages of 2", s: Selection{All: true, ChunkSize: 2}, want: 5,
			wantRequests: []string{
				"/apis/apps/v1/namespaces/shop/deployments?limit=2",
				"/apis/apps/v1/namespaces/shop/deployments?continue=2&limit=2",
				"/apis/apps/v1/namespaces/shop/deployments?continue=4&limit=2",
			},
		},
		{
			name: "-l in one page", s: Selection{Selector: "app=web", ChunkSize: 500}, want: 3,
			wantRequests: []string{"/apis/apps/v1/namespaces/shop/deployments?labelSelector=app%3Dweb&limit=500"},
		},
		{
			name: "-A -l", s: Selection{AllNamespaces: true, Selector: "app=api", ChunkSize: 3}, want: 4,
			wantRequests: []string{
				"/apis/apps/v1/deployments?labelSelector=app%3Dapi&limit=3",
				"/apis/apps/v1/deployments?continue=3&labelSelector=app%3Dapi&limit=3",
			},
		},
		{
			name: "-A, no chunking", s: Selection{AllNamespaces: true}, want: 10,
			wantRequests: []string{"/apis/apps/v1/deployments?"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &pagedServer{items: fleet()}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			tc.s.Many, tc.s.Namespace = true, "shop"
			tc.s.Builder = NewBuilder(apiServer{host: hs.URL})
			ds, err := tc.s.List(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != tc.want {
				t.Errorf("%d Deployments, want %d", len(ds), tc.want)
			}
			for _, d := range ds {
				if !tc.s.Scope().Matches(d) {
					t.Errorf("%s/%s is not in the scope %+v", d.Namespace, d.Name, tc.s.Scope())
				}
			}
			if d := cmp.Diff(tc.wantRequests, srv.requests); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
			refs, err := tc.s.Resolve(t.Context())
			if err != nil || len(refs) != tc.want {
				t.Errorf("Resolve: %d refs, %v", len(refs), err)
			}
		})
	}
}

func TestListNeedsBulkAndCluster(t *testing.T) {
	if _, err := (&Selection{Many: true, Args: []string{"a"}}).List(t.Context()); err == nil {
		t.Error("List of names: no error")
	}
	if _, err := (&Selection{Many: true, All: true}).Resolve(t.Context()); err == nil || !strings.Contains(err.Error(), "need a cluster") {
		t.Errorf("offline --all: %v", err)
	}
	if _, err := (&Selection{Many: true, Filenames: &resource.FilenameOptions{Filenames: []string{"x"}}}).Resolve(t.Context()); err == nil {
		t.Error("Resolve of -f: no error")
	}
}

func TestScope(t *testing.T) {
	s := &Selection{Many: true, Namespace: "shop", Selector: "app=web", ChunkSize: 7}
	if d := cmp.Diff(Scope{Namespace: "shop", LabelSelector: "app=web", ChunkSize: 7}, s.Scope()); d != "" {
		t.Error(d)
	}
	if o := s.Scope().ListOptions(); o.Limit != 7 || o.LabelSelector != "app=web" {
		t.Errorf("%+v", o)
	}
	s.AllNamespaces = true
	if ns := s.Scope().Namespace; ns != "" {
		t.Errorf("-A: namespace %q", ns)
	}
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "bank", Labels: map[string]string{"app": "web"}}}
	if !s.Scope().Matches(web) {
		t.Error("-A -l app=web does not match bank/web")
	}
	s.AllNamespaces = false
	if s.Scope().Matches(web) {
		t.Error("namespace shop matches bank/web")
	}
	if (Scope{LabelSelector: "a in (b"}).Matches(web) {
		t.Error("an invalid selector matches")
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		name        string
		c           Choices
		want, wantN []string
	}{
		{name: "one", c: Choices{}, wantN: []string{"selector", "all", "all-namespaces", "chunk-size", "filename", "kustomize", "recursive"}},
		{name: "many", c: Choices{Many: true}, want: []string{"selector", "all", "chunk-size"}, wantN: []string{"all-namespaces", "filename"}},
		{name: "read-only", c: Choices{Many: true, AllNamespaces: true}, want: []string{"selector", "all", "all-namespaces", "chunk-size"}},
		{name: "manifests", c: Choices{Many: true, Filenames: true}, want: []string{"filename", "kustomize", "recursive"}, wantN: []string{"all-namespaces"}},
		{name: "one only", c: Choices{OneOnly: "one per run"}, want: []string{"selector", "all"}, wantN: []string{"chunk-size", "all-namespaces"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := &cobra.Command{Use: "x"}
			f := NewFlags(tc.c)
			f.AddFlags(cmd)
			for _, n := range tc.want {
				if cmd.Flags().Lookup(n) == nil {
					t.Errorf("--%s not registered", n)
				}
			}
			for _, n := range tc.wantN {
				if cmd.Flags().Lookup(n) != nil {
					t.Errorf("--%s registered", n)
				}
			}
		})
	}
	cmd := &cobra.Command{Use: "x"}
	f := NewFlags(Choices{Many: true, AllNamespaces: true})
	f.AddFlags(cmd)
	if err := cmd.ParseFlags([]string{"-l", "app=web", "-A", "--chunk-size", "50"}); err != nil {
		t.Fatal(err)
	}
	s, err := f.Selection(nil, "shop", false, nil)
	if err != nil || !s.Bulk() || s.Scope() != (Scope{LabelSelector: "app=web", ChunkSize: 50}) {
		t.Errorf("%+v, %v", s, err)
	}
	if NewFlags(Choices{}).ChunkSize != 500 {
		t.Error("--chunk-size default is not kubectl's 500")
	}
}

func TestFlagsOneOnly(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		f       Flags
		wantErr string
	}{
		{args: []string{"web"}},
		{args: []string{"deploy", "web"}},
		{f: Flags{Selector: "app=web"}, wantErr: "-l app=web selects Deployments: drive works on one Deployment per run; run it once per Deployment (deploy/NAME)"},
		{f: Flags{All: true}, wantErr: "--all selects every Deployment in the namespace: drive works on one Deployment per run"},
		{args: []string{"a", "b"}, wantErr: "2 Deployments given ([a b]): drive works on one Deployment per run"},
	} {
		tc.f.Choices = Choices{OneOnly: "drive works on one Deployment per run"}
		_, err := tc.f.Selection(tc.args, "shop", false, nil)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)) {
			t.Errorf("%v %+v: %v; want %q", tc.args, tc.f, err, tc.wantErr)
		}
	}
}

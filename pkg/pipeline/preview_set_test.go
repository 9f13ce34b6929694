package pipeline

import (
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/resource"

	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

const (
	testDeploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\nspec:\n  selector: {matchLabels: {app: %s}}\n  template:\n    metadata: {labels: {app: %s}}\n    spec: {containers: [{name: c, image: nginx}]}\n"
	testCM     = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v}\n"
	testSts    = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: c, image: nginx}]}\n"
	testSvc    = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n"
)

func deployDoc(name string) string { return strings.ReplaceAll(testDeploy, "%s", name) }

// TestSetReadRoutes: how preview -f routes a set by what it holds (read from stdin, "-").
func TestSetReadRoutes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		docs    []string
		named   string
		offline bool
		want    SetRoute
		wantErr string
	}{
		{name: "one Deployment", docs: []string{deployDoc("web")}, want: SetPickOne},
		{name: "two Deployments", docs: []string{deployDoc("web"), deployDoc("api")}, want: SetPlanAll},
		{name: "two, one named", docs: []string{deployDoc("web"), deployDoc("api")}, named: "api", want: SetPickOne},
		{name: "ConfigMap only", docs: []string{testCM}, want: SetConfigOnly},
		{name: "Deployment and ConfigMap", docs: []string{deployDoc("web"), testCM}, want: SetPlanAll},
		{name: "Deployment and ConfigMap offline", docs: []string{deployDoc("web"), testCM}, offline: true, want: SetPickOne},
		{name: "StatefulSet", docs: []string{deployDoc("web"), testSts}, want: SetKinds},
		{name: "StatefulSet, Deployment named", docs: []string{deployDoc("web"), testSts}, named: "web", want: SetPickOne},
		{name: "no Deployment", docs: []string{testSvc}, wantErr: "Service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := SetRead{
				Filenames: resource.FilenameOptions{Filenames: []string{"-"}},
				Namespace: "shop", Ref: target.Ref{Namespace: "shop", Name: tc.named},
				In: strings.NewReader(strings.Join(tc.docs, "---\n")), Offline: tc.offline,
			}
			_, got, err := r.Read()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("route %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

// TestSetReadPick: the named Deployment, the set's only one without a name, and an unknown
// name refused with the files named.
func TestSetReadPick(t *testing.T) {
	read := func(name string, docs ...string) (SetRead, *manifest.Set) {
		r := SetRead{Filenames: resource.FilenameOptions{Filenames: []string{"-"}}, Ref: target.Ref{Namespace: "shop", Name: name}, In: strings.NewReader(strings.Join(docs, "---\n"))}
		set, _, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		return r, set
	}
	r, set := read("api", deployDoc("web"), deployDoc("api"))
	ref, obj, err := r.Pick(set)
	if err != nil || ref.Name != "api" || obj.GetName() != "api" {
		t.Fatalf("Pick = %v, %v, %v; want api", ref, obj, err)
	}
	r, set = read("", deployDoc("web"))
	if ref, _, err = r.Pick(set); err != nil || ref.Name != "web" {
		t.Fatalf("Pick without a name = %v, %v; want web", ref, err)
	}
	r, set = read("nope", deployDoc("web"))
	if _, _, err = r.Pick(set); err == nil || !strings.HasPrefix(err.Error(), "-: ") || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("Pick of an unknown name: %v; want the files and the name", err)
	}
}

// TestSetNamespaces: each namespace once, in the set's order.
func TestSetNamespaces(t *testing.T) {
	docs := []string{deployDoc("a"), strings.Replace(deployDoc("b"), "{name: b}", "{name: b, namespace: other}", 1), deployDoc("c")}
	r := SetRead{Filenames: resource.FilenameOptions{Filenames: []string{"-"}}, Namespace: "shop", In: strings.NewReader(strings.Join(docs, "---\n"))}
	set, _, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(SetNamespaces(set), ","); got != "shop,other" {
		t.Fatalf("SetNamespaces = %s, want shop,other", got)
	}
}

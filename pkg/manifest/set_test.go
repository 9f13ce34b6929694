package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/cli-runtime/pkg/resource"
)

func deployYAML(name, namespace, image string) string {
	ns := ""
	if namespace != "" {
		ns = "\n  namespace: " + namespace
	}
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + ns + `
spec:
  replicas: 3
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec:
      containers: [{name: app, image: "` + image + `"}]
`
}

const configMapYAML = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
`

const serviceYAML = `apiVersion: v1
kind: Service
metadata: {name: web}
spec: {ports: [{port: 80}]}
`

// writeFiles writes name -> content under a fresh directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// summary is what a test compares: "ns/name (source)" of each Deployment, the kinds
// counted, and the errors.
type summary struct {
	Deployments []string
	Kinds       []KindCount
	Errors      []string
}

func summarize(dir string, s *Set) summary {
	var out summary
	for _, d := range s.Deployments {
		out.Deployments = append(out.Deployments, d.Ref().String()+" ("+strings.TrimPrefix(d.Source, dir+"/")+")")
	}
	out.Kinds = s.OtherKinds()
	for _, e := range s.Errors {
		out.Errors = append(out.Errors, strings.ReplaceAll(e.Error(), dir+"/", ""))
	}
	return out
}

func TestRead(t *testing.T) {
	twoDocs := deployYAML("web", "", "nginx:1.27") + "---\n" + configMapYAML + "---\n" + deployYAML("api", "", "api:2")
	list := `apiVersion: v1
kind: List
items:
- ` + strings.ReplaceAll(strings.TrimSpace(deployYAML("worker", "", "w:1")), "\n", "\n  ") + `
- ` + strings.ReplaceAll(strings.TrimSpace(serviceYAML), "\n", "\n  ") + "\n"
	for _, tc := range []struct {
		name      string
		files     map[string]string
		filenames func(dir string) resource.FilenameOptions
		stdin     string
		ns        string
		enforce   bool
		want      summary
	}{{
		name:  "one file, several documents",
		files: map[string]string{"app.yaml": twoDocs},
		filenames: func(dir string) resource.FilenameOptions {
			return resource.FilenameOptions{Filenames: []string{dir + "/app.yaml"}}
		},
		want: summary{
			Deployments: []string{"shop/web (app.yaml)", "shop/api (app.yaml)"},
			Kinds:       []KindCount{{"ConfigMap", 1}},
		},
	}, {
		name: "a directory: its files in order, a List flattened, a subdirectory skipped without -R",
		files: map[string]string{
			"a.yaml": deployYAML("web", "", "nginx:1"), "b.yaml": list, "c.json": `{"apiVersion":"v1","kind":"Service","metadata":{"name":"x"}}`,
			"notes.txt": "not a manifest", "sub/d.yaml": deployYAML("deep", "", "d:1"),
		},
		filenames: func(dir string) resource.FilenameOptions { return resource.FilenameOptions{Filenames: []string{dir}} },
		want: summary{
			Deployments: []string{"shop/web (a.yaml)", "shop/worker (b.yaml)"},
			Kinds:       []KindCount{{"Service", 2}},
		},
	}, {
		name: "-R walks subdirectories",
		files: map[string]string{
			"a.yaml": deployYAML("web", "", "nginx:1"), "sub/d.yaml": deployYAML("deep", "other", "d:1"), "sub/more/cm.yml": configMapYAML,
		},
		filenames: func(dir string) resource.FilenameOptions {
			return resource.FilenameOptions{Filenames: []string{dir}, Recursive: true}
		},
		want: summary{
			Deployments: []string{"shop/web (a.yaml)", "other/deep (sub/d.yaml)"},
			Kinds:       []KindCount{{"ConfigMap", 1}},
		},
	}, {
		name:  "standard input with a file",
		files: map[string]string{"svc.yaml": serviceYAML},
		filenames: func(dir string) resource.FilenameOptions {
			return resource.FilenameOptions{Filenames: []string{"-", dir + "/svc.yaml"}}
		},
		stdin: twoDocs,
		want: summary{
			Deployments: []string{"shop/web (STDIN)", "shop/api (STDIN)"},
			Kinds:       []KindCount{{"ConfigMap", 1}, {"Service", 1}},
		},
	}, {
		name: "a broken file among good ones: named, the others read",
		files: map[string]string{
			"a.yaml": deployYAML("web", "", "nginx:1"), "b.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: [broken\n",
			"c.yaml": deployYAML("api", "", "api:1"), "d.yaml": "metadata: {name: nokind}\n",
			"e.yaml": strings.Replace(deployYAML("typo", "", "t:1"), "replicas: 3", "replica: 3", 1),
			"f.yaml": strings.Replace(deployYAML("old", "", "o:1"), "apps/v1", "apps/v1beta2", 1),
			"g.yaml": deployYAML("web", "", "nginx:2"),
		},
		filenames: func(dir string) resource.FilenameOptions { return resource.FilenameOptions{Filenames: []string{dir}} },
		want: summary{
			Deployments: []string{"shop/web (a.yaml)", "shop/api (c.yaml)"},
			// The builder reports what it could not decode after the visits.
			Errors: []string{
				`e.yaml: manifest: deployment "typo": strict decoding error: unknown field "spec.replica": fix the manifest (the API server rejects unknown fields)`,
				`f.yaml: Deployment "old" has apiVersion apps/v1beta2: use apps/v1`,
				`g.yaml: Deployment shop/web is given twice (also in a.yaml): kubectl would apply both, the last one winning; keep one`,
				`error parsing b.yaml: error converting YAML to JSON: yaml: line 4: did not find expected ',' or ']'`,
				`unable to decode "d.yaml": object has no kind: every object needs apiVersion and kind`,
			},
		},
	}, {
		name:  "-n given: an object of another namespace is refused",
		files: map[string]string{"a.yaml": deployYAML("web", "", "n:1") + "---\n" + deployYAML("api", "other", "a:1")},
		filenames: func(dir string) resource.FilenameOptions {
			return resource.FilenameOptions{Filenames: []string{dir + "/a.yaml"}}
		},
		enforce: true,
		want: summary{
			Deployments: []string{"shop/web (a.yaml)"},
			Errors:      []string{`a.yaml: the namespace from the provided object "other" does not match the namespace "shop". You must pass '--namespace=other' to perform this operation.`},
		},
	}, {
		name: "a kustomization",
		files: map[string]string{
			"kustomization.yaml": "namespace: prod\nresources: [web.yaml, cm.yaml]\nimages: [{name: nginx, newTag: '1.28'}]\n",
			"web.yaml":           deployYAML("web", "", "nginx"), "cm.yaml": configMapYAML,
		},
		filenames: func(dir string) resource.FilenameOptions { return resource.FilenameOptions{Kustomize: dir} },
		want: summary{
			Deployments: []string{"prod/web (.)"},
			Kinds:       []KindCount{{"ConfigMap", 1}},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			ns := "shop"
			s, err := Read(Options{Filenames: tc.filenames(dir), Namespace: ns, EnforceNamespace: tc.enforce, In: strings.NewReader(tc.stdin)})
			if err != nil {
				t.Fatal(err)
			}
			got := summarize(dir, s)
			got.Deployments = trimDir(got.Deployments, dir)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func trimDir(ss []string, dir string) []string {
	for i, s := range ss {
		ss[i] = strings.ReplaceAll(s, "("+dir+")", "(.)")
	}
	return ss
}

package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// LoadFile reads a state file and returns the State of the Deployment name in namespace.
// path "-" reads standard input. See LoadReader for the formats and the selection rules.
func LoadFile(path, namespace, name string) (*State, error) {
	if path == "-" {
		return LoadReader(os.Stdin, "<stdin>", namespace, name)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read state file: %w", err)
	}
	defer f.Close()
	return LoadReader(f, path, namespace, name)
}

// LoadReader reads a state from r; source names it in errors and in State.Source.
//
// Accepted: the output of `kubectl get deploy,rs -o yaml` or `-o json` (a v1 List), a
// DeploymentList or ReplicaSetList, a multi-document YAML stream or a JSON stream of apps/v1
// Deployments and ReplicaSets, or a single Deployment. The kinds the feasibility checks read
// (v1 ResourceQuota, LimitRange, Node, Pod; policy/v1 PodDisruptionBudget; autoscaling/v2
// HorizontalPodAutoscaler, as `kubectl get deploy,rs,quota,limitrange,pdb,hpa,nodes,pods -o
// yaml` prints them) are kept in State.CheckObjects; objects of other kinds (for example the
// Services of `kubectl get all -o yaml`) are skipped. Objects are decoded with the
// client-go scheme's universal deserializer, without defaulting: the file is expected to hold
// what the API server returned.
//
// The Deployment is picked by name, and by namespace when namespace is not empty (an object
// without metadata.namespace matches any). With name empty, the file must hold exactly one
// Deployment (in namespace, if given). The ReplicaSets are then selected as the controller
// would (see the package doc).
//
// Errors are one line and start with source: a YAML or JSON syntax error gives the line in
// the file and the document index; no such Deployment lists the ones the file holds; a target
// name held only by another kind says which kind; a Deployment of another apiVersion than
// apps/v1 is refused, and so is a Deployment or ReplicaSet the API server would not have
// stored: a negative spec.replicas, an invalid metadata.name or metadata.namespace.
func LoadReader(r io.Reader, source, namespace, name string) (*State, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", source, err)
	}
	objs, err := decodeObjects(data, source)
	if err != nil {
		return nil, err
	}
	d, err := pickDeployment(objs, source, namespace, name)
	if err != nil {
		return nil, err
	}
	var rss []*appsv1.ReplicaSet
	for _, o := range objs {
		if o.rs != nil {
			rss = append(rss, o.rs)
		}
	}
	s, err := newState(d, rss, source)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	s.CheckObjects = checkObjectsOf(objs, d.Namespace, source)
	return s, nil
}

// object is one decoded item of a state file: a Deployment, a ReplicaSet, or (only kind,
// name and namespace kept) anything else.
type object struct {
	kind, apiVersion, namespace, name string
	d                                 *appsv1.Deployment
	rs                                *appsv1.ReplicaSet
	// check is an object the feasibility checks read (checkKinds), decoded; checkErr says
	// why one of those kinds could not be decoded.
	check    runtime.Object
	checkErr error
	where    string // "document 2 (line 14)" or "line 3"
}

// document is one YAML document or JSON value of the input, with where it starts.
type document struct {
	data  []byte
	index int // 1-based
	line  int // 1-based line of the file where the document starts
	json  bool
}

func (d document) where() string {
	return fmt.Sprintf("document %d (line %d)", d.index, d.line)
}

// decodeObjects splits data into documents and decodes every object in them.
func decodeObjects(data []byte, source string) ([]object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s is empty: expected the output of `kubectl get deploy,rs -o yaml` (or -o json)", source)
	}
	var docs []document
	var err error
	if isJSON(data) {
		docs, err = splitJSON(data, source)
	} else {
		docs = splitYAML(data)
	}
	if err != nil {
		return nil, err
	}
	var objs []object
	for _, doc := range docs {
		js := doc.data
		if !doc.json {
			js, err = yaml.YAMLToJSON(doc.data)
			if err != nil {
				return nil, yamlError(source, doc, err)
			}
			if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
				continue // only comments or blank lines
			}
		}
		got, err := decodeItem(js, "", "", source, doc.where())
		if err != nil {
			return nil, err
		}
		objs = append(objs, got...)
	}
	return objs, nil
}

// decodeItem decodes one JSON object, recursing into lists. Items of a typed list
// (DeploymentList) may omit apiVersion and kind: they inherit the list's.
func decodeItem(js []byte, defaultAPIVersion, defaultKind, source, where string) ([]object, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(js, &head); err != nil {
		return nil, fmt.Errorf("%s: %s: not a Kubernetes object: %v", source, where, err)
	}
	typed := head.APIVersion != "" && head.Kind != ""
	if head.APIVersion == "" {
		head.APIVersion = defaultAPIVersion
	}
	if head.Kind == "" {
		head.Kind = defaultKind
	}
	if head.Kind == "" {
		return nil, fmt.Errorf("%s: %s: object has no kind: expected apps/v1 Deployments and ReplicaSets", source, where)
	}
	if strings.HasSuffix(head.Kind, "List") {
		itemKind := strings.TrimSuffix(head.Kind, "List")
		var out []object
		for i, item := range head.Items {
			got, err := decodeItem(item, head.APIVersion, itemKind, source, fmt.Sprintf("%s, item %d", where, i+1))
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
		return out, nil
	}
	o := object{kind: head.Kind, apiVersion: head.APIVersion, name: head.Metadata.Name, namespace: head.Metadata.Namespace, where: where}
	if head.Kind != "Deployment" && head.Kind != "ReplicaSet" {
		if checkKinds[head.Kind] == head.APIVersion {
			if !typed {
				js = withTypeMeta(js, head.APIVersion, head.Kind)
			}
			o.check, o.checkErr = runtime.Decode(scheme.Codecs.UniversalDeserializer(), js)
		}
		return []object{o}, nil
	}
	if head.APIVersion != appsv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("%s: %s: %s %q has apiVersion %q: rollplan reads apps/v1 (what `kubectl get -o yaml` prints)",
			source, where, head.Kind, head.Metadata.Name, head.APIVersion)
	}
	if err := checkMeta(head.Kind, head.Metadata.Name, head.Metadata.Namespace); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", source, where, err)
	}
	if !typed {
		js = withTypeMeta(js, head.APIVersion, head.Kind)
	}
	obj, err := runtime.Decode(scheme.Codecs.UniversalDeserializer(), js)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %s %q: %v", source, where, head.Kind, head.Metadata.Name, err)
	}
	var replicas *int32
	switch t := obj.(type) {
	case *appsv1.Deployment:
		o.d, replicas = t, t.Spec.Replicas
	case *appsv1.ReplicaSet:
		o.rs, replicas = t, t.Spec.Replicas
	default:
		return nil, fmt.Errorf("%s: %s: decoded %T for %s %q", source, where, obj, head.Kind, head.Metadata.Name)
	}
	if replicas != nil && *replicas < 0 {
		return nil, fmt.Errorf("%s: %s: %s %q has spec.replicas %d: the API server stores 0 or more; fix the file (it is not what `kubectl get -o yaml` printed)",
			source, where, head.Kind, head.Metadata.Name, *replicas)
	}
	return []object{o}, nil
}

// checkMeta refuses a Deployment or ReplicaSet whose metadata.name or metadata.namespace the
// API server would not store (mirrors ValidateObjectMeta's name and namespace checks,
// k8s.io/apimachinery/pkg/api/validation, v0.36.3). An empty name or namespace passes: the
// selection rules treat them as wildcards. Names are quoted in the error, so it stays one line.
func checkMeta(kind, name, namespace string) error {
	if name != "" {
		if msgs := apivalidation.NameIsDNSSubdomain(name, false); len(msgs) > 0 {
			return fmt.Errorf("%s %q: metadata.name is invalid: %s; fix the file", kind, name, strings.Join(msgs, "; "))
		}
	}
	if namespace != "" {
		if msgs := apivalidation.ValidateNamespaceName(namespace, false); len(msgs) > 0 {
			return fmt.Errorf("%s %q: metadata.namespace %q is invalid: %s; fix the file", kind, name, namespace, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// withTypeMeta adds apiVersion and kind to a JSON object that lacks them (an item of a typed
// list).
func withTypeMeta(js []byte, apiVersion, kind string) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		return js
	}
	m["apiVersion"], _ = json.Marshal(apiVersion)
	m["kind"], _ = json.Marshal(kind)
	out, err := json.Marshal(m)
	if err != nil {
		return js
	}
	return out
}

// pickDeployment chooses the target Deployment among objs.
func pickDeployment(objs []object, source, namespace, name string) (*appsv1.Deployment, error) {
	inNamespace := func(o object) bool {
		return namespace == "" || o.namespace == "" || o.namespace == namespace
	}
	var candidates, all []object
	for _, o := range objs {
		if o.d == nil {
			continue
		}
		all = append(all, o)
		if inNamespace(o) && (name == "" || o.name == name) {
			candidates = append(candidates, o)
		}
	}
	switch {
	case len(candidates) == 1:
		return candidates[0].d, nil
	case len(candidates) > 1 && name != "":
		return nil, fmt.Errorf("%s holds Deployment %q in several namespaces (%s): pass -n/--namespace",
			source, name, strings.Join(namespacesOf(candidates), ", "))
	case len(candidates) > 1:
		return nil, fmt.Errorf("%s holds %d Deployments (%s): name the one to plan, for example deploy/%s",
			source, len(candidates), strings.Join(namesOf(candidates), ", "), candidates[0].name)
	}
	if name == "" {
		if len(all) == 0 {
			return nil, fmt.Errorf("%s holds no apps/v1 Deployment: expected the output of `kubectl get deploy,rs -o yaml`", source)
		}
		return nil, fmt.Errorf("%s holds no Deployment in namespace %q (it holds %s)", source, namespace, strings.Join(qualifiedNamesOf(all), ", "))
	}
	for _, o := range objs {
		if o.d == nil && o.name == name && inNamespace(o) {
			return nil, fmt.Errorf("%s: %q is a %s (%s), not a Deployment: rollplan works on Deployments", source, name, o.kind, o.where)
		}
	}
	where := ""
	if namespace != "" {
		where = fmt.Sprintf(" in namespace %q", namespace)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("deployments.apps %q not found%s in %s: the file holds no Deployment", name, where, source)
	}
	return nil, fmt.Errorf("deployments.apps %q not found%s in %s: it holds %s", name, where, source, strings.Join(qualifiedNamesOf(all), ", "))
}

func namesOf(objs []object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func namespacesOf(objs []object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func qualifiedNamesOf(objs []object) []string {
	var out []string
	for _, o := range objs {
		if o.namespace == "" {
			out = append(out, o.name)
		} else {
			out = append(out, o.namespace+"/"+o.name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// isJSON reports whether data starts (after whitespace) with '{' or '['.
func isJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// splitJSON splits a stream of JSON values; a top-level array is flattened into its elements.
// A syntax error is reported with its line in the file.
func splitJSON(data []byte, source string) ([]document, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []document
	for i := 1; ; i++ {
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			offset := start
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				offset = syn.Offset
			}
			return nil, fmt.Errorf("%s:%d: document %d: invalid JSON: %v", source, lineAt(data, offset), i, err)
		}
		line := lineAt(data, start) + leadingNewlines(data[start:])
		if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '[' {
			var items []json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("%s:%d: document %d: invalid JSON: %v", source, line, i, err)
			}
			for _, item := range items {
				docs = append(docs, document{data: item, index: i, line: line, json: true})
			}
			continue
		}
		docs = append(docs, document{data: raw, index: i, line: line, json: true})
	}
}

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// leadingNewlines counts the newlines in the whitespace that starts b.
func leadingNewlines(b []byte) int {
	ws := b[:len(b)-len(bytes.TrimLeft(b, " \t\r\n"))]
	return bytes.Count(ws, []byte("\n"))
}

// splitYAML splits a YAML stream at document separators: a line that starts with "---"
// followed by nothing but blanks or a comment, as k8s.io/apimachinery's YAMLReader does.
func splitYAML(data []byte) []document {
	var docs []document
	lines := bytes.SplitAfter(data, []byte("\n"))
	cur := document{index: 1, line: 1}
	var buf bytes.Buffer
	flush := func(nextLine int) {
		if len(bytes.TrimSpace(buf.Bytes())) > 0 {
			cur.data = bytes.Clone(buf.Bytes())
			docs = append(docs, cur)
			cur = document{index: cur.index + 1}
		}
		buf.Reset()
		cur.line = nextLine
	}
	for i, l := range lines {
		if isSeparator(l) {
			flush(i + 2)
			continue
		}
		buf.Write(l)
	}
	flush(len(lines) + 1)
	return docs
}

func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := strings.TrimSpace(string(line[3:]))
	return rest == "" || strings.HasPrefix(rest, "#")
}

var yamlLineRE = regexp.MustCompile(`(?:error converting YAML to JSON: )?yaml: line (\d+): (.*)`)

// yamlError reports a YAML syntax error with its line in the file.
func yamlError(source string, doc document, err error) error {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return fmt.Errorf("%s:%d: document %d: invalid YAML: %s", source, doc.line+n-1, doc.index, m[2])
	}
	return fmt.Errorf("%s: %s: invalid YAML: %v", source, doc.where(), err)
}

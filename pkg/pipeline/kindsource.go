package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// KindSelection is what preview selects of StatefulSets and DaemonSets: the objects named
// (Refs, each with its kind and namespace), or, when Bulk (-l, --all, -A), every object of
// Kind in Namespace ("" for all) whose labels match Selector.
type KindSelection struct {
	Refs      []target.KindRef
	Bulk      bool
	Kind      target.Kind
	Namespace string
	Selector  string
}

// KindMember is one selected StatefulSet or DaemonSet of one Source: its State and, for a
// DaemonSet, the Source's nodes; or Err saying why it has none (not found).
type KindMember struct {
	Source string
	Ref    target.KindRef
	State  *live.State
	Nodes  []*corev1.Node
	Err    error
}

// KindSource is a Source that also holds StatefulSets and DaemonSets (Live and KindFile).
type KindSource interface {
	Name() string
	Live() bool
	Client() (kubernetes.Interface, error)
	SelectKinds(ctx context.Context, sel KindSelection) ([]KindMember, error)
	// Nodes returns the Source's nodes (for a DaemonSet the Source does not hold yet).
	Nodes(ctx context.Context) ([]*corev1.Node, error)
}

// SelectKinds reads sel from the cluster: Bulk, one LIST of the kind (live.List), then each
// object as named: a GET and a LIST of its revisions and pods (live.Load); a DaemonSet's
// nodes, one LIST shared by the selection. Errors: the client's, the bulk LIST's, the nodes'.
func (l *Live) SelectKinds(ctx context.Context, sel KindSelection) ([]KindMember, error) {
	cs, err := l.Client()
	if err != nil {
		return nil, err
	}
	refs := sel.Refs
	if sel.Bulk {
		if refs, err = live.List(ctx, cs, sel.Kind, sel.Namespace, sel.Selector); err != nil {
			return nil, err
		}
	}
	var nodes []*corev1.Node
	out := make([]KindMember, 0, len(refs))
	for _, ref := range refs {
		st, err := live.Load(ctx, cs, ref)
		m := KindMember{Source: l.Context, Ref: ref, State: st, Err: err}
		if err == nil && ref.Kind == target.KindDaemonSet {
			if nodes == nil {
				if nodes, err = live.Nodes(ctx, cs, l.retry()); err != nil {
					return nil, fmt.Errorf("list the nodes for %s: %w", ref, err)
				}
			}
			m.Nodes = nodes
		}
		out = append(out, m)
	}
	return out, nil
}

// KindFile is a state file of StatefulSets and DaemonSets: the output of
// `kubectl get sts,ds,controllerrevisions,pods,nodes -o yaml|json` ("-" reads standard
// input, once). Objects of other kinds are skipped.
type KindFile struct {
	Path    string
	objects func() (*KindObjects, error)
}

// KindObjects are the objects a KindFile holds, in the file's order.
type KindObjects struct {
	Workloads []workload.Workload
	Revisions []*appsv1.ControllerRevision
	Pods      []*corev1.Pod
	Nodes     []*corev1.Node
}

// NewKindFile returns the Source of the state file at path.
func NewKindFile(path string) *KindFile {
	return &KindFile{Path: path, objects: sync.OnceValues(func() (*KindObjects, error) {
		var data []byte
		var err error
		if path == "-" {
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(path)
		}
		if err != nil {
			return nil, fmt.Errorf("read state file: %w", err)
		}
		return DecodeKindObjects(data, path)
	})}
}

func (f *KindFile) Name() string { return "" }
func (f *KindFile) Live() bool   { return false }
func (f *KindFile) Client() (kubernetes.Interface, error) {
	return nil, fmt.Errorf("state file %s: no cluster to ask", f.Path)
}

// SelectKinds reads sel from the file as the API server would answer: Bulk, the objects of
// sel.Kind in sel.Namespace ("" for all) matching sel.Selector, by namespace then name;
// names in order, a name not in the file being its member's Err (a Ref without namespace
// matches any namespace, once). Each member gets the file's revisions and pods of its
// namespace (PlanKind keeps those it owns) and, a DaemonSet, every node of the file.
func (f *KindFile) SelectKinds(_ context.Context, sel KindSelection) ([]KindMember, error) {
	objs, err := f.objects()
	if err != nil {
		return nil, err
	}
	var out []KindMember
	if sel.Bulk {
		ls, err := labels.Parse(sel.Selector)
		if err != nil {
			return nil, fmt.Errorf("the provided selector %q is not valid: %v", sel.Selector, err)
		}
		for _, w := range objs.Workloads {
			ref := w.Ref()
			if ref.Kind == sel.Kind && (sel.Namespace == "" || ref.Namespace == sel.Namespace) && ls.Matches(labels.Set(w.Meta().GetLabels())) {
				out = append(out, objs.member(w))
			}
		}
		slices.SortStableFunc(out, func(a, b KindMember) int {
			return cmp.Or(strings.Compare(a.Ref.Namespace, b.Ref.Namespace), strings.Compare(a.Ref.Name, b.Ref.Name))
		})
		return out, nil
	}
	for _, ref := range sel.Refs {
		var found []workload.Workload
		for _, w := range objs.Workloads {
			r := w.Ref()
			if r.Kind == ref.Kind && r.Name == ref.Name && (ref.Namespace == "" || r.Namespace == ref.Namespace) {
				found = append(found, w)
			}
		}
		switch len(found) {
		case 1:
			out = append(out, objs.member(found[0]))
		case 0:
			out = append(out, KindMember{Ref: ref, Err: kindNotFound{fmt.Sprintf("%s.apps %q not found in %s (namespace %q): add it with `kubectl get %s -o yaml`", ref.Kind.Resource(), ref.Name, f.Path, ref.Namespace, ref.Kind.Resource())}})
		default:
			out = append(out, KindMember{Ref: ref, Err: fmt.Errorf("%s %q is in %d namespaces of %s: give one with -n", ref.Kind, ref.Name, len(found), f.Path)})
		}
	}
	return out, nil
}

func (o *KindObjects) member(w workload.Workload) KindMember {
	ref := w.Ref()
	st := &live.State{Workload: w}
	for _, r := range o.Revisions {
		if r.Namespace == ref.Namespace {
			st.Revisions = append(st.Revisions, r)
		}
	}
	for _, p := range o.Pods {
		if p.Namespace == ref.Namespace {
			st.Pods = append(st.Pods, p)
		}
	}
	m := KindMember{Ref: ref, State: st}
	if ref.Kind == target.KindDaemonSet {
		m.Nodes = o.Nodes
	}
	return m
}

// DecodeKindObjects decodes data (YAML documents or JSON, each an object or a v1 List of
// them, as kubectl get -o yaml|json prints) into the StatefulSets, DaemonSets,
// ControllerRevisions, Pods and Nodes it holds; other kinds are skipped. source names data
// in errors. Errors: unreadable YAML/JSON, an object that does not decode, nothing of the
// two workload kinds.
func DecodeKindObjects(data []byte, source string) (*KindObjects, error) {
	out := &KindObjects{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var raw runtime.RawExtension
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %v: expected the output of `kubectl get sts,ds,controllerrevisions,pods,nodes -o yaml`", source, err)
		}
		if len(bytes.TrimSpace(raw.Raw)) == 0 || string(raw.Raw) == "null" {
			continue
		}
		if err := out.add(raw.Raw, source); err != nil {
			return nil, err
		}
	}
	if len(out.Workloads) == 0 {
		return nil, fmt.Errorf("%s holds no apps/v1 StatefulSet or DaemonSet: expected the output of `kubectl get sts,ds,controllerrevisions,pods,nodes -o yaml`", source)
	}
	return out, nil
}

// add decodes one object (a List's items each in turn).
func (o *KindObjects) add(js []byte, source string) error {
	var tm struct {
		metav1.TypeMeta `json:",inline"`
		Items           []runtime.RawExtension `json:"items"`
	}
	if err := json.Unmarshal(js, &tm); err != nil {
		return fmt.Errorf("%s: %v", source, err)
	}
	if tm.Kind == "List" || strings.HasSuffix(tm.Kind, "List") && tm.Items != nil {
		for _, it := range tm.Items {
			if err := o.add(it.Raw, source); err != nil {
				return err
			}
		}
		return nil
	}
	switch tm.GroupVersionKind() {
	case appsv1.SchemeGroupVersion.WithKind("StatefulSet"), appsv1.SchemeGroupVersion.WithKind("DaemonSet"),
		appsv1.SchemeGroupVersion.WithKind("ControllerRevision"), corev1.SchemeGroupVersion.WithKind("Pod"),
		corev1.SchemeGroupVersion.WithKind("Node"):
	default:
		return nil
	}
	obj, err := runtime.Decode(scheme.Codecs.UniversalDeserializer(), js)
	if err != nil {
		return fmt.Errorf("%s: %s: %v", source, tm.Kind, err)
	}
	switch v := obj.(type) {
	case *appsv1.StatefulSet:
		o.Workloads = append(o.Workloads, workload.Workload{StatefulSet: v})
	case *appsv1.DaemonSet:
		o.Workloads = append(o.Workloads, workload.Workload{DaemonSet: v})
	case *appsv1.ControllerRevision:
		o.Revisions = append(o.Revisions, v)
	case *corev1.Pod:
		o.Pods = append(o.Pods, v)
	case *corev1.Node:
		o.Nodes = append(o.Nodes, v)
	}
	return nil
}

// PlanKindMember applies c to m's object and plans it (PlanKind; PlanKindTimed under
// readiness timed, c.Timing measured on m's pods when --pod-ready-after is not given): from a live Source
// through a server-side dry run of the patch (none when c changes nothing), from a file as
// the object read with c applied (KindChange.Modify; the file's objects carry the API
// server's defaults already). Errors: m.Err, Modify's, the dry run's, PlanKind's, no Ready
// pod to measure.
func PlanKindMember(ctx context.Context, src KindSource, m KindMember, c KindChange, r planner.Readiness) (*KindPlan, error) {
	if m.Err != nil {
		return nil, m.Err
	}
	st := m.State
	revs := workload.Owned(st.Workload, st.Revisions)
	mod, err := c.Modify(st.Workload, revs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Ref, err)
	}
	desired := prepareForUpdate(st.Workload, mod)
	if src.Live() {
		patch, err := KindPatch(st.Workload, mod)
		if err != nil {
			return nil, err
		}
		desired = st.Workload
		if string(patch) != "{}" {
			cs, err := src.Client()
			if err != nil {
				return nil, err
			}
			if desired, err = DryRunKind(ctx, cs, st.Workload, patch); err != nil {
				return nil, err
			}
		}
	}
	pods := workload.Owned(st.Workload, st.Pods)
	p, err := planKindAs(desired, revs, pods, m.Nodes, r, c.Now, c.Timing())
	if err == nil && st.Workload.StatefulSet != nil {
		p.liveReplicas = st.Workload.StatefulSet.Spec.Replicas
	}
	return p, err
}

package pipeline

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/change"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// IsKindManifest reports whether u is an apps/v1 StatefulSet or DaemonSet (what
// PlanKindManifest plans of a manifest set).
func IsKindManifest(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == appsv1.GroupName && gvk.Version == "v1" && (gvk.Kind == "StatefulSet" || gvk.Kind == "DaemonSet")
}

// KindManifestPlan is the plan of one StatefulSet or DaemonSet of a manifest set: Created
// when src has no such object (applying creates it: every pod is created), NoChange when
// applying changes nothing the controller acts on (the plan then has no pod operation).
type KindManifestPlan struct {
	Plan     *KindPlan
	Created  bool
	NoChange bool
}

// PlanKindManifest plans what applying u (an apps/v1 StatefulSet or DaemonSet, its namespace
// set) to src makes the controller do. The object applied is the one read with the
// manifest's spec.template and, when it gives them, spec.replicas, spec.updateStrategy and
// spec.minReadySeconds; from a live Source through a server-side dry run (of a create when
// the object does not exist), from a file with the API server's defaults applied client-side
// (the pod template's, change.ApplyDefaults; a new object's update strategy). Under
// readiness timed the plan is PlanKindTimed's, t measured on the object's pods when it has
// no ReadyAfter. Errors: a manifest that does not decode, the Source's, the dry run's,
// PlanKind's, no Ready pod to measure (a new object has none: give --pod-ready-after).
func PlanKindManifest(ctx context.Context, src KindSource, u *unstructured.Unstructured, r planner.Readiness, now metav1.Time, t KindTiming) (*KindManifestPlan, error) {
	want, err := decodeKind(u)
	if err != nil {
		return nil, err
	}
	if !src.Live() {
		// The server's defaults of the pod template, client-side: the revision hashes the
		// template as stored (change.ApplyDefaults, whose pod spec defaults are every kind's).
		t := want.Template()
		*t = change.ApplyDefaults(&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: *t}}).Spec.Template
	}
	ref := want.Ref()
	ms, err := src.SelectKinds(ctx, KindSelection{Refs: []target.KindRef{ref}})
	if err != nil {
		return nil, err
	}
	m := ms[0]
	if m.Err != nil && !notFound(src, m.Err) {
		return nil, m.Err
	}
	if m.Err != nil {
		desired := want
		if src.Live() {
			if desired, err = dryRunCreate(ctx, src, want); err != nil {
				return nil, err
			}
		} else {
			defaultStrategy(desired)
		}
		nodes, err := src.Nodes(ctx)
		if err != nil {
			return nil, err
		}
		p, err := planKindAs(desired, nil, nil, nodes, r, now.Time, t)
		return &KindManifestPlan{Plan: p, Created: true}, err
	}
	st := m.State
	applied := applyManifest(st.Workload, want)
	patch, err := KindPatch(st.Workload, applied)
	if err != nil {
		return nil, err
	}
	desired := prepareForUpdate(st.Workload, applied)
	if src.Live() && string(patch) != "{}" {
		cs, err := src.Client()
		if err != nil {
			return nil, err
		}
		if desired, err = DryRunKind(ctx, cs, st.Workload, patch); err != nil {
			return nil, err
		}
	}
	p, err := planKindAs(desired, workload.Owned(st.Workload, st.Revisions), workload.Owned(st.Workload, st.Pods), m.Nodes, r, now.Time, t)
	return &KindManifestPlan{Plan: p, NoChange: string(patch) == "{}"}, err
}

// notFound reports whether err is src's "not found" of a selected object.
func notFound(src KindSource, err error) bool {
	if src.Live() {
		return apierrors.IsNotFound(err)
	}
	_, ok := err.(kindNotFound)
	return ok
}

func decodeKind(u *unstructured.Unstructured) (workload.Workload, error) {
	var w workload.Workload
	var obj any
	if u.GetKind() == "StatefulSet" {
		w.StatefulSet = &appsv1.StatefulSet{}
		obj = w.StatefulSet
	} else {
		w.DaemonSet = &appsv1.DaemonSet{}
		obj = w.DaemonSet
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return w, fmt.Errorf("%s %q: %v", u.GetKind(), u.GetName(), err)
	}
	return w, nil
}

// applyManifest returns cur with want's template and, when want sets them, replicas, update
// strategy and minReadySeconds (a copy; cur is not changed).
func applyManifest(cur, want workload.Workload) workload.Workload {
	if s := cur.StatefulSet; s != nil {
		out := s.DeepCopy()
		ws := want.StatefulSet
		out.Spec.Template = ws.Spec.Template
		if ws.Spec.Replicas != nil {
			out.Spec.Replicas = ws.Spec.Replicas
		}
		if ws.Spec.UpdateStrategy.Type != "" {
			out.Spec.UpdateStrategy = ws.Spec.UpdateStrategy
		}
		if ws.Spec.MinReadySeconds != 0 {
			out.Spec.MinReadySeconds = ws.Spec.MinReadySeconds
		}
		return workload.Workload{StatefulSet: out}
	}
	out := cur.DaemonSet.DeepCopy()
	wd := want.DaemonSet
	out.Spec.Template = wd.Spec.Template
	if wd.Spec.UpdateStrategy.Type != "" {
		out.Spec.UpdateStrategy = wd.Spec.UpdateStrategy
	}
	if wd.Spec.MinReadySeconds != 0 {
		out.Spec.MinReadySeconds = wd.Spec.MinReadySeconds
	}
	return workload.Workload{DaemonSet: out}
}

// defaultStrategy sets the API server's defaults of the update strategy offline:
// RollingUpdate, a StatefulSet's partition 0, a DaemonSet's maxUnavailable 1 and maxSurge 0
// (k8s.io/kubernetes pkg/apis/apps/v1 defaults.go).
func defaultStrategy(w workload.Workload) {
	if s := w.StatefulSet; s != nil {
		if s.Spec.UpdateStrategy.Type == "" {
			s.Spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		}
		if s.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && s.Spec.UpdateStrategy.RollingUpdate == nil {
			s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To(int32(0))}
		}
		if s.Spec.Replicas == nil {
			s.Spec.Replicas = ptr.To(int32(1))
		}
		if s.Spec.PodManagementPolicy == "" {
			s.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
		}
		return
	}
	d := w.DaemonSet
	if d.Spec.UpdateStrategy.Type == "" {
		d.Spec.UpdateStrategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if d.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if d.Spec.UpdateStrategy.RollingUpdate == nil {
			d.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		ru := d.Spec.UpdateStrategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = ptr.To(intstr.FromInt32(0))
		}
	}
}

// dryRunCreate sends want as a server-side dry run of a create and returns what the server
// would store (its defaults). Errors: the server's, one line.
func dryRunCreate(ctx context.Context, src KindSource, want workload.Workload) (workload.Workload, error) {
	cs, err := src.Client()
	if err != nil {
		return want, err
	}
	ref := want.Ref()
	opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl-rollplan"}
	if s := want.StatefulSet; s != nil {
		out, err := cs.AppsV1().StatefulSets(ref.Namespace).Create(ctx, s, opts)
		if err != nil {
			return want, fmt.Errorf("server dry run of the creation of %s in namespace %q: %w", ref, ref.Namespace, err)
		}
		return workload.Workload{StatefulSet: out}, nil
	}
	out, err := cs.AppsV1().DaemonSets(ref.Namespace).Create(ctx, want.DaemonSet, opts)
	if err != nil {
		return want, fmt.Errorf("server dry run of the creation of %s in namespace %q: %w", ref, ref.Namespace, err)
	}
	return workload.Workload{DaemonSet: out}, nil
}

// Nodes lists the cluster's nodes (a DaemonSet's planning).
func (l *Live) Nodes(ctx context.Context) ([]*corev1.Node, error) {
	cs, err := l.Client()
	if err != nil {
		return nil, err
	}
	return live.Nodes(ctx, cs, l.retry())
}

// Nodes returns the file's nodes.
func (f *KindFile) Nodes(context.Context) ([]*corev1.Node, error) {
	objs, err := f.objects()
	if err != nil {
		return nil, err
	}
	return objs.Nodes, nil
}

// kindNotFound is KindFile's error of a name not in the file.
type kindNotFound struct{ msg string }

func (e kindNotFound) Error() string { return e.msg }

// prepareForUpdate returns desired as the API server stores an update of cur to it, offline
// (a copy): metadata.generation + 1 when the spec changed; a DaemonSet's template generation
// (the deprecated.daemonset.template.generation annotation, which its controller compares
// with the pods' pod-template-generation label) + 1 when the template changed
// (k8s.io/kubernetes pkg/registry/apps/daemonset/strategy.go and statefulset/strategy.go
// PrepareForUpdate).
func prepareForUpdate(cur, desired workload.Workload) workload.Workload {
	out, _ := workload.Of(desired.Object().DeepCopyObject())
	var same bool
	if cur.StatefulSet != nil {
		same = apiequality.Semantic.DeepEqual(cur.StatefulSet.Spec, out.StatefulSet.Spec)
	} else {
		same = apiequality.Semantic.DeepEqual(cur.DaemonSet.Spec, out.DaemonSet.Spec)
	}
	if same {
		return out
	}
	out.Meta().SetGeneration(cur.Meta().GetGeneration() + 1)
	if d := out.DaemonSet; d != nil && !apiequality.Semantic.DeepEqual(cur.DaemonSet.Spec.Template, d.Spec.Template) {
		g, _ := strconv.ParseInt(cur.DaemonSet.Annotations[appsv1.DeprecatedTemplateGeneration], 10, 64)
		ann := maps.Clone(d.Annotations)
		if ann == nil {
			ann = map[string]string{}
		}
		ann[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(g+1, 10)
		d.Annotations = ann
	}
	return out
}

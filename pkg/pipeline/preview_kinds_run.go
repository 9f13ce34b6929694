package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// KindRow is one StatefulSet or DaemonSet of a preview: its plan, or the error that kept it
// from one. Context is its kubeconfig context ("" for one context or a state file).
type KindRow struct {
	Context  string
	Workload WorkloadRef
	Plan     *KindPlan
	Err      error
}

// KindPreviewFlags are preview's change flags for StatefulSets and DaemonSets as given (issue
// 21): --image, --restart, --to-revision (Undo: given), --replicas and --partition (nil: not
// given), --readiness, --checks, --pod-ready-after and --sync-latency ("": not given).
type KindPreviewFlags struct {
	Images        []string
	Restart       bool
	Undo          bool
	ToRevision    int64
	Replicas      *int32
	Partition     *int32
	Readiness     string
	Checks        string
	PodReadyAfter string
	SyncLatency   string
}

// Parse returns the flags' change, readiness (planner.Readiness, "" the default) and parsed
// checks. Errors: feasibility.ParseChecks', estimate.ParseReadyAfter's and
// estimate.ParseSyncLatency's, in that order.
func (f KindPreviewFlags) Parse() (KindChange, planner.Readiness, []string, error) {
	c := KindChange{Images: f.Images, Restart: f.Restart, Undo: f.Undo, ToRevision: f.ToRevision, Replicas: f.Replicas, Partition: f.Partition}
	checks, err := feasibility.ParseChecks(f.Checks)
	if err != nil {
		return c, "", nil, err
	}
	t, err := ParseKindTiming(f.PodReadyAfter, f.SyncLatency)
	if err != nil {
		return c, "", nil, err
	}
	c.ReadyAfter, c.SyncLatency = t.ReadyAfter, t.SyncLatency
	return c, planner.Readiness(f.Readiness), checks, nil
}

// NewKindSource is where a preview of StatefulSets and DaemonSets reads: the state file
// (NewKindFile), or the current context through client ("": NewLive).
func NewKindSource(stateFile string, client func() (kubernetes.Interface, error)) KindSource {
	if stateFile != "" {
		return NewKindFile(stateFile)
	}
	return NewLive("", "", client)
}

// KindSelectionFlags are the selection flags of a preview of StatefulSets or DaemonSets: the
// named Refs, or Kind with -l (Selector), --all or -A (AllNamespaces), in Namespace (-n or the
// kubeconfig's; ExplicitNamespace: -n given).
type KindSelectionFlags struct {
	Namespace         string
	ExplicitNamespace bool
	Refs              []target.KindRef
	Kind              target.Kind
	AllNamespaces     bool
	Selector          string
}

// For is the selection in src: the names in -n's namespace (a state file without -n: the
// file's), or -l/--all/-A's LIST scope (a context's own namespace without -n).
func (s KindSelectionFlags) For(src KindSource) KindSelection {
	ns := s.Namespace
	if l, ok := src.(*Live); ok && l.Namespace != "" && !s.ExplicitNamespace {
		ns = l.Namespace
	}
	if len(s.Refs) > 0 {
		refs := make([]target.KindRef, len(s.Refs))
		for i, r := range s.Refs {
			r.Namespace = ns
			if !src.Live() && !s.ExplicitNamespace {
				r.Namespace = ""
			}
			refs[i] = r
		}
		return KindSelection{Refs: refs}
	}
	if s.AllNamespaces {
		ns = ""
	}
	return KindSelection{Bulk: true, Kind: s.Kind, Namespace: ns, Selector: s.Selector}
}

// PlanKinds plans every StatefulSet or DaemonSet selected (sel) in each of srcs (srcErrs[i]:
// the Source i could not be made, nil otherwise) with change c and readiness r, and runs the
// feasibility checks (checks; none: no check) on each plan. It returns one row per selected
// object (Err: it could not be planned) and the errors of Sources that failed, "context NAME:
// ..." when there are several Sources. With one Source its selection error is returned as err.
func PlanKinds(ctx context.Context, srcs []KindSource, srcErrs []error, sel func(KindSource) KindSelection, c KindChange, r planner.Readiness, checks []string) (rows []KindRow, failed []error, err error) {
	many := len(srcs) > 1
	cfg := &Config{Feasibility: checks}
	for i, src := range srcs {
		if srcErrs[i] != nil {
			failed = append(failed, srcErrs[i])
			continue
		}
		ms, err := src.SelectKinds(ctx, sel(src))
		if err != nil {
			if !many {
				return nil, nil, err
			}
			failed = append(failed, fmt.Errorf("context %s: %w", src.Name(), err))
			continue
		}
		for _, m := range ms {
			p, err := PlanKindMember(ctx, src, m, c, r)
			cfg.CheckKind(ctx, src, p)
			rows = append(rows, KindRow{Context: src.Name(), Workload: WorkloadRef{Kind: string(m.Ref.Kind), Namespace: m.Ref.Namespace, Name: m.Ref.Name}, Plan: p, Err: err})
		}
	}
	return rows, failed, nil
}

// KindRowErrors appends to failed the error of each row that could not be planned, as
// "KIND/NAME (namespace NS): ERR" (kind lower-case).
func KindRowErrors(rows []KindRow, failed []error) []error {
	for _, r := range rows {
		if r.Err != nil {
			failed = append(failed, fmt.Errorf("%s/%s (namespace %s): %w", strings.ToLower(r.Workload.Kind), r.Workload.Name, r.Workload.Namespace, r.Err))
		}
	}
	return failed
}

// KindPreviewFailed is the one-line error of a preview where failed of its rows and Sources
// failed: "preview failed for F of N", N the rows plus the Sources that could not be made.
func KindPreviewFailed(failed []error, rows []KindRow, srcErrs []error) error {
	return fmt.Errorf("preview failed for %d of %d", len(failed), len(rows)+len(srcErrs)-countNil(srcErrs))
}

func countNil(errs []error) int {
	n := 0
	for _, e := range errs {
		if e == nil {
			n++
		}
	}
	return n
}

// KindStalls says p ends Stalled, by the kind's planner or the feasibility checks.
func KindStalls(p *KindPlan) bool {
	return p != nil && (p.Outcome == "Stalled" || (p.Feasibility != nil && p.Feasibility.Stall != nil))
}

// AnyKindStalls says a plan of rows ends Stalled (KindStalls): --fail-on-stall's exit 3.
func AnyKindStalls(rows []KindRow) bool {
	return slices.ContainsFunc(rows, func(r KindRow) bool { return KindStalls(r.Plan) })
}

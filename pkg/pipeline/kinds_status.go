package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubectl/pkg/util/podutils"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/stall"
	"github.com/rollplan/kubectl-rollplan/pkg/status"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// The status verb for StatefulSets and DaemonSets (`kubectl rollplan status sts/NAME|ds/NAME`):
// kubectl's verdict, then while the rollout is in progress where it stands (KindProgress),
// why its pods do not progress (stall.DiagnoseOwner), what the feasibility checks find on the
// remaining plan (Config.CheckKind) and the ETA of the timed model. pkg/cmd prints what
// these return.

// KindStatusConfig configures KindStatusReader.
type KindStatusConfig struct {
	// Checks are --checks (parsed: feasibility.ParseChecks); none when empty.
	Checks []string
	// ReadyAfter is --pod-ready-after (nil: measured on the object's own Ready pods,
	// estimate.FromWorkloadPods, as preview sts/NAME does); SyncLatency --sync-latency (nil: 0).
	ReadyAfter  *estimate.Estimate
	SyncLatency *estimate.Latency
	// FailFast is --fail-fast: KindStatus.FailedFast once a reason of Stalled lasted
	// FailFastAfter.
	FailFast      bool
	FailFastAfter time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// KindStatus is where one StatefulSet's or DaemonSet's rollout stands at At.
type KindStatus struct {
	Ref target.KindRef
	At  time.Time
	// Verdict is kubectl rollout status's (workload.Status).
	Verdict workload.Verdict
	// Progress is step k of n, the next pod operations or what the controller waits for;
	// nil once done, or when it could not be read (ProgressErr says why).
	Progress    *KindProgress
	ProgressErr error
	// Stalled says why the pods do not progress (stall.DiagnoseOwner); FailedFast: with
	// --fail-fast, one of them lasted --fail-fast-after.
	Stalled    []stall.Reason
	FailedFast bool
	// Feasibility is what the checks found on the remaining plan (nil: nothing, or none ran).
	Feasibility *feasibility.Result
	// ETA is, when HasETA, how long the rest of the rollout takes under the timed model;
	// ETABasis what the model assumed, or why there is no ETA ("none: ...").
	ETA      time.Duration
	HasETA   bool
	ETABasis string
}

// KindStatusReader reads KindStatus of StatefulSets and DaemonSets from one cluster. The
// checks' objects (quotas, nodes, pods, PDBs, HPAs) are read once per namespace for the
// reader's life (a --watch too), as Deployment status does (StatusChecks).
type KindStatusReader struct {
	cfg    KindStatusConfig
	src    *Live
	checks *Config
}

// NewKindStatusReader returns a reader of the cluster client reaches.
func NewKindStatusReader(client func() (kubernetes.Interface, error), cfg KindStatusConfig) *KindStatusReader {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &KindStatusReader{cfg: cfg, src: NewLive("", "", client), checks: &Config{Feasibility: cfg.Checks}}
}

// Read returns w's KindStatus: kubectl's verdict of w as given and, while the rollout is not
// done, the object, its revisions, pods, (DaemonSet) nodes and the owner's events read again
// (SelectKinds, stall.ReadOwner) to compute the rest, with kubectl's verdict of the object as
// read then. A failed read of those sets ProgressErr: kubectl's
// verdict stands. Errors: w cannot be converted for kubectl's viewer.
func (r *KindStatusReader) Read(ctx context.Context, w workload.Workload) (*KindStatus, error) {
	v, err := workload.Status(w)
	if err != nil {
		return nil, err
	}
	now := r.cfg.Now()
	out := &KindStatus{Ref: w.Ref(), At: now, Verdict: v}
	if v.Done || v.Err != nil {
		return out, nil
	}
	ms, err := r.src.SelectKinds(ctx, KindSelection{Refs: []target.KindRef{w.Ref()}})
	if err == nil && len(ms) == 1 {
		err = ms[0].Err
	}
	if err != nil {
		out.ProgressErr = err
		return out, nil
	}
	m := ms[0]
	if v, err := workload.Status(m.State.Workload); err == nil { // the object as read now
		out.Verdict = v
		if v.Done || v.Err != nil {
			return out, nil
		}
	}
	client, err := r.src.Client()
	if err != nil {
		out.ProgressErr = err
		return out, nil
	}
	pods := workload.Owned(m.State.Workload, m.State.Pods)
	in := stall.ReadOwner(ctx, client, OwnerOf(m.State.Workload), pods)
	r.compose(ctx, out, m, in)
	return out, nil
}

// compose sets out's progress, stall reasons, ETA and findings from m (read at out.At) and
// the owner's stall input.
func (r *KindStatusReader) compose(ctx context.Context, out *KindStatus, m KindMember, in stall.OwnerInput) {
	w := m.State.Workload
	revs, pods := workload.Owned(w, m.State.Revisions), workload.Owned(w, m.State.Pods)
	out.Progress, out.ProgressErr = ProgressOfKind(w, revs, pods, m.Nodes, out.At)
	out.Stalled = stall.DiagnoseOwner(in, out.At)
	out.FailedFast = r.cfg.FailFast && len(stall.Stuck(out.Stalled, out.At, r.cfg.FailFastAfter)) > 0
	out.ETA, out.HasETA, out.ETABasis = KindETA(ctx, r.src, m, r.cfg, out.At)
	if len(out.Stalled) > 0 {
		out.ETA, out.HasETA = 0, false
		out.ETABasis = "none: the rollout does not progress (" + status.StallWords(out.Stalled) + ")"
	}
	if len(r.cfg.Checks) > 0 {
		p, err := PlanKindMember(ctx, r.src, m, KindChange{Now: out.At}, planner.ReadinessBatched)
		if err != nil {
			return
		}
		r.checks.CheckKind(ctx, r.src, p)
		out.Feasibility = p.Feasibility
	}
}

// OwnerOf is w as stall.DiagnoseOwner's owner: its kind, name and UID, and the pods it
// should run (a StatefulSet's spec.replicas, default 1; a DaemonSet's
// status.desiredNumberScheduled).
func OwnerOf(w workload.Workload) stall.Owner {
	ref, meta := w.Ref(), w.Meta()
	o := stall.Owner{Kind: string(ref.Kind), Namespace: ref.Namespace, Name: ref.Name, UID: meta.GetUID()}
	if s := w.StatefulSet; s != nil {
		o.Want = ptr.Deref(s.Spec.Replicas, 1)
	} else {
		o.Want = w.DaemonSet.Status.DesiredNumberScheduled
	}
	return o
}

// KindETA is the ETA of m's rollout at now: the rest planned from the live state under the
// timed model (PlanKindMember with no change, readiness timed: pods already created keep
// their creation times), with cfg.ReadyAfter or an estimate measured on m's own Ready pods,
// and cfg.SyncLatency or 0. The basis says what the model assumed (status.Basis) or why there
// is none: no Ready pod to measure; pods not Ready for longer than the estimate's maximum
// plus a second (the model cannot say when they will be); the kind's planner has no timed
// model (PlanKindMember's refusal; both kinds have one since pkg/planner/daemonset's timed.go); the plan
// does not end complete (a stalled or OnDelete rollout). Reads nothing (m is read; the
// object is planned as it is, so no dry run).
func KindETA(ctx context.Context, src KindSource, m KindMember, cfg KindStatusConfig, now time.Time) (time.Duration, bool, string) {
	w := m.State.Workload
	pods := workload.Owned(w, m.State.Pods)
	e, measured := estimate.Estimate{Min: time.Second, Median: time.Second, Max: time.Second}, true // placeholder: see below
	if cfg.ReadyAfter != nil {
		e = *cfg.ReadyAfter
	} else if got, err := estimate.FromWorkloadPods(pods, m.Ref.String()); err == nil {
		e = got
	} else {
		measured = false
	}
	if cfg.SyncLatency != nil {
		e.Latency = *cfg.SyncLatency
	}
	if n, oldest := overduePods(pods, e, now); measured && n > 0 {
		return 0, false, fmt.Sprintf("none: %d %s not Ready after %s, longer than the time model's %s", n, podsAre(n), oldest, status.Basis(e))
	}
	// planned even without a measure, to say first whether the kind's planner has a timed model
	p, err := PlanKindMember(ctx, src, m, KindChange{Now: now, ReadyAfter: &e, SyncLatency: cfg.SyncLatency}, planner.ReadinessTimed)
	switch {
	case errors.Is(err, planner.ErrNotModelled): // the kind's planner refuses the readiness
		return 0, false, fmt.Sprintf("none: the %s planner has no timed model", m.Ref.Kind)
	case err != nil:
		return 0, false, "none: " + err.Error()
	case p.Duration == nil:
		return 0, false, fmt.Sprintf("none: the %s planner has no timed model", m.Ref.Kind)
	case !measured:
		return 0, false, "none: no Ready pod to measure how long pods take (give --pod-ready-after)"
	case !etaOutcome(p.Outcome):
		return 0, false, fmt.Sprintf("none: the plan from now ends %s: %s", p.Outcome, p.Reason)
	}
	return p.Duration.Duration, true, status.Basis(e)
}

// etaOutcome reports whether a plan that ends so has an end the ETA can name.
func etaOutcome(o string) bool {
	return o == "Complete" || o == "Partitioned" || o == "NoChange"
}

// overduePods counts the pods not Ready (nor being deleted) older than e.Max plus a second
// at now, and returns the age of the oldest.
func overduePods(pods []*corev1.Pod, e estimate.Estimate, now time.Time) (int, time.Duration) {
	n, oldest := 0, time.Duration(0)
	for _, p := range pods {
		if p.DeletionTimestamp != nil || podutils.IsPodReady(p) {
			continue
		}
		if age := now.Sub(p.CreationTimestamp.Time); age > e.Max+time.Second {
			n, oldest = n+1, max(oldest, age.Round(time.Second))
		}
	}
	return n, oldest
}

func podsAre(n int) string {
	if n == 1 {
		return "pod is"
	}
	return "pods are"
}

// KindFailFastMessage is --fail-fast's error for s, naming the reasons that lasted after:
// `statefulset "db" does not progress: FailedCreate (1 pod not created): create Pod db-2
// in StatefulSet db failed error: ... (for 31s)`, several joined by "; ".
func KindFailFastMessage(s *KindStatus, after time.Duration) string {
	var parts []string
	for _, r := range stall.Stuck(s.Stalled, s.At, after) {
		parts = append(parts, fmt.Sprintf("%s (for %s)", r, s.At.Sub(r.Since).Round(time.Second)))
	}
	return fmt.Sprintf("%s %q does not progress: %s", strings.ToLower(string(s.Ref.Kind)), s.Ref.Name, strings.Join(parts, "; "))
}

// NewKindStatusConfig is the KindStatusConfig of status's flags: checks (--checks, a
// feasibility.ParseChecks value), podReadyAfter (--pod-ready-after, "" measured),
// syncLatency (--sync-latency, "" 0), failFast and failFastAfter (--fail-fast,
// --fail-fast-after). Errors: the parsers', naming the flag value.
func NewKindStatusConfig(checks, podReadyAfter, syncLatency string, failFast bool, failFastAfter time.Duration) (KindStatusConfig, error) {
	cfg := KindStatusConfig{FailFast: failFast, FailFastAfter: failFastAfter}
	var err error
	if cfg.Checks, err = feasibility.ParseChecks(checks); err != nil {
		return cfg, err
	}
	var sc status.Config
	if err := SetStatusTiming(&sc, podReadyAfter, syncLatency); err != nil {
		return cfg, err
	}
	cfg.ReadyAfter, cfg.SyncLatency = sc.ReadyAfter, sc.SyncLatency
	return cfg, nil
}

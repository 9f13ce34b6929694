package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
)

// KindsVerb is history, undo, restart, pause, resume, status or preview (Verb) of the
// StatefulSets or DaemonSets Args select (issue 21), as pkg/cmd fills it from the flags: the
// one config of Validate, Run and Preview. A flag the verb's command lacks stays zero.
type KindsVerb struct {
	Verb string
	Args target.KindArgs

	// Namespace is -n or the kubeconfig's; AllNamespaces -A; Selector -l; All --all.
	Namespace     string
	AllNamespaces bool
	Selector      string
	All           bool
	// Output is -o ("", "json" or "yaml").
	Output       string
	DryRun       cmdutil.DryRunStrategy
	FieldManager string
	// Sink receives undo's and restart's patches (nil: NewSink of DryRun and FieldManager).
	Sink Sink
	// Yes is --yes: write several without asking.
	Yes        bool
	ToRevision int64
	Revision   int64
	Watch      bool
	Timeout    time.Duration

	// Change, Readiness, StateFile, ExplicitNamespace (-n given), Checks (--checks, parsed)
	// and FailOnStall are preview's.
	Change            KindChange
	Readiness         Readiness
	StateFile         string
	ExplicitNamespace bool
	Checks            []string
	FailOnStall       bool
	// StatusConfig is status's.
	StatusConfig KindStatusConfig

	// Client reaches the cluster; Now is the clock; Terminal says whether stdin and stderr
	// are a terminal (the one confirmation of several writes).
	Client   func() (kubernetes.Interface, error)
	Now      func() time.Time
	Terminal func() bool
}

// KindsExit is why a verb on StatefulSets and DaemonSets ends with an exit code of its own;
// pkg/cmd maps it to the code (3, 5 and 6 of the CLI's contract).
type KindsExit int

const (
	// KindsExitNone: the verb's error alone decides.
	KindsExitNone KindsExit = iota
	// KindsExitStalled: preview --fail-on-stall, a plan ends Stalled.
	KindsExitStalled
	// KindsExitTimedOut: status --watch, --timeout passed first.
	KindsExitTimedOut
	// KindsExitFailFast: status --fail-fast, a reason of Stalled lasted --fail-fast-after.
	KindsExitFailFast
)

// KindsResult is what Run did: Selected objects (0: none, "No resources found"), status's
// last status of each object followed, and the exit reason with its message.
type KindsResult struct {
	Selected int
	Statuses []*KindStatus
	Exit     KindsExit
	Message  string
}

// KindsReport is what Run tells as it goes (printer.KindsReport prints it): each object's
// history, each write's preview, the one question before writing several (Confirm: true
// goes on) and its refusal, and a shower of one object's statuses (status: called with each
// status read; a new one per object). Failed and Done are KindWriteReport's; Failed also
// names an object of several whose history or preview failed.
type KindsReport interface {
	KindWriteReport
	History(ref target.KindRef, h *workload.History) error
	WritePreview(ref target.KindRef, kw *KindWrite) error
	Confirm(n int, namespace string) bool
	Declined()
	StatusShower() func(*KindStatus) error
}

// Several reports whether the selection is not one object named.
func (v KindsVerb) Several() bool { return len(v.Args.Refs) != 1 }

// Noun names the selection's kind in the plural (KindsNoun).
func (v KindsVerb) Noun() string { return KindsNoun(v.Args) }

// Validate checks the selection and flags alone, with kubectl's words for the combinations
// it refuses (k8s.io/kubectl/pkg/cmd/rollout, v0.36.3, through resource.Builder).
func (v KindsVerb) Validate() error {
	named := len(v.Args.Refs) > 0
	switch {
	case named && (v.Selector != "" || v.All):
		return errors.New("name cannot be provided when a selector is specified: give names, or -l/--selector or --all, not both")
	case named && v.AllNamespaces:
		return errors.New("a resource cannot be retrieved by name across all namespaces: drop -A/--all-namespaces and give the namespace with -n")
	case v.Selector != "" && v.All:
		return errors.New("setting 'all' parameter but found a non empty selector: give -l/--selector or --all, not both")
	case !named && v.Selector == "" && !v.All && !v.AllNamespaces:
		return fmt.Errorf("a %s is required: give %s/NAME, several names, -l/--selector or --all", v.Args.Kind, v.Args.Kind.Resource())
	}
	if v.Selector != "" {
		if _, err := labels.Parse(v.Selector); err != nil {
			return fmt.Errorf("the provided selector %q is not valid: %v", v.Selector, err)
		}
	}
	switch v.Output {
	case "", "json", "yaml":
	default:
		return fmt.Errorf("unknown output format %q: use -o json or -o yaml for StatefulSets and DaemonSets", v.Output)
	}
	if v.Verb == "preview" {
		if err := v.validatePreview(); err != nil {
			return err
		}
	}
	if v.Revision < 0 {
		return fmt.Errorf("--revision %d: revisions are positive numbers", v.Revision)
	}
	if v.Timeout < 0 {
		return fmt.Errorf("--timeout %s: must be 0 (never) or more", v.Timeout)
	}
	if v.Timeout > 0 && !v.Watch {
		return errors.New("--timeout needs --watch")
	}
	return nil
}

// validatePreview checks preview's change flags alone.
func (v KindsVerb) validatePreview() error {
	c := v.Change
	if c.Restart && c.Undo {
		return errors.New("--restart and --to-revision are two changes: give one")
	}
	if (c.Replicas != nil && *c.Replicas < 0) || (c.Partition != nil && *c.Partition < 0) {
		return errors.New("--replicas and --partition must be 0 or more")
	}
	if v.Args.Kind == target.KindDaemonSet && (c.Replicas != nil || c.Partition != nil) {
		return errors.New("--replicas and --partition are StatefulSet fields: drop them for DaemonSets")
	}
	return nil
}

// Run runs history, undo, restart, pause, resume or status on every object selected
// (SelectKindRefs) and tells rep as it goes; for several, a failure is told (rep.Failed) and
// the others go on, and the error names each that failed ("history failed for 1 of 2:
// [...]"). pause and resume are refused before anything is read (RefuseKinds); undo and
// restart of several without --yes or a dry run ask once (rep.Confirm), and refuse without a
// terminal. Errors: the client's, the selection's, each verb's.
func (v KindsVerb) Run(ctx context.Context, rep KindsReport) (*KindsResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if v.Verb == "pause" || v.Verb == "resume" {
		return nil, RefuseKinds(v.Verb, v.Args)
	}
	client, err := v.Client()
	if err != nil {
		return nil, err
	}
	if (v.Verb == "undo" || v.Verb == "restart") && v.Several() && v.DryRun == cmdutil.DryRunNone && !v.Yes && !v.Terminal() {
		return nil, fmt.Errorf("standard input is not a terminal, so %s cannot ask before changing several %s: pass --yes to %s them without asking, or --dry-run=client to preview only", v.Verb, v.Noun(), v.Verb)
	}
	refs, err := SelectKindRefs(ctx, client, v.Args, v.Namespace, v.AllNamespaces, v.Selector)
	if err != nil {
		return nil, err
	}
	res := &KindsResult{Selected: len(refs)}
	switch {
	case len(refs) == 0:
		return res, nil
	case v.Verb == "history":
		return res, v.each(refs, rep, func(r target.KindRef) error {
			h, err := ReadKindHistory(ctx, client, r, v.Revision)
			if err != nil {
				return err
			}
			return rep.History(r, h)
		})
	case v.Verb == "status":
		return res, v.status(ctx, client, refs, rep, res)
	default:
		return res, v.write(ctx, client, refs, rep)
	}
}

// each runs fn on every ref; with several, a failure is told and the rest go on.
func (v KindsVerb) each(refs []target.KindRef, rep KindsReport, fn func(target.KindRef) error) error {
	if !v.Several() && len(refs) == 1 {
		return fn(refs[0])
	}
	var failed []string
	for _, r := range refs {
		if err := fn(r); err != nil {
			rep.Failed(r, err)
			failed = append(failed, r.String())
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s failed for %d of %d: %v", v.Verb, len(failed), len(refs), failed)
	}
	return nil
}

// write previews undo or restart on every object (PreviewKindWrite, rep.WritePreview), asks
// once for several (real run, no --yes), then sends each guarded patch (KindWrites.Send:
// nothing for --dry-run=client; --dry-run=server asks the API server).
func (v KindsVerb) write(ctx context.Context, client kubernetes.Interface, refs []target.KindRef, rep KindsReport) error {
	var ready []*KindWrite
	err := v.each(refs, rep, func(r target.KindRef) error {
		kw, err := PreviewKindWrite(ctx, client, r, v.Verb, v.ToRevision, v.Now())
		if err != nil {
			return err
		}
		if err := rep.WritePreview(r, kw); err != nil {
			return err
		}
		ready = append(ready, kw)
		return nil
	})
	if len(ready) == 0 {
		return err
	}
	if v.Several() && v.DryRun == cmdutil.DryRunNone && !v.Yes && !rep.Confirm(len(ready), ready[0].Workload.Ref().Namespace) {
		rep.Declined()
		return err
	}
	sink := v.Sink
	if sink == nil {
		sink = NewSink(v.DryRun, v.FieldManager)
	}
	ws := KindWrites{Verb: v.Verb, ToRevision: v.ToRevision, Several: v.Several(), Sink: sink}
	if werr := ws.Send(ctx, client, ready, rep); werr != nil {
		return werr
	}
	return err
}

// status shows each object's status in turn (KindStatusReader.Follow, rep.StatusShower);
// with --watch it follows each until done, as kubectl does. res gets each last status and
// the exit: KindsExitTimedOut when --timeout passes first, KindsExitFailFast with
// --fail-fast (with --watch, as soon as one fails fast, as Deployment status does). Errors:
// kubectl's (Follow's).
func (v KindsVerb) status(ctx context.Context, client kubernetes.Interface, refs []target.KindRef, rep KindsReport, res *KindsResult) error {
	if v.Watch && v.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, v.Timeout)
		defer cancel()
	}
	r := NewKindStatusReader(func() (kubernetes.Interface, error) { return client, nil }, v.StatusConfig)
	var failed []string
	for _, ref := range refs {
		s, err := r.Follow(ctx, client, ref, v.Watch, rep.StatusShower())
		switch {
		case ctx.Err() != nil && v.Timeout > 0:
			res.Exit, res.Message = KindsExitTimedOut, fmt.Sprintf("timed out after %s waiting for the rollout of %s to finish", v.Timeout, ref)
			return nil
		case err != nil:
			return err
		}
		res.Statuses = append(res.Statuses, s)
		if s.FailedFast {
			failed = append(failed, KindFailFastMessage(s, v.StatusConfig.FailFastAfter))
			if v.Watch {
				break
			}
		}
	}
	if len(failed) > 0 {
		res.Exit, res.Message = KindsExitFailFast, strings.Join(failed, "\nerror: ")
	}
	return nil
}

// ParseKindStatusFlags is NewKindStatusConfig of status's flags, --fail-fast-after checked
// first. Errors: --fail-fast-after not more than 0, then NewKindStatusConfig's.
func ParseKindStatusFlags(checks, podReadyAfter, syncLatency string, failFast bool, failFastAfter time.Duration, now func() time.Time) (KindStatusConfig, error) {
	if failFastAfter <= 0 {
		return KindStatusConfig{}, fmt.Errorf("--fail-fast-after %s: must be more than 0", failFastAfter)
	}
	cfg, err := NewKindStatusConfig(checks, podReadyAfter, syncLatency, failFast, failFastAfter)
	cfg.Now = now
	return cfg, err
}

// KindsPreview is a preview of StatefulSets and DaemonSets: the rows planned; List: shown as
// a list (the summary table, or one RolloutPlanList) rather than one plan; Failed: a list's
// row and Source errors, one line each; Err: the list's error ("preview failed for F of
// N"); Exit: KindsExitStalled with --fail-on-stall when a plan ends Stalled.
type KindsPreview struct {
	Rows   []KindRow
	List   bool
	Failed []error
	Err    error
	Exit   KindsExit
}

// Preview plans every StatefulSet or DaemonSet selected from each of srcs (srcErrs[i]: the
// Source i could not be made; PlanKinds) with the change at Now truncated to the second.
// One object named from one Source is one plan; else a list. Errors: PlanKinds', and the
// one object's.
func (v KindsVerb) Preview(ctx context.Context, srcs []KindSource, srcErrs []error) (*KindsPreview, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c := v.Change
	c.Now = v.Now().Truncate(time.Second)
	sel := KindSelectionFlags{Namespace: v.Namespace, ExplicitNamespace: v.ExplicitNamespace, Refs: v.Args.Refs, Kind: v.Args.Kind, AllNamespaces: v.AllNamespaces, Selector: v.Selector}
	rows, failed, err := PlanKinds(ctx, srcs, srcErrs, sel.For, c, v.Readiness, v.Checks)
	if err != nil {
		return nil, err
	}
	p := &KindsPreview{Rows: rows, List: len(rows) != 1 || len(srcs) > 1 || v.Several()}
	if len(rows) == 0 && len(failed) == 0 {
		return p, nil
	}
	if !p.List && rows[0].Err != nil {
		return nil, rows[0].Err
	}
	if p.List {
		if p.Failed = KindRowErrors(rows, failed); len(p.Failed) > 0 {
			p.Err = KindPreviewFailed(p.Failed, rows, srcErrs)
			return p, nil
		}
	}
	if v.FailOnStall && AnyKindStalls(rows) {
		p.Exit = KindsExitStalled
	}
	return p, nil
}

// KindSources are the Sources a preview reads: lives (the Sources of --contexts, errs[i]:
// context i's could not be made), or without them the state file or the current context
// (NewKindSource).
func (v KindsVerb) KindSources(lives []*Live, errs []error) ([]KindSource, []error) {
	if lives == nil {
		return []KindSource{NewKindSource(v.StateFile, v.Client)}, []error{nil}
	}
	srcs := make([]KindSource, len(lives))
	for i, l := range lives {
		if l != nil {
			srcs[i] = l
		}
	}
	return srcs, errs
}

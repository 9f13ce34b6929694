package drive

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/rollplan/kubectl-rollplan/pkg/deployutil"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/stall"
	"github.com/rollplan/kubectl-rollplan/pkg/watch"
)

// Answer is the user's answer at a step prompt.
type Answer int

const (
	// AnswerContinue makes the step.
	AnswerContinue Answer = iota
	// AnswerHold stops here and leaves the Deployment held.
	AnswerHold
	// AnswerAbort walks back to the previous ReplicaSet and hands back.
	AnswerAbort
)

// StepInfo is what a step prompt shows.
type StepInfo struct {
	// Number and Of: step Number of Of.
	Number, Of int
	Step       Step
	Bounds     Bounds
	Phase      Phase
}

// Options configure a Driver.
type Options struct {
	// Client talks to the cluster. Required.
	Client kubernetes.Interface
	// Namespace and Name of the Deployment. Required.
	Namespace, Name string
	// Desired is the Deployment after the change, server-defaulted (nil: continue a held
	// drive, or with Adopt, drive the rollout in flight).
	Desired *appsv1.Deployment
	// Adopt lets drive take over a rollout it did not start.
	Adopt bool
	// Force takes the lease from another driver whose lease has not expired.
	Force bool
	// Abort walks a held Deployment back to its previous ReplicaSet (kubectl rollplan abort).
	Abort bool
	// Steps is how many steps this run makes before it holds (0: no limit).
	Steps int
	// UntilStep holds once step UntilStep is done (0: no limit).
	UntilStep int
	// Interval is the bake time between two steps.
	Interval time.Duration
	// ProgressTimeout bounds the wait of one step (0: the Deployment's
	// progressDeadlineSeconds, 600 s when unset).
	ProgressTimeout time.Duration
	// FailFast holds the rollout as soon as the pods of the ReplicaSet a step waits for have
	// been held back (stall.Stuck: ImagePullBackOff, Unschedulable, FailedCreate, ...) for
	// FailFastAfter, instead of waiting for the progress timeout.
	FailFast      bool
	FailFastAfter time.Duration
	// LeaseDuration is how long the lease lasts without renewal (0: 30 s); it is renewed
	// every third of it.
	LeaseDuration time.Duration
	// CompletionTimeout bounds the wait for the controller to report the rollout complete
	// after the hand-back (0: the progress timeout, at least 2 minutes).
	CompletionTimeout time.Duration
	// Confirm asks before each step (nil: never asks). The step the run starts with after a
	// takeover is not asked again (the takeover was confirmed).
	Confirm func(ctx context.Context, s StepInfo) (Answer, error)
	// Progress receives the run's progress events, one per line of progress, from the run's
	// goroutines (nil: discarded); pkg/printer's DriveProgress renders them as text.
	Progress func(Event)
	// FieldManager names drive's writes in managedFields (empty: kube.FieldManager,
	// "kubectl-rollplan"); reload --drive passes its own (kube.ReloadFieldManager), which
	// Flux does not take over (see kube.ReloadFieldManager).
	FieldManager string
	// Now is the clock (nil: time.Now). Identity names this driver in the lease (empty: user@host pid N/random).
	Now      func() time.Time
	Identity string
}

// Outcome is how a run of the driver ended.
type Outcome string

const (
	// OutcomeComplete: handed back complete; the controller reports the rollout done.
	OutcomeComplete Outcome = "Complete"
	// OutcomeAborted: walked back and handed back with the previous template.
	OutcomeAborted Outcome = "Aborted"
	// OutcomeHeld: stopped on purpose; the Deployment stays held (exit code 4).
	OutcomeHeld Outcome = "Held"
	// OutcomeNotStarted: the user declined at the first prompt; nothing was written.
	OutcomeNotStarted Outcome = "NotStarted"
)

// Result is what a run did.
type Result struct {
	Outcome Outcome
	// Reason says why the run holds.
	Reason string
	// StepsRun counts the steps this run made; Step and Steps are the drive's position.
	StepsRun, Step, Steps int
	// Revision is the revision of the ReplicaSet the Deployment runs after a hand-back.
	Revision int64
	// Duration is the run's wall time.
	Duration time.Duration
	// Retries counts the API calls retried after a transient failure (the API server
	// restarting, 429, 5xx).
	Retries int
}

// Prepared is what a run will do, decided before any write.
type Prepared struct {
	// Snapshot is the state read.
	Snapshot *Snapshot
	// Takeover is the takeover plan when the Deployment is not held yet.
	Takeover *Takeover
	// Bounds and Steps: the plan from here (every step when not held yet).
	Bounds Bounds
	Steps  []Step
	// Done counts the steps done already (held).
	Done int
	// Warnings are things the user should know.
	Warnings []string
}

// Driver walks one Deployment through its rollout. Use New, Prepare, then Run.
type Driver struct {
	opts     Options
	client   kubernetes.Interface
	now      func() time.Time
	identity string
	lease    time.Duration
	ev       *kube.Recorder // records Events during Run (nil outside it)
	out      *progress
	view     *watch.Cache // the Deployment and its ReplicaSets, watched (Run starts it)

	// held is what the driver holds (state, annotation value, Deployment): shared with
	// the lease renewal goroutine, read and replaced only through its methods.
	held holdState

	// mu guards lastWritten and written.
	mu sync.Mutex
	// lastWritten holds every ReplicaSet's spec.replicas as the driver last saw or wrote
	// it: anything else found there was written by someone else.
	lastWritten map[string]int32
	// written holds the generation of every ReplicaSet the driver wrote, to tell a watch
	// that has not caught up from a change by someone else.
	written   map[string]int64
	stepsRun  int
	underWay  stepUnderWay            // the step being made and its writes that landed (under mu)
	stopRenew func()                  // stops the lease renewal (before the hand-back)
	cancelRun context.CancelCauseFunc // ends the run (the hold is lost)
	confirmed bool                    // the takeover was confirmed: do not ask again for the first step
	retries   retryCounter            // transient failures retried during Run
}

// New returns a Driver for opts.
func New(opts Options) *Driver {
	d := &Driver{opts: opts, client: opts.Client, now: opts.Now, identity: opts.Identity, lease: opts.LeaseDuration}
	if d.now == nil {
		d.now = time.Now
	}
	if d.identity == "" {
		d.identity = DefaultIdentity()
	}
	if d.lease <= 0 {
		d.lease = 30 * time.Second
	}
	d.out = newProgress(opts.Progress)
	return d
}

// DefaultIdentity returns "user@host pid N/xxxx" with 4 random hex digits.
func DefaultIdentity() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s pid %d/%s", name, host, os.Getpid(), randomHex(2))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writes is the Options of the driver's writes: its field manager, no dry run.
func (d *Driver) writes() kube.Options {
	return kube.Options{FieldManager: cmp.Or(d.opts.FieldManager, kube.FieldManager)}
}

func (d *Driver) ref() string { return fmt.Sprintf("deployment %s/%s", d.opts.Namespace, d.opts.Name) }

func (d *Driver) read(ctx context.Context) (*Snapshot, error) {
	st, err := d.loadLive(ctx)
	if err != nil {
		return nil, err
	}
	return NewSnapshot(st)
}

// Prepare reads the Deployment and decides what a run will do, writing nothing: the
// takeover plan of a Deployment not held yet, or the rest of a held drive.
//
// Errors: the refusals of PlanTakeover; for a held Deployment, a change that differs from
// the one being driven, or a lease another running driver holds (unless Force).
func (d *Driver) Prepare(ctx context.Context) (*Prepared, error) {
	st, err := d.loadLive(ctx)
	if err != nil {
		return nil, err
	}
	snap, err := NewSnapshot(st)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Snapshot: snap}
	if snap.State == nil {
		if d.opts.Abort {
			return nil, fmt.Errorf("%s is not held by drive: there is nothing to abort (kubectl rollout undo rolls back a finished rollout)", d.ref())
		}
		tk, err := PlanTakeover(st, d.opts.Desired, d.opts.Adopt)
		if err != nil {
			return nil, err
		}
		p.Takeover, p.Bounds, p.Steps, p.Warnings = tk, tk.Bounds, tk.Steps, tk.Warnings
		return p, nil
	}
	s := snap.State
	if s.LeaseValid(d.now()) && s.Holder != d.identity && !d.opts.Force {
		return nil, fmt.Errorf("%s is being driven by %s (lease valid until %s): wait for it, see `kubectl rollplan drive status deploy/%s`, or pass --force if that driver is gone",
			d.ref(), s.Holder, s.LeaseExpires.Format(time.RFC3339), d.opts.Name)
	}
	if d.opts.Desired != nil {
		target := snap.ReplicaSet(s.NewReplicaSet)
		same := target != nil && deployutil.EqualIgnoreHash(&target.Spec.Template, &d.opts.Desired.Spec.Template)
		if target == nil {
			same = planner.ComputeHash(&d.opts.Desired.Spec.Template, snap.Deployment.Status.CollisionCount) == s.TargetHash
		}
		if !same {
			return nil, fmt.Errorf("%s is held by drive for another change (new ReplicaSet %s): finish it (kubectl rollplan drive deploy/%s), abort it, or hand it back (kubectl rollplan resume) first",
				d.ref(), s.NewReplicaSet, d.opts.Name)
		}
	}
	if d.opts.Abort && s.PreviousReplicaSet == "" {
		return nil, fmt.Errorf("%s: the drive has no previous ReplicaSet to walk back to: hand it back with kubectl rollplan resume", d.ref())
	}
	if d.opts.Abort && snap.ReplicaSet(s.PreviousReplicaSet) == nil {
		return nil, fmt.Errorf("%s: the previous ReplicaSet %s is gone, abort cannot walk back: hand it back with kubectl rollplan resume, or drive it forward", d.ref(), s.PreviousReplicaSet)
	}
	b := s.Bounds()
	if r := ptr.Deref(snap.Deployment.Spec.Replicas, 1); r != s.Replicas && !s.PendingReplicas {
		if b, err = ResolveBounds(r, s.OriginalStrategy); err != nil {
			return nil, err
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("spec.replicas changed from %d to %d while held: the plan follows it", s.Replicas, r))
	}
	start := snap.Start()
	if d.opts.Abort && s.Phase != PhaseAbort {
		s2 := *s
		s2.Phase = PhaseAbort
		start = (&Snapshot{Deployment: snap.Deployment, ReplicaSets: snap.ReplicaSets, State: &s2}).Start()
	}
	if p.Steps, err = PlanSteps(b, start); err != nil {
		return nil, fmt.Errorf("%s: %w", d.ref(), err)
	}
	p.Bounds, p.Done = b, s.Step
	if d.opts.Abort && s.Phase != PhaseAbort {
		p.Done = 0
	}
	return p, nil
}

// Errors that end a step early and send the loop back to read and re-plan.
var (
	errReplan   = errors.New("re-plan")
	errLostHold = errors.New("lost the hold")
)

// StoppedError is returned when the driver stops because someone else changed the
// Deployment or its ReplicaSets: the Deployment stays held and nothing was overwritten.
type StoppedError struct {
	Msg string
	// Lost: another driver (or a hand-back) took the hold; this driver must not write.
	Lost bool
}

func (e *StoppedError) Error() string { return e.Msg }

// stepTimeout is a step whose pods did not become available in time (or, with
// Options.FailFast, were held back for FailFastAfter: failFast).
type stepTimeout struct {
	rs     string
	want   int32
	have   int32
	waited time.Duration
	pods   []string
	msg    string // instead of the availability message
	// stall: why the ReplicaSet's pods are not available (stall.Diagnose), when known.
	stall    []stall.Reason
	failFast time.Duration
}

func (e *stepTimeout) Error() string {
	if e.msg != "" {
		return e.msg
	}
	out := fmt.Sprintf("ReplicaSet %s has %d of %d pods available after %s", e.rs, e.have, e.want, e.waited.Round(time.Second))
	if e.failFast > 0 {
		out = fmt.Sprintf("--fail-fast: pods of ReplicaSet %s held back for %s or more (%d of %d available)", e.rs, e.failFast, e.have, e.want)
	}
	if len(e.stall) > 0 {
		var why []string
		for _, r := range e.stall {
			h := r
			h.Message = ""
			why = append(why, h.String())
		}
		out += ": " + strings.Join(why, ", ")
	}
	return out
}

// Run executes what Prepare decided: takes over (or takes the lease of a held drive),
// walks the steps, and hands back at the end. It returns OutcomeHeld when it stops on
// purpose (--steps, --until-step, a hold answer, a step timeout); then the Deployment stays
// held and `drive` continues it.
//
// Errors: a StoppedError when someone else changed the Deployment or a ReplicaSet (nothing
// is overwritten; the Deployment stays held), API errors, ctx ending.
func (d *Driver) Run(ctx context.Context, p *Prepared) (*Result, error) {
	began := d.now()
	// Events are written in the background; the run's last ones (hand-back, stopped) are
	// flushed before Run returns, so that they outlive the CLI.
	d.ev = kube.NewRecorder(d.client, func(s string) { d.out.emit(Event{Kind: EventWarning, Message: s}) })
	defer d.ev.Shutdown(eventFlushTimeout)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var err error
	if d.view, err = watch.ForDeployment(ctx, d.client, p.Snapshot.Deployment, d.now); err != nil {
		return nil, err
	}
	defer d.view.Close()
	d.lastWritten = map[string]int32{}
	for _, rs := range p.Snapshot.ReplicaSets {
		d.lastWritten[rs.Name] = replicas(rs)
	}
	if p.Takeover != nil {
		if d.opts.Confirm != nil && len(p.Steps) > 0 {
			ans, err := d.opts.Confirm(ctx, StepInfo{Number: 1, Of: len(p.Steps), Step: p.Steps[0], Bounds: p.Bounds, Phase: PhaseForward})
			if err != nil {
				return nil, err
			}
			if ans != AnswerContinue {
				d.out.emit(Event{Kind: EventNothingChanged, Ref: d.ref()})
				return &Result{Outcome: OutcomeNotStarted, Duration: d.now().Sub(began)}, nil
			}
			d.confirmed = true
		}
		if err := d.takeover(ctx, p.Takeover); err != nil {
			return nil, d.stopped(ctx, err)
		}
	} else if err := d.acquire(ctx, p.Snapshot); err != nil {
		return nil, err
	}
	d.cancelRun = cancel
	d.startRenew(ctx)
	defer func() { d.stopRenew() }()

	if d.opts.Abort && d.held.state().Phase != PhaseAbort {
		if err := d.startAbort(ctx); err != nil {
			return nil, d.stopped(ctx, err)
		}
	}
	res, err := d.loop(ctx)
	if res != nil {
		res.Duration = d.now().Sub(began)
		res.StepsRun = d.stepsRun
		res.Retries = int(d.retries.Load())
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
		return res, d.stopped(ctx, err)
	}
	return res, nil
}

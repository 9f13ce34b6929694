package drive

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
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
	// LeaseDuration is how long the lease lasts without renewal (0: 30 s); it is renewed
	// every third of it.
	LeaseDuration time.Duration
	// CompletionTimeout bounds the wait for the controller to report the rollout complete
	// after the hand-back (0: 2 minutes).
	CompletionTimeout time.Duration
	// Confirm asks before each step (nil: never asks). The step the run starts with after a
	// takeover is not asked again (the takeover was confirmed).
	Confirm func(ctx context.Context, s StepInfo) (Answer, error)
	// Progress receives progress lines (nil: discarded); Live redraws a status line while
	// waiting (a terminal).
	Progress io.Writer
	Live     bool
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
	ev       *eventer
	out      *progress
	view     *view

	mu       sync.Mutex
	state    *State
	annValue string
	dep      *appsv1.Deployment // the Deployment as last read or written

	// lastWritten holds every ReplicaSet's spec.replicas as the driver last saw or wrote
	// it: anything else found there was written by someone else.
	lastWritten map[string]int32
	// written holds the generation of every ReplicaSet the driver wrote, to tell a watch
	// that has not caught up from a change by someone else.
	written   map[string]int64
	stepsRun  int
	stopRenew func()                  // stops the lease renewal (before the hand-back)
	cancelRun context.CancelCauseFunc // ends the run (the hold is lost)
	confirmed bool                    // the takeover was confirmed: do not ask again for the first step
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
	d.out = newProgress(opts.Progress, opts.Live)
	d.ev = newEventer(opts.Client, d.now, func(s string) { d.out.linef("warning: %s", s) })
	return d
}

// Identity is the name this driver holds leases with.
func (d *Driver) Identity() string { return d.identity }

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

func (d *Driver) ref() string { return fmt.Sprintf("deployment %s/%s", d.opts.Namespace, d.opts.Name) }

func (d *Driver) read(ctx context.Context) (*Snapshot, error) {
	st, err := cluster.LoadLive(ctx, d.client, d.opts.Namespace, d.opts.Name)
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
	st, err := cluster.LoadLive(ctx, d.client, d.opts.Namespace, d.opts.Name)
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
		same := target != nil && planner.EqualIgnoreHash(&target.Spec.Template, &d.opts.Desired.Spec.Template)
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
	if r := ptrDeref(snap.Deployment.Spec.Replicas, 1); r != s.Replicas && !s.PendingReplicas {
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

// stepTimeout is a step whose pods did not become available in time.
type stepTimeout struct {
	rs     string
	want   int32
	have   int32
	waited time.Duration
	pods   []string
	msg    string // instead of the availability message
}

func (e *stepTimeout) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("ReplicaSet %s has %d of %d pods available after %s", e.rs, e.have, e.want, e.waited.Round(time.Second))
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
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var err error
	if d.view, err = startView(ctx, d.client, p.Snapshot.Deployment); err != nil {
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
				d.out.linef("%s: nothing changed", d.ref())
				return &Result{Outcome: OutcomeNotStarted, Duration: d.now().Sub(began)}, nil
			}
			d.confirmed = true
		}
		if err := d.takeover(ctx, p.Takeover); err != nil {
			return nil, err
		}
	} else if err := d.acquire(ctx, p.Snapshot); err != nil {
		return nil, err
	}
	d.cancelRun = cancel
	d.startRenew(ctx)
	defer func() { d.stopRenew() }()

	if d.opts.Abort && d.state.Phase != PhaseAbort {
		if err := d.startAbort(ctx); err != nil {
			return nil, d.stopped(ctx, err)
		}
	}
	res, err := d.loop(ctx)
	if res != nil {
		res.Duration = d.now().Sub(began)
		res.StepsRun = d.stepsRun
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
		return res, d.stopped(ctx, err)
	}
	return res, nil
}

// loop reads, checks and makes the next step until the rollout is complete or holds.
func (d *Driver) loop(ctx context.Context) (*Result, error) {
	needBake := false
	for {
		snap, err := d.read(ctx)
		if err != nil {
			return nil, err
		}
		if err := d.check(ctx, snap); err != nil {
			return nil, err
		}
		b := d.state.Bounds()
		start := snap.Start()
		rest, err := PlanSteps(b, start)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.ref(), err)
		}
		if len(rest) == 0 {
			res, err := d.finish(ctx)
			if errors.Is(err, errReplan) {
				continue
			}
			return res, err
		}
		step := rest[0]
		done := max(d.state.Step, d.state.Steps-len(rest))
		if done+len(rest) != d.state.Steps || done != d.state.Step {
			if err := d.writeState(ctx, func(s *State) { s.Step, s.Steps = done, done+len(rest) }); err != nil {
				return nil, err
			}
		}
		number, of := done+1, done+len(rest)
		if reason := d.holdReason(done); reason != "" {
			return d.hold(ctx, reason)
		}
		if needBake && d.opts.Interval > 0 {
			d.out.linef("baking %s before step %d/%d", d.opts.Interval, number, of)
			if err := d.sleep(ctx, d.opts.Interval); err != nil {
				return nil, err
			}
			needBake = false
			continue // read again after the bake
		}
		needBake = false
		if d.opts.Confirm != nil && !d.confirmed {
			ans, err := d.opts.Confirm(ctx, StepInfo{Number: number, Of: of, Step: step, Bounds: b, Phase: d.state.Phase})
			if err != nil {
				return nil, err
			}
			switch ans {
			case AnswerHold:
				return d.hold(ctx, fmt.Sprintf("held at the prompt before step %d/%d", number, of))
			case AnswerAbort:
				if d.state.Phase == PhaseAbort {
					return d.hold(ctx, "abort asked during an abort: held")
				}
				if err := d.startAbort(ctx); err != nil {
					return nil, err
				}
				d.confirmed = true // the abort answer confirms the first step back
				continue
			}
		}
		d.confirmed = false
		err = d.runStep(ctx, snap, step, number, of)
		var to *stepTimeout
		switch {
		case errors.Is(err, errReplan):
			continue
		case errors.As(err, &to):
			d.out.linef("step %d/%d: %v", number, of, to)
			if len(to.pods) > 0 {
				d.out.linef("pods not available:")
			}
			for _, p := range to.pods {
				d.out.linef("  %s", p)
			}
			return d.hold(ctx, fmt.Sprintf("step %d/%d timed out: %v", number, of, to))
		case err != nil:
			return nil, err
		}
		d.stepsRun++
		if err := d.writeState(ctx, func(s *State) { s.Step = number; s.Steps = max(s.Steps, number) }); err != nil {
			return nil, err
		}
		needBake = true
	}
}

// startRenew starts renewing the lease in the background (stopRenew stops it).
func (d *Driver) startRenew(ctx context.Context) {
	done := make(chan struct{})
	rctx, stop := context.WithCancel(ctx)
	go func() {
		defer close(done)
		d.renewLoop(rctx, d.cancelRun)
	}()
	d.stopRenew = func() { stop(); <-done }
}

// holdReason says why the run stops before the step after done, "" to go on.
func (d *Driver) holdReason(done int) string {
	switch {
	case d.opts.Steps > 0 && d.stepsRun >= d.opts.Steps:
		return fmt.Sprintf("--steps %d done (at step %d)", d.opts.Steps, done)
	case d.opts.UntilStep > 0 && done >= d.opts.UntilStep:
		return fmt.Sprintf("--until-step %d reached", d.opts.UntilStep)
	}
	return ""
}

func (d *Driver) sleep(ctx context.Context, t time.Duration) error {
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-timer.C:
		return nil
	}
}

// runStep makes one step: scale the target up (or create it), wait for its pods, then scale
// old ReplicaSets down with the availability there is.
func (d *Driver) runStep(ctx context.Context, snap *Snapshot, step Step, number, of int) error {
	began := time.Now()
	target := snap.ReplicaSet(step.New.Name)
	if step.Create || step.New.To > step.New.From {
		// The bound counts pods: the pods of earlier scale-downs must be gone (terminating)
		// before new ones are added, or the two ReplicaSets' pods overlap for a moment.
		if err := d.waitScaledDown(ctx, step.New.Name, number, of); err != nil {
			return err
		}
	}
	var gen int64
	switch {
	case step.Create:
		rs, err := d.createNewRS(ctx, snap, step.New.To, number, of)
		if err != nil {
			return err
		}
		target, gen = rs, rs.Generation
	case step.New.From != step.New.To:
		rs, err := d.scale(ctx, target, step.New.From, step.New.To, number, of)
		if err != nil {
			return err
		}
		target, gen = rs, rs.Generation
	default:
		gen = target.Generation
	}
	if err := d.pendingReplicas(ctx); err != nil {
		return err
	}
	if err := d.waitAvailable(ctx, target.Name, gen, step.WaitAvailable, number, of, began); err != nil {
		return err
	}
	snap, err := d.read(ctx)
	if err != nil {
		return err
	}
	if err := d.check(ctx, snap); err != nil {
		return err
	}
	start := snap.Start()
	if start.New.Replicas != step.New.To || start.New.available() < step.WaitAvailable {
		return errReplan
	}
	b := d.state.Bounds()
	olds, _ := scaleDownOld(b, start)
	for i, o := range olds {
		if o.Replicas == start.Old[i].Replicas {
			continue
		}
		if _, err := d.scale(ctx, snap.ReplicaSet(o.Name), start.Old[i].Replicas, o.Replicas, number, of); err != nil {
			return err
		}
	}
	after := Start{New: start.New, NewExists: true, Old: olds}
	d.out.linef("step %d/%d done in %s: %s; pods %d, available %d (bounds: at most %d pods, at least %d available)",
		number, of, time.Since(began).Round(10*time.Millisecond), describeCounts(after), after.pods(), after.available(), b.MaxPods(), b.MinAvailable())
	return nil
}

// waitScaledDown waits (watch) until every ReplicaSet but target has no more pods than its
// spec.replicas, as its status reports them once the ReplicaSet controller has seen the
// driver's last write (status.replicas does not count terminating pods).
func (d *Driver) waitScaledDown(ctx context.Context, target string, number, of int) error {
	var waitingFor string
	cond := func() (bool, error) {
		if err := d.interrupted(); err != nil {
			return false, err
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		for name := range d.lastWritten {
			rs := d.view.replicaSet(name)
			if name == target || rs == nil {
				continue
			}
			if rs.Generation < d.written[name] || rs.Status.ObservedGeneration < rs.Generation || rs.Status.Replicas > replicas(rs) {
				waitingFor = fmt.Sprintf("%s has %d pods, %d wanted", name, rs.Status.Replicas, replicas(rs))
				return false, nil
			}
		}
		return true, nil
	}
	tick := func(w time.Duration) {
		d.out.statusf("step %d/%d: waiting for old pods to go: %s (%s)", number, of, waitingFor, w.Round(time.Second))
	}
	err := d.view.wait(ctx, d.progressTimeout(), cond, tick)
	if errors.Is(err, errTimeout) {
		return &stepTimeout{msg: fmt.Sprintf("old pods are not going away: %s", waitingFor)}
	}
	return err
}

func describeCounts(s Start) string {
	parts := []string{fmt.Sprintf("%s %d/%d", s.New.Name, s.New.available(), s.New.Replicas)}
	for _, o := range s.Old {
		parts = append(parts, fmt.Sprintf("%s %d/%d", o.Name, o.available(), o.Replicas))
	}
	return strings.Join(parts, ", ")
}

// waitAvailable waits (watch) until ReplicaSet name, at generation gen or later, reports
// want available pods, or something changes that needs a re-plan.
func (d *Driver) waitAvailable(ctx context.Context, name string, gen int64, want int32, number, of int, began time.Time) error {
	timeout := d.progressTimeout()
	var have int32
	cond := func() (bool, error) {
		if err := d.interrupted(); err != nil {
			return false, err
		}
		rs := d.view.replicaSet(name)
		if rs == nil {
			return false, nil
		}
		have = rs.Status.AvailableReplicas
		return rs.Generation >= gen && rs.Status.ObservedGeneration >= rs.Generation && have >= want, nil
	}
	tick := func(waited time.Duration) {
		d.out.statusf("step %d/%d: waiting for %s: %d/%d available (%s)", number, of, name, have, want, waited.Round(time.Second))
	}
	err := d.view.wait(ctx, timeout, cond, tick)
	if errors.Is(err, errTimeout) {
		return &stepTimeout{rs: name, want: want, have: have, waited: time.Since(began), pods: d.unavailablePods(ctx, name)}
	}
	return err
}

// progressTimeout is --progress-timeout, or the Deployment's progressDeadlineSeconds
// (600 s when unset).
func (d *Driver) progressTimeout() time.Duration {
	if d.opts.ProgressTimeout > 0 {
		return d.opts.ProgressTimeout
	}
	if p := d.deployment().Spec.ProgressDeadlineSeconds; p != nil {
		return time.Duration(*p) * time.Second
	}
	return 600 * time.Second
}

// interrupted checks the watched Deployment and ReplicaSets for a change that needs the
// loop to read and re-plan: a spec edit, a replicas change, the hold lost, a ReplicaSet
// scaled by someone else.
func (d *Driver) interrupted() error {
	dep := d.view.deployment()
	if dep == nil {
		return errReplan
	}
	d.mu.Lock()
	s := d.state
	d.mu.Unlock()
	if dep.Generation > s.Generation || ptrDeref(dep.Spec.Replicas, 1) != s.Replicas {
		return errReplan
	}
	cur, err := ReadState(dep)
	if err != nil || cur == nil || cur.PlanID != s.PlanID || (cur.Holder != "" && cur.Holder != d.identity) {
		return errReplan
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for name, want := range d.lastWritten {
		rs := d.view.replicaSet(name)
		if rs != nil && replicas(rs) != want && rs.Generation >= d.written[name] {
			return errReplan
		}
	}
	return nil
}

// unavailablePods lists the pods of ReplicaSet name that are not ready, with why.
func (d *Driver) unavailablePods(ctx context.Context, name string) []string {
	rs := d.view.replicaSet(name)
	if rs == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return nil
	}
	pods, err := d.client.CoreV1().Pods(rs.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return []string{fmt.Sprintf("(list pods: %v)", err)}
	}
	var out []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || podReady(&p) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s", p.Name, podProblem(&p)))
	}
	return out
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podProblem says in a few words why p is not ready.
func podProblem(p *corev1.Pod) string {
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return fmt.Sprintf("%s, container %s waiting: %s %s", p.Status.Phase, cs.Name, w.Reason, w.Message)
		}
		if t := cs.State.Terminated; t != nil {
			return fmt.Sprintf("%s, container %s terminated: %s (exit %d)", p.Status.Phase, cs.Name, t.Reason, t.ExitCode)
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue && (c.Reason != "" || c.Message != "") {
			return strings.TrimSpace(fmt.Sprintf("%s, %s: %s %s", p.Status.Phase, c.Type, c.Reason, c.Message))
		}
	}
	if p.Spec.NodeName == "" {
		return fmt.Sprintf("%s, not scheduled", p.Status.Phase)
	}
	return fmt.Sprintf("%s, not ready", p.Status.Phase)
}

// deployment returns the Deployment as last read or written.
func (d *Driver) deployment() *appsv1.Deployment {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dep
}

// scale writes rs's spec.replicas from -> to (guarded), records it and an Event.
func (d *Driver) scale(ctx context.Context, rs *appsv1.ReplicaSet, from, to int32, number, of int) (*appsv1.ReplicaSet, error) {
	if rs == nil {
		return nil, errReplan
	}
	if err := d.leaseOK(); err != nil {
		return nil, err
	}
	var extra []patchOp
	if _, ok := rs.Annotations[planner.DesiredReplicasAnnotation]; ok && rs.Name == d.targetName() && to > from {
		// A desired-replicas annotation on the target would let the paused controller see
		// it saturated (IsSaturated) and scale the others to 0 before drive does.
		extra = append(extra, removeOp(annotationPath(planner.DesiredReplicasAnnotation)))
	}
	out, err := scaleReplicaSet(ctx, d.client, rs, from, to, extra...)
	if errors.Is(err, ErrGuard) {
		return nil, errReplan
	}
	if err != nil {
		return nil, err
	}
	d.recordWrite(out)
	dir := "up"
	if to < from {
		dir = "down"
	}
	d.out.linef("step %d/%d: scaled %s %s from %d to %d", number, of, dir, rs.Name, from, to)
	d.ev.emit(ctx, d.deployment(), corev1.EventTypeNormal, ReasonScaled, "Scaled %s replica set %s from %d to %d (step %d/%d, %s)", dir, rs.Name, from, to, number, of, d.phaseWord())
	return out, nil
}

func (d *Driver) phaseWord() string {
	if d.state.Phase == PhaseAbort {
		return "abort"
	}
	return "drive"
}

func (d *Driver) targetName() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state.Phase == PhaseAbort {
		return d.state.PreviousReplicaSet
	}
	return d.state.NewReplicaSet
}

func (d *Driver) recordWrite(rs *appsv1.ReplicaSet) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lastWritten[rs.Name] = replicas(rs)
	if d.written == nil {
		d.written = map[string]int64{}
	}
	d.written[rs.Name] = rs.Generation
}

// createNewRS creates the new ReplicaSet from the Deployment the API server returned, as
// the controller would (getNewReplicaSet, pkg/controller/deployment/sync.go, v1.36.3) but
// with n replicas and without the desired-replicas and max-replicas annotations.
func (d *Driver) createNewRS(ctx context.Context, snap *Snapshot, n int32, number, of int) (*appsv1.ReplicaSet, error) {
	if err := d.leaseOK(); err != nil {
		return nil, err
	}
	dep := snap.Deployment
	s := d.state
	hash := planner.ComputeHash(&dep.Spec.Template, dep.Status.CollisionCount)
	if hash != s.TargetHash {
		return nil, &StoppedError{Msg: fmt.Sprintf("%s: the template's hash is %s, the drive's target is %s: the template or status.collisionCount changed while held; see `kubectl rollplan drive status deploy/%s`", d.ref(), hash, s.TargetHash, d.opts.Name)}
	}
	rs := newReplicaSetFor(dep, hash, max(s.Revision, maxRevision(snap.ReplicaSets, "")+1), n)
	out, err := d.client.AppsV1().ReplicaSets(dep.Namespace).Create(ctx, rs, metav1.CreateOptions{FieldManager: FieldManager})
	if apierrors.IsAlreadyExists(err) {
		got, gerr := d.client.AppsV1().ReplicaSets(dep.Namespace).Get(ctx, rs.Name, metav1.GetOptions{})
		if gerr != nil {
			return nil, fmt.Errorf("get replicaset %s/%s: %w", dep.Namespace, rs.Name, gerr)
		}
		if c := metav1.GetControllerOfNoCopy(got); c == nil || c.UID != dep.UID || !planner.EqualIgnoreHash(&got.Spec.Template, &dep.Spec.Template) {
			return nil, &StoppedError{Msg: fmt.Sprintf("%s: ReplicaSet %s exists with another owner or template (a hash collision): hand back with kubectl rollplan resume and let the controller roll out", d.ref(), rs.Name)}
		}
		return nil, errReplan
	}
	if err != nil {
		return nil, fmt.Errorf("create replicaset %s/%s: %w", dep.Namespace, rs.Name, err)
	}
	d.recordWrite(out)
	d.out.linef("step %d/%d: created %s (revision %s) with %s", number, of, out.Name, out.Annotations[planner.RevisionAnnotation], replicaWord(n))
	d.ev.emit(ctx, dep, corev1.EventTypeNormal, ReasonCreated, "Created replica set %s with %s (step %d/%d, drive)", out.Name, replicaWord(n), number, of)
	return out, nil
}

func replicaWord(n int32) string {
	if n == 1 {
		return "1 replica"
	}
	return fmt.Sprintf("%d replicas", n)
}

// newReplicaSetFor builds the new ReplicaSet of dep: name <deployment>-<hash>, the template
// with the pod-template-hash label, the selector with it, a controller ownerReference, the
// Deployment's annotations but the skipped ones, and the revision.
func newReplicaSetFor(dep *appsv1.Deployment, hash string, revision int64, n int32) *appsv1.ReplicaSet {
	tmpl := dep.Spec.Template.DeepCopy()
	labels := map[string]string{}
	for k, v := range tmpl.Labels {
		labels[k] = v
	}
	labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	tmpl.Labels = labels
	sel := dep.Spec.Selector.DeepCopy()
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	sel.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	ann := map[string]string{}
	for k, v := range dep.Annotations {
		if !skipCopyAnnotation(k) {
			ann[k] = v
		}
	}
	ann[planner.RevisionAnnotation] = fmt.Sprint(revision)
	rsLabels := map[string]string{}
	for k, v := range labels {
		rsLabels[k] = v
	}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            planner.ReplicaSetName(dep.Name, hash),
			Namespace:       dep.Namespace,
			Labels:          rsLabels,
			Annotations:     ann,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(dep, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        &n,
			MinReadySeconds: dep.Spec.MinReadySeconds,
			Selector:        sel,
			Template:        *tmpl,
		},
	}
}

// skipCopyAnnotation mirrors deploymentutil's annotationsToSkip (v1.36.3).
func skipCopyAnnotation(key string) bool {
	switch key {
	case corev1.LastAppliedConfigAnnotation, planner.RevisionAnnotation, planner.RevisionHistoryAnnotation,
		planner.DesiredReplicasAnnotation, planner.MaxReplicasAnnotation, appsv1.DeprecatedRollbackTo:
		return true
	}
	return false
}

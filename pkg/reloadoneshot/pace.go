package reloadoneshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/reload"
	"github.com/rollplan/kubectl-rollplan/pkg/watch"
)

// ErrNotStarted is matched (errors.Is) by the Result error of a restart that was not
// started because an earlier one failed or timed out (pacing stops rather than storm).
var ErrNotStarted = errors.New("not started")

// RunOptions say how Restart writes and paces.
type RunOptions struct {
	// MaxConcurrent is how many rollouts may be in flight at once (--max-concurrent, 1 or
	// more).
	MaxConcurrent int
	// Timeout bounds the wait for one rollout to complete (--timeout; 0: 10 minutes).
	Timeout time.Duration
	// Write is the field manager and dry run of the patches (kube.Options): with DryRun,
	// the server checks each patch and nothing waits.
	Write kube.Options
	// Drive, when set, walks each restart with drive instead of patching and waiting (the
	// caller builds the driver: prompts, interval); it returns when the rollout is handed
	// back complete, or an error.
	Drive func(ctx context.Context, t *Target) error
	// Progress receives one line per write and per completed rollout (nil: discarded).
	Progress io.Writer
	// Now is the clock of the waits (nil: time.Now).
	Now func() time.Time
}

// Result is what Restart did with one Target.
type Result struct {
	Target *Target
	// Written is the Deployment the server answered with (with Write.DryRun: would store).
	Written *appsv1.Deployment
	// Err is the failure of this Target (nil: done): a write's, a rollout that did not
	// complete in time, or ErrNotStarted.
	Err error
}

// Restart makes each Target's write: ActionAdopt records its checksums (AdoptPatch, no
// wait); ActionRestart restarts it (RestartPatch, or Drive), at most MaxConcurrent
// rollouts in flight: a slot is taken before the patch and given back only when the
// controller reports that rollout complete, so a ConfigMap shared by fifty Deployments
// rolls N at a time. Targets start in order. After a failure no further restart starts
// (each gets ErrNotStarted); the writes already made stand. Targets with other actions are
// skipped (no Result). Results are in the order of targets.
func Restart(ctx context.Context, client kubernetes.Interface, targets []*Target, o RunOptions) []Result {
	if o.MaxConcurrent < 1 {
		o.MaxConcurrent = 1
	}
	p := &pacer{client: client, o: o, slots: make(chan struct{}, o.MaxConcurrent)}
	var work []*Target
	for _, t := range targets {
		if t.Action == reload.ActionAdopt || t.Action == reload.ActionRestart {
			work = append(work, t)
		}
	}
	results := make([]Result, len(work))
	var wg sync.WaitGroup
	for i, t := range work {
		results[i].Target = t
		if t.Action == reload.ActionAdopt {
			results[i].Written, results[i].Err = p.adopt(ctx, t)
			continue
		}
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			results[i].Err = fmt.Errorf("restart of deployment %s %w: %w", t.Name(), ErrNotStarted, context.Cause(ctx))
			continue
		}
		if p.stopped() {
			<-p.slots
			results[i].Err = fmt.Errorf("restart of deployment %s %w: an earlier restart failed or timed out", t.Name(), ErrNotStarted)
			continue
		}
		wg.Add(1)
		go func(r *Result) {
			defer wg.Done()
			defer func() { <-p.slots }()
			r.Written, r.Err = p.restart(ctx, r.Target)
			if r.Err != nil {
				p.stop()
			}
		}(&results[i])
	}
	wg.Wait()
	return results
}

// pacer holds the slots of the rollouts in flight and whether pacing stopped.
type pacer struct {
	client kubernetes.Interface
	o      RunOptions
	slots  chan struct{}
	mu     sync.Mutex
	failed bool
}

func (p *pacer) stop() { p.mu.Lock(); p.failed = true; p.mu.Unlock() }

func (p *pacer) stopped() bool { p.mu.Lock(); defer p.mu.Unlock(); return p.failed }

func (p *pacer) linef(format string, args ...any) {
	if p.o.Progress != nil {
		p.mu.Lock()
		fmt.Fprintf(p.o.Progress, format+"\n", args...)
		p.mu.Unlock()
	}
}

// adopt sends AdoptPatch, renewed on the current resourceVersion when only the status moved.
func (p *pacer) adopt(ctx context.Context, t *Target) (*appsv1.Deployment, error) {
	dep := t.State.Deployment
	body, err := reload.AdoptPatch(dep, t.Decision.Checksums)
	if err != nil {
		return nil, err
	}
	renew := func(rv string) ([]byte, error) { return reload.AdoptPatchAt(dep, t.Decision.Checksums, rv) }
	out, err := kube.PatchDeploymentGuarded(ctx, p.client, dep,
		kube.GuardedPatch{Type: types.JSONPatchType, Body: body, ResourceVersion: dep.ResourceVersion, Renew: renew}, p.o.Write)
	if err != nil {
		return nil, writeError(t, "adopt", err)
	}
	return out, nil
}

// restart patches (or drives) t and waits for its rollout to complete.
func (p *pacer) restart(ctx context.Context, t *Target) (*appsv1.Deployment, error) {
	if p.o.Drive != nil && !p.o.Write.DryRun {
		if err := p.o.Drive(ctx, t); err != nil {
			return nil, fmt.Errorf("drive the restart of deployment %s: %w", t.Name(), err)
		}
		return nil, nil
	}
	dep := t.State.Deployment
	body, err := reload.RestartPatch(dep, t.Decision.Checksums)
	if err != nil {
		return nil, err
	}
	out, err := kube.PatchDeploymentGuarded(ctx, p.client, dep,
		kube.GuardedPatch{Type: types.JSONPatchType, Body: body, ResourceVersion: dep.ResourceVersion}, p.o.Write)
	if err != nil {
		return nil, writeError(t, "restart", err)
	}
	if p.o.Write.DryRun {
		return out, nil
	}
	p.linef("deployment.apps/%s restarted (namespace %s): %s", dep.Name, dep.Namespace, t.changed())
	if err := p.waitComplete(ctx, out); err != nil {
		return out, err
	}
	return out, nil
}

// changed names the references a restart is for.
func (t *Target) changed() string {
	var names []string
	for _, s := range t.Decision.Refs {
		if s.State == reload.Changed || (s.State == reload.Missing && s.Ref.Optional) || s.State == reload.Unrecorded {
			names = append(names, s.Ref.AnnotationKey()+" "+string(s.State))
		}
	}
	if len(names) == 0 {
		return "config unchanged"
	}
	return fmt.Sprint(names)
}

// waitComplete waits until the controller has observed dep's generation and reports the
// rollout complete, as `kubectl rollout status` decides (watch.RolloutComplete).
func (p *pacer) waitComplete(ctx context.Context, dep *appsv1.Deployment) error {
	timeout := p.o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	c, err := watch.ForDeployment(ctx, p.client, dep, p.o.Now)
	if err != nil {
		return err
	}
	defer c.Close()
	var msg string
	cond := func() (bool, error) {
		now := c.Deployment(dep.Name)
		if now == nil {
			return false, fmt.Errorf("deployment %s/%s was deleted during its rollout", dep.Namespace, dep.Name)
		}
		m, done, err := watch.RolloutComplete(now, dep.Generation)
		msg = m
		return done, err
	}
	err = c.Wait(ctx, timeout, cond, nil)
	if errors.Is(err, watch.ErrTimeout) {
		return fmt.Errorf("the rollout of deployment %s/%s did not complete within %s (--timeout): %s; no further restart was started", dep.Namespace, dep.Name, timeout, trimNL(msg))
	}
	if err != nil {
		return fmt.Errorf("wait for the rollout of deployment %s/%s: %w", dep.Namespace, dep.Name, err)
	}
	p.linef("deployment.apps/%s rollout complete (namespace %s)", dep.Name, dep.Namespace)
	return nil
}

func writeError(t *Target, what string, err error) error {
	if errors.Is(err, kube.ErrGuard) {
		return fmt.Errorf("%s deployment %s: it changed after it was read (%w): nothing was written; run reload again", what, t.Name(), err)
	}
	return fmt.Errorf("%s deployment %s: %w", what, t.Name(), err)
}

func trimNL(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}

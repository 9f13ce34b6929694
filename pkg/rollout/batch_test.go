package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
)

// batchRun records what a Batch asked of its functions, in order.
type batchRun struct {
	log []string
	// previewErr and applyErr fail those Deployments (by name).
	previewErr, applyErr map[string]error
	answer               bool
	confirmErr           error
	// cancelAfter cancels the context after that Deployment's write.
	cancelAfter string
	cancel      context.CancelFunc
}

func (r *batchRun) batch() rollout.Batch[string] {
	return rollout.Batch[string]{
		Preview: func(_ context.Context, o rollout.Object) (string, error) {
			r.log = append(r.log, "preview "+o.Name)
			return o.Name, r.previewErr[o.Name]
		},
		Previewed: func(ready []string) error {
			r.log = append(r.log, "previewed "+strings.Join(ready, ","))
			return nil
		},
		Confirm: func(ready []rollout.Object, failed int) (bool, error) {
			var names []string
			for _, o := range ready {
				names = append(names, o.Name)
			}
			r.log = append(r.log, fmt.Sprintf("confirm %s (%d failed)", strings.Join(names, ","), failed))
			return r.answer, r.confirmErr
		},
		Apply: func(_ context.Context, name string) (string, error) {
			r.log = append(r.log, "apply "+name)
			if name == r.cancelAfter {
				r.cancel()
			}
			if err := r.applyErr[name]; err != nil {
				return "", err
			}
			return "restarted", nil
		},
		Report: func(res rollout.Result) {
			if res.Err != nil {
				r.log = append(r.log, fmt.Sprintf("report %s: %v", res.Name, res.Err))
				return
			}
			r.log = append(r.log, fmt.Sprintf("report %s %s", res.Name, res.Operation))
		},
	}
}

func objects(names ...string) []rollout.Object {
	var out []rollout.Object
	for _, n := range names {
		out = append(out, rollout.Object{Namespace: "shop", Name: n})
	}
	return out
}

func TestBatch(t *testing.T) {
	notFound := errors.New(`deployments.apps "b" not found in namespace "shop"`)
	noRevision := errors.New("unable to find specified revision 7 in history")
	for _, tc := range []struct {
		name        string
		run         batchRun
		wantLog     []string
		wantOps     []string // Operation of each Result, "!" for an error
		wantErr     error
		wantSummary string
	}{
		{
			name: "all previewed, confirmed once, all written in order",
			run:  batchRun{answer: true},
			wantLog: []string{"preview a", "preview b", "preview c", "previewed a,b,c", "confirm a,b,c (0 failed)",
				"apply a", "report a restarted", "apply b", "report b restarted", "apply c", "report c restarted"},
			wantOps: []string{"restarted", "restarted", "restarted"},
		},
		{
			name: "a failed preview is reported at once and left out; the rest are confirmed and written",
			run:  batchRun{answer: true, previewErr: map[string]error{"b": notFound}},
			wantLog: []string{"preview a", "preview b", "report b: " + notFound.Error(), "preview c", "previewed a,c",
				"confirm a,c (1 failed)", "apply a", "report a restarted", "apply c", "report c restarted"},
			wantOps:     []string{"restarted", "!", "restarted"},
			wantSummary: "restart failed for 1 of 3 Deployments: deployment.apps/b",
		},
		{
			name: "a failed write does not stop the others",
			run:  batchRun{answer: true, applyErr: map[string]error{"a": kube.ErrGuard, "c": noRevision}},
			wantLog: []string{"preview a", "preview b", "preview c", "previewed a,b,c", "confirm a,b,c (0 failed)",
				"apply a", "report a: " + kube.ErrGuard.Error(), "apply b", "report b restarted", "apply c", "report c: " + noRevision.Error()},
			wantOps:     []string{"!", "restarted", "!"},
			wantSummary: "restart failed for 2 of 3 Deployments: deployment.apps/a, deployment.apps/c",
		},
		{
			name:    "declined: nothing is written",
			run:     batchRun{answer: false},
			wantLog: []string{"preview a", "preview b", "preview c", "previewed a,b,c", "confirm a,b,c (0 failed)"},
			wantOps: []string{"", "", ""},
			wantErr: rollout.ErrDeclined,
		},
		{
			name:    "the confirmation's error: nothing is written",
			run:     batchRun{confirmErr: context.Canceled},
			wantLog: []string{"preview a", "preview b", "preview c", "previewed a,b,c", "confirm a,b,c (0 failed)"},
			wantOps: []string{"", "", ""},
			wantErr: context.Canceled,
		},
		{
			name: "every preview failed: nothing to confirm",
			run:  batchRun{answer: true, previewErr: map[string]error{"a": notFound, "b": notFound, "c": notFound}},
			wantLog: []string{"preview a", "report a: " + notFound.Error(), "preview b", "report b: " + notFound.Error(),
				"preview c", "report c: " + notFound.Error()},
			wantOps:     []string{"!", "!", "!"},
			wantSummary: "restart failed for 3 of 3 Deployments: deployment.apps/a, deployment.apps/b, deployment.apps/c",
		},
		{
			name: "cancelled while writing: the rest are not written and fail with the context's error",
			run:  batchRun{answer: true, cancelAfter: "a"},
			wantLog: []string{"preview a", "preview b", "preview c", "previewed a,b,c", "confirm a,b,c (0 failed)",
				"apply a", "report a restarted", "report b: context canceled", "report c: context canceled"},
			wantOps:     []string{"restarted", "!", "!"},
			wantSummary: "restart failed for 2 of 3 Deployments: deployment.apps/b, deployment.apps/c",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			run := tc.run
			run.cancel = cancel
			results, err := run.batch().Run(ctx, objects("a", "b", "c"))
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if d := cmp.Diff(tc.wantLog, run.log); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			var ops []string
			for i, r := range results {
				if r.Object != objects("a", "b", "c")[i] {
					t.Errorf("result %d is of %v", i, r.Object)
				}
				if r.Err != nil {
					ops = append(ops, "!")
					continue
				}
				ops = append(ops, r.Operation)
			}
			if d := cmp.Diff(tc.wantOps, ops); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			summary := results.Err("restart")
			if tc.wantSummary == "" {
				if summary != nil {
					t.Errorf("Results.Err = %v, want nil", summary)
				}
				return
			}
			if summary == nil || summary.Error() != tc.wantSummary {
				t.Errorf("Results.Err = %v, want %q", summary, tc.wantSummary)
			}
		})
	}
}

// TestBatchErrorUnwraps: the error of a batch matches each Deployment's own error.
func TestBatchErrorUnwraps(t *testing.T) {
	results := rollout.Results{
		{Object: rollout.Object{Name: "a"}, Err: fmt.Errorf("patch: %w", kube.ErrGuard)},
		{Object: rollout.Object{Name: "b"}, Operation: "paused"},
	}
	err := results.Err("pause")
	if !errors.Is(err, kube.ErrGuard) {
		t.Errorf("%v does not match kube.ErrGuard", err)
	}
	if got := err.Error(); got != "pause failed for 1 of 2 Deployments: deployment.apps/a" {
		t.Error(got)
	}
	one := rollout.Results{{Object: rollout.Object{Name: "a"}, Err: kube.ErrGuard}}
	if got := one.Err("undo").Error(); got != "undo failed for 1 of 1 Deployment: deployment.apps/a" {
		t.Error(got)
	}
	if len(results.Failed()) != 1 || results.Failed()[0].Name != "a" {
		t.Errorf("Failed: %v", results.Failed())
	}
}

// TestBatchWithoutConfirm: a Batch without Confirm (one Deployment, a dry run, --yes)
// previews and writes without asking; without Previewed and Report nothing else is called.
func TestBatchWithoutConfirm(t *testing.T) {
	var applied []string
	b := rollout.Batch[string]{
		Preview: func(_ context.Context, o rollout.Object) (string, error) { return o.Name, nil },
		Apply: func(_ context.Context, s string) (string, error) {
			applied = append(applied, s)
			return "paused", nil
		},
	}
	results, err := b.Run(context.Background(), objects("a", "b"))
	if err != nil || results.Err("pause") != nil || !cmp.Equal(applied, []string{"a", "b"}) {
		t.Errorf("results %v, error %v, applied %v", results, err, applied)
	}
}

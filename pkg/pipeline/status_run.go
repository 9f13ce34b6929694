package pipeline

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/status"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// The status verb's selection and its read of several contexts (kubectl-rollplan status -l,
// --contexts): pkg/cmd fills the flags, these make status.Config and read it; pkg/printer
// shows the result.

// StatusConfig returns cfg (the flags: Watch, Timeout, FailFast ...) completed for sel:
// the timing of --pod-ready-after and --sync-latency (SetStatusTiming) and the Deployments,
// a label selector over sel.Scope() when sel is Bulk (-l, --all; -A: every namespace), else
// the names of sel (resolved without a request) in their namespace. Errors: the timing
// values', a bad -l ("-l SELECTOR: ..."), Resolve's.
func StatusConfig(sel *target.Selection, cfg status.Config, podReadyAfter, syncLatency string) (status.Config, error) {
	cfg.Namespace = sel.Namespace
	if err := SetStatusTiming(&cfg, podReadyAfter, syncLatency); err != nil {
		return cfg, err
	}
	if sel.Bulk() {
		ls, err := labels.Parse(sel.Scope().LabelSelector)
		if err != nil {
			return cfg, fmt.Errorf("-l %s: %w", sel.Selector, err)
		}
		cfg.Namespace, cfg.Selector = sel.Scope().Namespace, ls // -A: metav1.NamespaceAll
		return cfg, nil
	}
	refs, err := sel.Resolve(context.Background()) // names: no request
	if err != nil {
		return cfg, err
	}
	for _, r := range refs {
		cfg.Namespace = r.Namespace
		cfg.Names = append(cfg.Names, r.Name)
	}
	return cfg, nil
}

// ContextStatus is what one context's read gave: its statuses, or why it could not be read.
type ContextStatus struct {
	Context  string
	Statuses []*status.Status
	Err      error
}

// ReadContextsStatus reads cfg once in every context at the same time (ReadContextStatus,
// each bounded by StatusContextTimeout) and returns one ContextStatus per context, in the
// order of names. srcs and errs are the contexts' Sources (nil where errs says why there is
// none; that context is not read). checks is --checks (StatusChecks, per context). With
// ownNamespace (no -n, no -A) each context reads its own namespace (its kubeconfig's), else
// cfg.Namespace.
func ReadContextsStatus(ctx context.Context, names []string, srcs []*Live, errs []error, cfg status.Config, checks string, ownNamespace bool) []ContextStatus {
	results := make([]ContextStatus, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		results[i] = ContextStatus{Context: names[i], Err: errs[i]}
		if src == nil {
			continue
		}
		c := cfg // -A: every namespace; -n: its; else the context's own
		if ownNamespace && src.Namespace != "" {
			c.Namespace = src.Namespace
		}
		c.Feasible = StatusChecks(checks, src.Client)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].Statuses, results[i].Err = ReadContextStatus(ctx, src, c)
		}()
	}
	wg.Wait()
	return results
}

// FollowStatus is status.Follow of cfg through client (show called at every change), with
// checks (--checks: StatusChecks, their objects read through client once) run on each
// rollout's remaining plan. It returns the last statuses and whether cfg.Timeout passed.
func FollowStatus(ctx context.Context, client kubernetes.Interface, cfg status.Config, checks string, show func([]*status.Status) error) ([]*status.Status, bool, error) {
	cfg.Feasible = StatusChecks(checks, func() (kubernetes.Interface, error) { return client, nil })
	return status.Follow(ctx, client, cfg, show)
}

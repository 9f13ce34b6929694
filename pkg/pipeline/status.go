package pipeline

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/estimate"
	"github.com/rollplan/kubectl-rollplan/pkg/feasibility"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
	"github.com/rollplan/kubectl-rollplan/pkg/status"
)

// The status verb's reads (kubectl-rollplan status): the feasibility checks on the remaining
// plan and the bounded one-shot read of one context of several. pkg/cmd fills status.Config and
// prints what these return.

// StatusContextTimeout bounds the read of one context of several (its watch cache's first
// LISTs): a cluster that answers the first request but not the LISTs is reported then.
const StatusContextTimeout = 30 * time.Second

// ReadContextStatus reads the statuses cfg selects in src once. The cluster is first asked
// one small LIST through kube.Read (ContextRetry of retries), so that an unreachable
// context fails with its reason within seconds instead of the watch cache retrying for ever;
// the read itself is bounded by StatusContextTimeout.
func ReadContextStatus(ctx context.Context, src *Live, cfg status.Config) ([]*status.Status, error) {
	client, err := src.Client()
	if err != nil {
		return nil, err
	}
	retry := kube.Retry{Deadline: time.Now().Add(ContextRetry)}
	if _, err := kube.Read(ctx, retry, func(actx context.Context) (any, error) {
		return client.AppsV1().Deployments(cfg.Namespace).List(actx, metav1.ListOptions{Limit: 1})
	}); err != nil {
		return nil, err
	}
	return FollowOnce(ctx, client, cfg)
}

// FollowOnce is status.Follow without --watch under StatusContextTimeout.
func FollowOnce(ctx context.Context, client kubernetes.Interface, cfg status.Config) ([]*status.Status, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, StatusContextTimeout, fmt.Errorf("no status within %s", StatusContextTimeout))
	defer cancel()
	cfg.Watch = false
	sts, _, err := status.Follow(ctx, client, cfg, func([]*status.Status) error { return nil })
	return sts, err
}

// StatusChecks returns status.Config.Feasible for checks (a valid --checks value): the
// pipeline's Feasible (pipeline.Config.Feasible) on the remaining plan, the objects read
// through client (the cluster's, one per call) once per namespace for the whole command (a
// --watch too: quotas' used counts are not re-read); nil with --checks=none.
func StatusChecks(checks string, client func() (kubernetes.Interface, error)) func(context.Context, *cluster.State, planner.Input) (*feasibility.Result, error) {
	names, _ := feasibility.ParseChecks(checks) // Validate refused a bad value
	if len(names) == 0 {
		return nil
	}
	pcfg := &Config{Feasibility: names}
	src := NewLive("", "", client)
	return func(ctx context.Context, st *cluster.State, in planner.Input) (*feasibility.Result, error) {
		m := Member{State: st}
		m.Namespace, m.Name = st.Deployment.Namespace, st.Deployment.Name
		return pcfg.Feasible(ctx, src, m, in)
	}
}

// ValidateChecks checks a --checks value (feasibility.ParseChecks).
func ValidateChecks(checks string) error {
	_, err := feasibility.ParseChecks(checks)
	return err
}

// SetStatusTiming sets cfg.ReadyAfter from podReadyAfter (--pod-ready-after,
// estimate.ParseReadyAfter) and cfg.SyncLatency from syncLatency (--sync-latency,
// estimate.ParseSyncLatency); an empty value leaves its field nil (measured). The error is the
// parser's, naming the flag value; cfg is then partly set.
func SetStatusTiming(cfg *status.Config, podReadyAfter, syncLatency string) error {
	if podReadyAfter != "" {
		e, err := estimate.ParseReadyAfter(podReadyAfter)
		if err != nil {
			return err
		}
		cfg.ReadyAfter = &e
	}
	if syncLatency != "" {
		l, err := estimate.ParseSyncLatency(syncLatency)
		if err != nil {
			return err
		}
		cfg.SyncLatency = &l
	}
	return nil
}

package pipeline

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// Sink is where a decided write goes: the API (API), a server-side dry run (ServerDryRun)
// or nowhere (Print: the command prints the patch it decided). The writing verbs (undo,
// pause, resume, restart; Deployments and StatefulSets/DaemonSets) hand every patch to a
// Sink and never to the client directly, so a new destination (patches written to files,
// recorded in memory) is one new Sink and no change in any command.
type Sink interface {
	// Deployment sends p, a verb's guarded patch of d (d as previewed), and returns the
	// Deployment the server answered with; nil (and no error) when nothing was sent.
	// Errors as rollout.Send's: one line naming the Deployment.
	Deployment(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, p *rollout.Patch) (*appsv1.Deployment, error)
	// Workload sends body, kubectl's strategic merge patch of the StatefulSet or DaemonSet w
	// (w as read), guarded by w's resourceVersion. Errors as live.Patch's.
	Workload(ctx context.Context, client kubernetes.Interface, w workload.Workload, body []byte) error
}

// API writes to the API server through pkg/kube (guarded patch, transient failures retried
// with kube's policy) under FieldManager.
type API struct{ FieldManager string }

// ServerDryRun sends the write with dryRun=All under FieldManager: validated and admitted
// by the API server, nothing stored; the Deployment returned is the server's result.
type ServerDryRun struct{ FieldManager string }

// Print sends nothing: the patch is the command's to print (--dry-run=client).
type Print struct{}

var (
	_ Sink = API{}
	_ Sink = ServerDryRun{}
	_ Sink = Print{}
)

// NewSink maps kubectl's --dry-run strategy to a Sink: none -> API, server -> ServerDryRun,
// client -> Print; fieldManager is --field-manager.
func NewSink(dryRun cmdutil.DryRunStrategy, fieldManager string) Sink {
	switch dryRun {
	case cmdutil.DryRunServer:
		return ServerDryRun{FieldManager: fieldManager}
	case cmdutil.DryRunClient:
		return Print{}
	default:
		return API{FieldManager: fieldManager}
	}
}

// Deployment sends p through rollout.Send.
func (s API) Deployment(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, p *rollout.Patch) (*appsv1.Deployment, error) {
	return rollout.Send(ctx, client, d, p, kube.Options{FieldManager: s.FieldManager})
}

// Workload sends body through live.Patch.
func (s API) Workload(ctx context.Context, client kubernetes.Interface, w workload.Workload, body []byte) error {
	return live.Patch(ctx, client, w, body, kube.Options{FieldManager: s.FieldManager})
}

// Deployment sends p through rollout.Send with dryRun=All.
func (s ServerDryRun) Deployment(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, p *rollout.Patch) (*appsv1.Deployment, error) {
	return rollout.Send(ctx, client, d, p, kube.Options{FieldManager: s.FieldManager, DryRun: true})
}

// Workload sends body through live.Patch with dryRun=All.
func (s ServerDryRun) Workload(ctx context.Context, client kubernetes.Interface, w workload.Workload, body []byte) error {
	return live.Patch(ctx, client, w, body, kube.Options{FieldManager: s.FieldManager, DryRun: true})
}

// Deployment sends nothing and returns nil.
func (Print) Deployment(context.Context, kubernetes.Interface, *appsv1.Deployment, *rollout.Patch) (*appsv1.Deployment, error) {
	return nil, nil
}

// Workload sends nothing.
func (Print) Workload(context.Context, kubernetes.Interface, workload.Workload, []byte) error {
	return nil
}

package pipeline

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// SelectionOf is the pipeline's Selection of a command's target.Selection: Bulk over
// sel.Scope() for -l, --all and -A, else the Refs sel's names resolve to (Selection.Resolve:
// no request for names). ExplicitNamespace, AllowMissing and RequireNamespace are left to
// the caller. Errors: Resolve's.
func SelectionOf(ctx context.Context, sel *target.Selection) (Selection, error) {
	ps := Selection{Bulk: sel.Bulk(), Scope: sel.Scope()}
	if !ps.Bulk {
		refs, err := sel.Resolve(ctx)
		if err != nil {
			return ps, err
		}
		ps.Refs = refs
	}
	return ps, nil
}

// SelectFrom reads the Deployments sel selects through the one Select: from the state file
// stateFile (File), or when it is "" live through client (Live of the current context):
// -l/--all/-A, two paginated LISTs whatever their number, retried through transient
// failures; names, each a GET and a LIST (or the state file), a failure kept on its Member.
// Errors: the names' (Selection.Resolve), the client's, and a failed LIST (nothing can be
// planned then).
func SelectFrom(ctx context.Context, sel *target.Selection, client func() (kubernetes.Interface, error), stateFile string) ([]Member, error) {
	ps, err := SelectionOf(ctx, sel)
	if err != nil {
		return nil, err
	}
	var src Source = NewLive("", "", client)
	if stateFile != "" {
		src = NewFile(stateFile)
	}
	return src.Select(ctx, ps)
}

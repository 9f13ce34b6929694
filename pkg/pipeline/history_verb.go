package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/rollout"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// The history verb (kubectl-rollplan history): its flags, the read of one Deployment's
// history (with --revision's and --diff's sides), and of many (-l, --all, -A, several names,
// --contexts). pkg/cmd binds the flags and calls these; pkg/printer shows the results
// (printer.PrintHistoryResult, printer.PrintFleetHistory).

// HistoryConfig is the history verb's flags: Revision (--revision N, 0: none), Diff (--diff)
// with DiffFrom and DiffTo (--diff A B; 0: the previous revision and the current one) and
// StateFile (--state-file: read the Deployment and ReplicaSets from a file).
type HistoryConfig struct {
	Revision  int64
	Diff      bool
	DiffFrom  int64
	DiffTo    int64
	StateFile string
}

// ParseDiffArgs takes the two revisions of --diff A B off the end of args (when Diff and the
// last two arguments are numbers) into DiffFrom and DiffTo and returns the other arguments.
// Errors: a revision that is not positive.
func (c *HistoryConfig) ParseDiffArgs(args []string) ([]string, error) {
	if !c.Diff || len(args) < 3 {
		return args, nil
	}
	a, errA := strconv.ParseInt(args[len(args)-2], 10, 64)
	b, errB := strconv.ParseInt(args[len(args)-1], 10, 64)
	if errA != nil || errB != nil {
		return args, nil
	}
	if a <= 0 || b <= 0 {
		return args, fmt.Errorf("--diff %d %d: revisions are positive numbers", a, b)
	}
	c.DiffFrom, c.DiffTo = a, b
	return args[:len(args)-2], nil
}

// Validate checks the flags (pure): many is a selection of several Deployments (or
// contexts), human the human output (no -o). Errors name the flags at fault.
func (c HistoryConfig) Validate(many, human bool) error {
	switch {
	case c.Revision < 0:
		return fmt.Errorf("--revision %d: revisions are positive numbers", c.Revision)
	case c.Revision > 0 && c.Diff:
		return errors.New("--revision and --diff do not go together: use --diff A B")
	case c.Diff && !human:
		return errors.New("--diff prints a text diff: drop -o")
	case many && (c.Revision > 0 || c.Diff):
		return errors.New("--revision and --diff show one Deployment's revisions: name one Deployment")
	}
	return nil
}

// HistoryResult is one Deployment's history (rollout.BuildHistory of its ReplicaSets), the
// Deployment, and with --diff the two sides to compare (DiffSides).
type HistoryResult struct {
	History    *rollout.History
	Deployment *appsv1.Deployment
	From, To   DiffSide
}

// ReadHistory reads Deployment namespace/name (LoadState: through client, or from
// c.StateFile) and builds its history, with --diff's sides. Errors: LoadState's, a
// --revision the history lacks (RevisionError), DiffSides'.
func (c HistoryConfig) ReadHistory(ctx context.Context, client func() (kubernetes.Interface, error), namespace, name string) (HistoryResult, error) {
	state, err := LoadState(ctx, client, c.StateFile, namespace, name, false)
	if err != nil {
		return HistoryResult{}, err
	}
	r := HistoryResult{History: rollout.BuildHistory(state.Deployment, state.ReplicaSets), Deployment: state.Deployment}
	if c.Revision > 0 && r.History.Find(c.Revision) == nil {
		return r, RevisionError(r.History, c.Revision)
	}
	if c.Diff {
		r.From, r.To, err = DiffSides(r.History, r.Deployment, c.DiffFrom, c.DiffTo)
	}
	return r, err
}

// FleetHistory is the history of many Deployments: Histories of the members read, Failed
// the members that could not be read (both in order), and across contexts (Contexts: their
// names, in order) ContextErrs[i], why context i could not be read (nil if it was).
type FleetHistory struct {
	Histories   []MemberHistory
	Failed      []Member
	Contexts    []string
	ContextErrs []error
}

// HistoryFleet reads the history of every Deployment of sel (SelectFrom: through client, or
// from stateFile). Errors: SelectFrom's (the selection's, the LIST's); a Deployment that
// cannot be read is in Failed.
func HistoryFleet(ctx context.Context, sel *target.Selection, client func() (kubernetes.Interface, error), stateFile string) (FleetHistory, error) {
	members, err := SelectFrom(ctx, sel, client, stateFile)
	if err != nil {
		return FleetHistory{}, err
	}
	var r FleetHistory
	r.Histories, r.Failed = Histories(members)
	return r, nil
}

// HistoryContexts reads the history of every Deployment of sel in every context at the same
// time (SelectContexts; each context's namespace is its kubeconfig's unless -n or -A):
// names are the contexts, srcs and errs their Sources (Kubeconfig.Sources). Errors: the
// selection's (SelectionOf); a context or Deployment that cannot be read is in ContextErrs
// or Failed.
func HistoryContexts(ctx context.Context, sel *target.Selection, names []string, srcs []*Live, errs []error) (FleetHistory, error) {
	ps, err := SelectionOf(ctx, sel)
	if err != nil {
		return FleetHistory{}, err
	}
	ps.ExplicitNamespace, ps.RequireNamespace = sel.EnforceNamespace, true
	perContext, errs := SelectContexts(ctx, srcs, errs, ps)
	r := FleetHistory{Contexts: names, ContextErrs: errs}
	r.Histories, r.Failed = Histories(slices.Concat(perContext...))
	return r, nil
}

// SelectContexts selects sel in every context's Source at the same time (SelectEach, the one
// selection path). srcs and errs are the contexts' Sources and why one could not be made
// (Kubeconfig.Sources); members[i] and errs[i] are context i's.
func SelectContexts(ctx context.Context, srcs []*Live, errs []error, sel Selection) ([][]Member, []error) {
	errs = slices.Clone(errs)
	members, selErrs := SelectEach(ctx, srcs, sel)
	for i, err := range selErrs {
		if err != nil {
			errs[i] = err
		}
	}
	return members, errs
}

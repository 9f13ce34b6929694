package driverun

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/stsdrive"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// StatusInput is what `drive status` reads, the first that applies: a StatefulSet (Sts);
// the selection in several contexts (Contexts, Sources and SourceErrs aligned, more than
// one); many Deployments (Many: several names, -l, --all, -A); else Namespace/Name.
type StatusInput struct {
	Client          func() (kubernetes.Interface, error)
	Sts             *target.KindRef
	Namespace, Name string
	Selection       *target.Selection
	Many            bool
	Contexts        []string
	Sources         []*pipeline.Live
	SourceErrs      []error
	Now             time.Time
}

// StatusResult is `drive status`'s answer. One is the status of one Deployment or
// StatefulSet (Sts). For many (Many), Statuses are those read (Context set with
// --contexts), Failed the members that could not be (Source their context), ContextErrs[i]
// why Contexts[i] could not be read, Found whether anything was selected at all;
// WithNamespace says names carry their namespace (-A), Scope is the selection's namespace.
type StatusResult struct {
	One           *v1alpha1.DriveStatus
	Sts           bool
	Many          bool
	Statuses      []*v1alpha1.DriveStatus
	Failed        []pipeline.Member
	Contexts      []string
	ContextErrs   []error
	Found         bool
	WithNamespace bool
	Scope         string
}

// ReadStatus reads in's drive status: a StatefulSet's lease and walk
// (stsdrive.ReadStatus); every context at the same time (pipeline.SelectionOf, then
// SelectEach, each Deployment with its namespace); many Deployments through the one Select
// (pipeline.SelectFrom); or one Deployment (pipeline.LoadState: one GET, one LIST, through
// transient failures) with drive.Status at in.Now. Errors: the client's, the read of one
// object, the selection's (Resolve, a failed LIST); a member's error is on Failed.
func ReadStatus(ctx context.Context, in StatusInput) (*StatusResult, error) {
	switch {
	case in.Sts != nil:
		cs, err := in.Client()
		if err != nil {
			return nil, err
		}
		s, err := stsdrive.ReadStatus(ctx, cs, *in.Sts, in.Now)
		return &StatusResult{One: s, Sts: true}, err
	case len(in.Contexts) > 1:
		return contextStatuses(ctx, in)
	case in.Many:
		members, err := pipeline.SelectFrom(ctx, in.Selection, in.Client, "")
		if err != nil {
			return nil, err
		}
		r := &StatusResult{Many: true, Found: len(members) > 0, WithNamespace: in.Selection.AllNamespaces, Scope: in.Selection.Scope().Namespace}
		r.Statuses, r.Failed = Statuses(members, in.Now)
		return r, nil
	}
	st, err := pipeline.LoadState(ctx, in.Client, "", in.Namespace, in.Name, false)
	if err != nil {
		return nil, err
	}
	snap, err := drive.NewSnapshot(st)
	if err != nil {
		return nil, err
	}
	return &StatusResult{One: drive.Status(snap, in.Now)}, nil
}

// Statuses is the drive status at now of every member read (pipeline.Select), its Context
// the member's source ("" for one context), in order; failed are the members that could not
// be read or whose drive annotation could not be, with their Err.
func Statuses(members []pipeline.Member, now time.Time) (statuses []*v1alpha1.DriveStatus, failed []pipeline.Member) {
	for _, m := range members {
		if m.Err == nil {
			var snap *drive.Snapshot
			if snap, m.Err = drive.NewSnapshot(m.State); m.Err == nil {
				s := drive.Status(snap, now)
				s.Context = m.Source
				statuses = append(statuses, s)
				continue
			}
		}
		failed = append(failed, m)
	}
	return statuses, failed
}

// contextStatuses is ReadStatus over several contexts. Errors: SelectionOf's.
func contextStatuses(ctx context.Context, in StatusInput) (*StatusResult, error) {
	sel := in.Selection
	ps, err := pipeline.SelectionOf(ctx, sel)
	if err != nil {
		return nil, err
	}
	ps.ExplicitNamespace, ps.RequireNamespace = sel.EnforceNamespace, true
	perContext, selErrs := pipeline.SelectEach(ctx, in.Sources, ps)
	r := &StatusResult{Many: true, Contexts: in.Contexts, ContextErrs: append([]error(nil), in.SourceErrs...), WithNamespace: sel.AllNamespaces, Scope: sel.Scope().Namespace}
	for i, err := range selErrs {
		if err != nil {
			r.ContextErrs[i] = err
		}
	}
	for _, members := range perContext {
		r.Found = r.Found || len(members) > 0
		s, f := Statuses(members, in.Now)
		r.Statuses, r.Failed = append(r.Statuses, s...), append(r.Failed, f...)
	}
	return r, nil
}

// FailedContexts is the number of contexts that could not be read.
func (r *StatusResult) FailedContexts() int {
	n := 0
	for _, err := range r.ContextErrs {
		if err != nil {
			n++
		}
	}
	return n
}

// FailedNames are the Deployments that could not be read, as their error lines name them
// ("deployment.apps/web", with its namespace under -A, and " (context C)" with --contexts).
func (r *StatusResult) FailedNames() []string {
	var names []string
	for _, m := range r.Failed {
		n := target.DeploymentName(m.Namespace, m.Name, r.WithNamespace)
		if len(r.Contexts) > 1 {
			n += " (context " + m.Source + ")"
		}
		names = append(names, n)
	}
	return names
}

// Exit is ExitError once everything read is printed: with one line naming the failed
// Deployments when any failed (as every command over many Deployments), else with no more
// words when a context could not be read; else 0.
func (r *StatusResult) Exit() (int, string) {
	if names := r.FailedNames(); len(names) > 0 {
		return ExitError, fmt.Sprintf("%d Deployment(s) failed: %s", len(names), strings.Join(names, ", "))
	}
	if r.FailedContexts() > 0 {
		return ExitError, ""
	}
	return 0, ""
}

package driverun

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/pipeline"
	"github.com/rollplan/kubectl-rollplan/pkg/target"
)

// Status is `drive status deploy/NAME`: the Deployment read (pipeline.LoadState: one GET,
// one LIST, through transient failures) and its drive status at now (drive.Status: kind
// DriveStatus). Errors: the client's, the read's, a drive annotation that cannot be read.
func Status(ctx context.Context, client func() (kubernetes.Interface, error), namespace, name string, now time.Time) (*v1alpha1.DriveStatus, error) {
	st, err := pipeline.LoadState(ctx, client, "", namespace, name, false)
	if err != nil {
		return nil, err
	}
	snap, err := drive.NewSnapshot(st)
	if err != nil {
		return nil, err
	}
	return drive.Status(snap, now), nil
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

// ContextStatuses is `drive status` with --contexts: sel (pipeline.SelectionOf, each
// Deployment with its namespace) selected in every context's source at the same time
// (pipeline.SelectEach), then Statuses. Contexts[i] is srcs[i]'s name, ContextErrs[i] why it
// could not be read (srcErrs[i], or its selection's error). Errors: SelectionOf's.
func ContextStatuses(ctx context.Context, srcs []*pipeline.Live, srcErrs []error, sel *target.Selection, now time.Time) (*ContextsResult, error) {
	ps, err := pipeline.SelectionOf(ctx, sel)
	if err != nil {
		return nil, err
	}
	ps.ExplicitNamespace, ps.RequireNamespace = sel.EnforceNamespace, true
	perContext, selErrs := pipeline.SelectEach(ctx, srcs, ps)
	r := &ContextsResult{ContextErrs: append([]error(nil), srcErrs...)}
	for i, err := range selErrs {
		if err != nil {
			r.ContextErrs[i] = err
		}
	}
	for _, members := range perContext {
		r.Found = r.Found || len(members) > 0
		s, f := Statuses(members, now)
		r.Statuses, r.Failed = append(r.Statuses, s...), append(r.Failed, f...)
	}
	return r, nil
}

// ContextsResult is drive status over several contexts: the statuses read (each with its
// Context), the members that failed (Source their context), each context's error (nil when
// it was read) and whether any Deployment was selected at all.
type ContextsResult struct {
	Statuses    []*v1alpha1.DriveStatus
	Failed      []pipeline.Member
	ContextErrs []error
	Found       bool
}

// FailedContexts is the number of contexts that could not be read.
func (r *ContextsResult) FailedContexts() int {
	n := 0
	for _, err := range r.ContextErrs {
		if err != nil {
			n++
		}
	}
	return n
}

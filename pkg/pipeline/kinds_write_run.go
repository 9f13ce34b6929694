package pipeline

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/target"
	"github.com/rollplan/kubectl-rollplan/pkg/workload"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// KindWrite is one StatefulSet's or DaemonSet's previewed undo or restart: the object as
// read, the patch kubectl sends (nil: nothing to send, a skipped rollback), kubectl's result
// word, and what the preview shows: restart's restartedAt (At), or undo's decision (Undo).
type KindWrite struct {
	Workload  workload.Workload
	Patch     []byte
	Operation string
	At        time.Time
	Undo      *workload.Undo
}

// PreviewKindWrite reads ref and decides verb ("restart": kubectl's restartedAt patch at now,
// truncated to the second; else undo to toRevision, 0 the previous one), as kubectl's
// ObjectRestarter and StatefulSetRollbacker/DaemonSetRollbacker do
// (k8s.io/kubectl/pkg/polymorphichelpers, v0.36.3) through pkg/workload. Errors: the read's
// (live.Get, live.Load), the patch's, kubectl's "already restarted" refusal
// (workload.RestartAgainError), PreviewUndo's (revision not found, no last revision).
func PreviewKindWrite(ctx context.Context, client kubernetes.Interface, ref target.KindRef, verb string, toRevision int64, now time.Time) (*KindWrite, error) {
	if verb == "restart" {
		w, err := live.Get(ctx, client, ref)
		if err != nil {
			return nil, err
		}
		at := now.Truncate(time.Second)
		p, err := workload.RestartPatch(w, at)
		if err != nil {
			return nil, err
		}
		if string(p) == "{}" {
			return nil, workload.RestartAgainError(ref.Name)
		}
		return &KindWrite{Workload: w, Patch: p, Operation: "restarted", At: at}, nil
	}
	st, err := live.Load(ctx, client, ref)
	if err != nil {
		return nil, err
	}
	u, err := workload.PreviewUndo(st.Workload, st.Revisions, toRevision)
	if err != nil {
		return nil, err
	}
	return &KindWrite{Workload: st.Workload, Patch: u.Patch, Operation: u.Message, Undo: u}, nil
}

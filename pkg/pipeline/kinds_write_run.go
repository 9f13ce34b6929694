package pipeline

import (
	"context"
	"errors"
	"fmt"
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

// SelectKindRefs resolves a StatefulSet/DaemonSet selection: the names of args in namespace
// (no request), or one LIST of args' kind (live.List) in namespace ("" with allNamespaces)
// with selector (-l; "" for --all). Errors: the LIST's.
func SelectKindRefs(ctx context.Context, client kubernetes.Interface, args target.KindArgs, namespace string, allNamespaces bool, selector string) ([]target.KindRef, error) {
	if len(args.Refs) > 0 {
		out := make([]target.KindRef, len(args.Refs))
		for i, r := range args.Refs {
			r.Namespace = namespace
			out[i] = r
		}
		return out, nil
	}
	if allNamespaces {
		namespace = ""
	}
	return live.List(ctx, client, args.Kind, namespace, selector)
}

// KindsNoun names the selection's kind in the plural ("StatefulSets"; "StatefulSets and
// DaemonSets" when args name both kinds).
func KindsNoun(args target.KindArgs) string {
	if args.Kind != "" {
		return string(args.Kind) + "s"
	}
	kind := args.Refs[0].Kind
	for _, r := range args.Refs {
		if r.Kind != kind {
			return "StatefulSets and DaemonSets"
		}
	}
	return string(kind) + "s"
}

// RefuseKinds is kubectl's answer to pause and resume (verb) of StatefulSets and DaemonSets
// (workload.Refuse), before anything is read: one line per object named, or one for -l/--all.
func RefuseKinds(verb string, args target.KindArgs) error {
	var errs []string
	for _, r := range args.Refs {
		errs = append(errs, workload.Refuse(verb, r).Error())
	}
	if len(errs) == 0 {
		return workload.Refuse(verb, target.KindRef{Kind: args.Kind, Name: "-l/--all"})
	}
	if len(errs) == 1 {
		return errors.New(errs[0])
	}
	return fmt.Errorf("%v", errs)
}

// ReadKindHistory reads ref (live.Load: the object, its ControllerRevisions and pods) and
// builds its history (workload.BuildHistory). Errors: the read's, BuildHistory's, and
// kubectl's revision not found when revision (--revision, 0: none) is not in it.
func ReadKindHistory(ctx context.Context, client kubernetes.Interface, ref target.KindRef, revision int64) (*workload.History, error) {
	st, err := live.Load(ctx, client, ref)
	if err != nil {
		return nil, err
	}
	h, err := workload.BuildHistory(st.Workload, st.Revisions, st.Pods)
	if err != nil {
		return nil, err
	}
	if revision > 0 && h.Find(revision) == nil {
		return nil, workload.RevisionNotFound(revision)
	}
	return h, nil
}

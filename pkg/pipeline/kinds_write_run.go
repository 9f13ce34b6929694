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

// KindWriteReport is what KindWrites.Send tells as it goes (printer.KindWriteReport prints
// it): an object of several whose write failed, and each object written with kubectl's word.
type KindWriteReport interface {
	Failed(ref target.KindRef, err error)
	Done(ref target.KindRef, operation string) error
}

// KindWrites are the writes of undo or restart (Verb) of StatefulSets and DaemonSets, once
// previewed and confirmed: each patch through Sink (nothing for a skipped rollback).
type KindWrites struct {
	Verb string
	// ToRevision is undo's --to-revision, for kubectl's wording of a failure.
	ToRevision int64
	// Several: the selection was not one object named.
	Several bool
	Sink    Sink
}

// Send sends each of ready in order and reports it. One object: its failure is the error,
// worded as kubectl's ("failed restoring revision N: ..." for undo). Several: a failure is
// reported and the others go on; the error then names each that failed ("undo failed for
// 2: [...]"). Errors: also Done's (printing a result).
func (k KindWrites) Send(ctx context.Context, client kubernetes.Interface, ready []*KindWrite, rep KindWriteReport) error {
	var failed []string
	for _, kw := range ready {
		ref := kw.Workload.Ref()
		if kw.Patch != nil {
			if err := k.Sink.Workload(ctx, client, kw.Workload, kw.Patch); err != nil {
				if !k.Several {
					return k.failure(err)
				}
				rep.Failed(ref, err)
				failed = append(failed, ref.String())
				continue
			}
		}
		if err := rep.Done(ref, kw.Operation); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s failed for %d: %v", k.Verb, len(failed), failed)
	}
	return nil
}

// failure words a failed undo as kubectl does ("failed restoring revision N: ...").
func (k KindWrites) failure(err error) error {
	if k.Verb == "undo" {
		return fmt.Errorf("failed restoring revision %d: %w", k.ToRevision, err)
	}
	return err
}

package stsdrive

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/apis/rollplan/v1alpha1"
	"github.com/rollplan/kubectl-rollplan/pkg/drive/partition"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
	"github.com/rollplan/kubectl-rollplan/pkg/workload/live"
)

// Plan reads the StatefulSet and returns the walk `drive sts/NAME` would make (kind
// StatefulSetDrive, apiVersion rollplan.dev/v1alpha1): partition.Plan from spec.replicas
// after a change, or from the stored partition without one (a resume, past a pause
// there). dryRun "server" also sends the first write (StartPatch, guarded by the
// resourceVersion) with dryRun=All through validation and admission; "client" sends
// nothing. Nothing is persisted, no lease is taken.
//
// Errors: partition.Validate's one line (OnDelete, ordinals.start), StartPatch's, the API
// server's refusal of the dry-run write.
func Plan(ctx context.Context, o Options, dryRun string) (*v1alpha1.StatefulSetDrive, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	w, err := live.Get(ctx, o.Client, o.Ref)
	if err != nil {
		return nil, err
	}
	sts := w.StatefulSet
	if err := partition.Validate(sts); err != nil {
		return nil, err
	}
	replicas := replicasOf(sts)
	from, resumed := replicas, false
	if !o.Change.Any() {
		from, resumed = partition.CurrentPartition(sts), true
	}
	steps, err := partition.Plan(replicas, from, o.Walk, resumed)
	if err != nil {
		return nil, err
	}
	p := &v1alpha1.StatefulSetDrive{
		TypeMeta:  metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "StatefulSetDrive"},
		Namespace: sts.Namespace, Name: sts.Name, DryRun: dryRun,
		Replicas: replicas, StartPartition: from, Images: o.Change.Images, Restart: o.Change.Restart,
		Steps: []v1alpha1.PartitionStep{},
	}
	for _, s := range steps {
		p.Steps = append(p.Steps, v1alpha1.PartitionStep{Number: s.Number, From: s.From, To: s.To, PauseAfter: s.Pause})
	}
	if dryRun == "server" && o.Change.Any() {
		body, err := StartPatch(sts, o.Change, o.Now())
		if err != nil {
			return nil, err
		}
		if err := live.Patch(ctx, o.Client, w, body, kube.Options{FieldManager: kube.FieldManager, DryRun: true}); err != nil {
			return nil, fmt.Errorf("server dry run of the first write: %w", err)
		}
	}
	return p, nil
}

// Result is the end of a run as the API shows it: err nil is Done at partition 0; a
// *HeldError is Paused or Held at its partition; any other error has no result (nil).
func Result(err error) *v1alpha1.StatefulSetDriveResult {
	var held *HeldError
	switch {
	case err == nil:
		return &v1alpha1.StatefulSetDriveResult{Outcome: "Done", Partition: 0}
	case errors.As(err, &held):
		outcome := "Held"
		if held.Action == partition.ActionPause {
			outcome = "Paused"
		}
		return &v1alpha1.StatefulSetDriveResult{Outcome: outcome, Partition: held.Partition, Reason: held.Reason}
	}
	return nil
}

// Package driverun composes the engines under the drive verbs, so that pkg/cmd only fills
// options and prints: `kubectl rollplan drive deploy/NAME` and `abort deploy/NAME` (Prepare:
// the read and change before the takeover, Desired; preview's feasibility checks on the plan
// drive takes over, Check; NewOutcome), `drive sts/NAME` (StsWalk, CheckSts, DriveSts),
// `drive status` (ReadStatus, Statuses), reload --drive (Restart), and the resume of a held
// Deployment (ResumeHeld; PreviewHandBack: what the controller does once it is handed back).
// The walk itself is pkg/drive's (pkg/drive/partition for StatefulSets); printing is
// pkg/printer's.
package driverun

import (
	"context"
	"fmt"
	"io"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/cluster"
	"github.com/rollplan/kubectl-rollplan/pkg/drive"
	"github.com/rollplan/kubectl-rollplan/pkg/kube"
)

// Change is a user's change to a live Deployment as the change flags give it (pkg/cmd's
// ChangeFlags: --image, -f, --replicas, --to-revision, --restart).
type Change interface {
	// Any reports whether a change was given at all.
	Any() bool
	// ServerDesired returns st's Deployment with the change applied and server-defaulted
	// (a server-side dry run), and warnings (a client-side fallback).
	ServerDesired(ctx context.Context, cs kubernetes.Interface, st *cluster.State, namespace string, in io.Reader, now time.Time) (*appsv1.Deployment, []string, error)
}

// DesiredInput names the Deployment drive walks and the change it applies.
type DesiredInput struct {
	Namespace, Name string
	Change          Change
	// Rereadable is false when the change cannot be applied twice (a manifest read from
	// standard input): a conflict is then not retried.
	Rereadable bool
	// In is the standard input of a manifest "-"; Now is the clock (--restart's time).
	In  io.Reader
	Now func() time.Time
}

// Desired reads the Deployment and returns it with the change applied and server-defaulted
// (a server-side dry run), nil without a change (continue a held drive, or adopt the
// rollout in flight), with the change's warnings (a client-side fallback).
//
// Both reads (the first, and the one again after a conflict: the controller updated the
// Deployment's status meanwhile) go through transient failures of the API server
// (cluster.LoadLive through kube.Read with the one policy).
//
// Errors: the read's (after retries); the change's; a change to a Deployment drive holds
// for another change that cannot be compared with it.
func Desired(ctx context.Context, cs kubernetes.Interface, in DesiredInput) (*appsv1.Deployment, []string, error) {
	st, err := loadLive(ctx, cs, in.Namespace, in.Name)
	if err != nil || !in.Change.Any() {
		return nil, nil, err
	}
	var desired *appsv1.Deployment
	var warnings []string
	// A conflict: the controller updated the Deployment's status meanwhile; read it
	// again (a manifest from standard input cannot be read twice).
	retriable := func(err error) bool { return apierrors.IsConflict(err) && in.Rereadable }
	tries, readErr := 0, error(nil)
	err = kube.OnError(retriable, func() error {
		if tries++; tries > 1 {
			if st, readErr = loadLive(ctx, cs, in.Namespace, in.Name); readErr != nil {
				return kube.Stop(readErr)
			}
		}
		var err error
		desired, warnings, err = in.Change.ServerDesired(ctx, cs, st, in.Namespace, in.In, in.Now())
		return err
	})
	if readErr != nil {
		return nil, nil, readErr
	}
	if err != nil && drive.IsHeld(st.Deployment) {
		return nil, nil, fmt.Errorf("deployment %s/%s is held by drive for a change already, and this change cannot be compared with it (%v): run `kubectl rollplan drive deploy/%s` without change flags to continue it", in.Namespace, in.Name, err, in.Name)
	}
	if err != nil {
		return nil, nil, err
	}
	return desired, warnings, nil
}

// loadLive is cluster.LoadLive (one GET, one LIST) through transient failures of the API
// server, retried with kube.Read's one policy (as pkg/cmd's loadLive).
func loadLive(ctx context.Context, client kubernetes.Interface, namespace, name string) (*cluster.State, error) {
	return kube.Read(ctx, kube.Retry{}, func(ctx context.Context) (*cluster.State, error) {
		return cluster.LoadLive(ctx, client, namespace, name)
	})
}

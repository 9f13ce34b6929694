package kube

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/rollplan/kubectl-rollplan/pkg/jsonpatch"
)

// PatchDeployment applies the JSON patch ops to d (by namespace and name) with o (its field
// manager) and returns the Deployment the server stored. A failed `test` operation or a
// conflict is an error matching ErrGuard: nothing was written.
func PatchDeployment(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, ops []jsonpatch.Op, o Options) (*appsv1.Deployment, error) {
	body, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	out, err := client.AppsV1().Deployments(d.Namespace).Patch(ctx, d.Name, types.JSONPatchType, body, o.PatchOptions())
	if err != nil {
		return nil, guardError(fmt.Sprintf("patch deployment %s/%s", d.Namespace, d.Name), err)
	}
	return out, nil
}

// ScaleReplicaSet sets rs's spec.replicas from from to to with a JSON patch guarded by a
// test of the ReplicaSet's UID and of its spec.replicas (from); extra operations ride along
// (for example removing the desired-replicas annotation); o gives the field manager. A
// ReplicaSet whose replicas are not from any more (someone else scaled it) or that was
// replaced gives an error matching ErrGuard, and is not written.
func ScaleReplicaSet(ctx context.Context, client kubernetes.Interface, rs *appsv1.ReplicaSet, from, to int32, o Options, extra ...jsonpatch.Op) (*appsv1.ReplicaSet, error) {
	ops := []jsonpatch.Op{
		jsonpatch.Test("/metadata/uid", string(rs.UID)),
		jsonpatch.Test("/spec/replicas", from),
		jsonpatch.Replace("/spec/replicas", to),
	}
	ops = append(ops, extra...)
	body, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	out, err := client.AppsV1().ReplicaSets(rs.Namespace).Patch(ctx, rs.Name, types.JSONPatchType, body, o.PatchOptions())
	if err != nil {
		return nil, guardError(fmt.Sprintf("scale replicaset %s/%s from %d to %d", rs.Namespace, rs.Name, from, to), err)
	}
	return out, nil
}

// PatchReplicaSet applies the JSON patch ops to rs with o (its field manager). A failed
// test or a conflict is an error matching ErrGuard.
func PatchReplicaSet(ctx context.Context, client kubernetes.Interface, rs *appsv1.ReplicaSet, ops []jsonpatch.Op, o Options) error {
	body, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	if _, err := client.AppsV1().ReplicaSets(rs.Namespace).Patch(ctx, rs.Name, types.JSONPatchType, body, o.PatchOptions()); err != nil {
		return guardError(fmt.Sprintf("patch replicaset %s/%s", rs.Namespace, rs.Name), err)
	}
	return nil
}

// CreateReplicaSet creates rs with o and returns the ReplicaSet the server stored. The
// API error (AlreadyExists, Forbidden, ...) is returned as it is, for the caller to tell
// apart with apierrors or Classify.
func CreateReplicaSet(ctx context.Context, client kubernetes.Interface, rs *appsv1.ReplicaSet, o Options) (*appsv1.ReplicaSet, error) {
	return client.AppsV1().ReplicaSets(rs.Namespace).Create(ctx, rs, o.CreateOptions())
}

// UpdateDeployment sends d (guarded by its resourceVersion: a Deployment changed since is a
// 409 Conflict) with o and returns the Deployment the server stored, or would store with
// o.DryRun. The API error is returned as it is.
func UpdateDeployment(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment, o Options) (*appsv1.Deployment, error) {
	return client.AppsV1().Deployments(d.Namespace).Update(ctx, d, o.UpdateOptions())
}

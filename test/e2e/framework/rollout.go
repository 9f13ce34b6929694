package framework

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RolloutStatus decides, as `kubectl rollout status` does, whether d's rollout is complete.
// It returns a message, done, and an error when the rollout exceeded its progress deadline.
// It mirrors DeploymentStatusViewer.Status (k8s.io/kubectl/pkg/polymorphichelpers/
// rollout_status.go, v0.36.3), without the revision check.
func RolloutStatus(d *appsv1.Deployment) (msg string, done bool, err error) {
	if d.Generation > d.Status.ObservedGeneration {
		return "waiting for deployment spec update to be observed", false, nil
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Reason == "ProgressDeadlineExceeded" {
			return "", false, fmt.Errorf("deployment %q exceeded its progress deadline", d.Name)
		}
	}
	s := d.Status
	switch {
	case d.Spec.Replicas != nil && s.UpdatedReplicas < *d.Spec.Replicas:
		return fmt.Sprintf("%d out of %d new replicas have been updated", s.UpdatedReplicas, *d.Spec.Replicas), false, nil
	case s.Replicas > s.UpdatedReplicas:
		return fmt.Sprintf("%d old replicas are pending termination", s.Replicas-s.UpdatedReplicas), false, nil
	case s.AvailableReplicas < s.UpdatedReplicas:
		return fmt.Sprintf("%d of %d updated replicas are available", s.AvailableReplicas, s.UpdatedReplicas), false, nil
	}
	return fmt.Sprintf("deployment %q successfully rolled out", d.Name), true, nil
}

// WaitForRollout polls Deployment ns/name until RolloutStatus says done, and returns it. It
// fails t on a progress-deadline error or after timeout, with the last status message.
func (c *Cluster) WaitForRollout(t testing.TB, ns, name string, timeout time.Duration) *appsv1.Deployment {
	t.Helper()
	d, err := c.WaitForDeployment(t.Context(), ns, name, timeout, func(d *appsv1.Deployment) (string, bool, error) {
		return RolloutStatus(d)
	})
	if err != nil {
		t.Fatalf("wait for rollout of deployment %s/%s: %v", ns, name, err)
	}
	return d
}

// WaitForDeployment polls Deployment ns/name every 50 ms until cond returns true or an
// error, or timeout passes; cond's message is included in the timeout error.
func (c *Cluster) WaitForDeployment(ctx context.Context, ns, name string, timeout time.Duration,
	cond func(*appsv1.Deployment) (msg string, done bool, err error)) (*appsv1.Deployment, error) {
	var (
		last *appsv1.Deployment
		msg  string
	)
	err := poll(ctx, 50*time.Millisecond, timeout, func(ctx context.Context) (bool, error) {
		d, err := c.Client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			msg = err.Error()
			return false, nil
		}
		last = d
		var done bool
		msg, done, err = cond(d)
		return done, err
	})
	if err != nil {
		if last != nil {
			s := last.Status
			return last, fmt.Errorf("%w (last: %s; generation %d, observed %d, replicas %d, updated %d, ready %d, available %d)",
				err, msg, last.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas)
		}
		return nil, fmt.Errorf("%w (last: %s)", err, msg)
	}
	return last, nil
}

// ReplicaSetsOf lists the ReplicaSets of ns controlled by Deployment d, oldest first (by
// creation time, then name, as the controller orders them).
func (c *Cluster) ReplicaSetsOf(t testing.TB, d *appsv1.Deployment) []appsv1.ReplicaSet {
	t.Helper()
	list, err := c.Client.AppsV1().ReplicaSets(d.Namespace).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list replicasets of deployment %s/%s: %v", d.Namespace, d.Name, err)
	}
	var owned []appsv1.ReplicaSet
	for _, rs := range list.Items {
		if ref := metav1.GetControllerOf(&rs); ref != nil && ref.UID == d.UID {
			owned = append(owned, rs)
		}
	}
	sortReplicaSets(owned)
	return owned
}

package cluster

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// LoadLive reads the Deployment namespace/name and the ReplicaSets its controller claims,
// with exactly two requests: one GET of the Deployment and one LIST of ReplicaSets in the
// namespace with the Deployment's label selector (no pagination limit, as kubectl's
// deploymentutil.GetAllReplicaSets). The selection then follows the controller (see the
// package doc); the State's Source is "cluster".
//
// Errors: a missing Deployment gives `deployments.apps "web" not found in namespace "x"`
// with what to check; a Forbidden response names the verb and resource the user needs
// (`get deployments`, `list replicasets`). API errors are wrapped, so apierrors.IsNotFound
// and apierrors.IsForbidden still work on the result.
func LoadLive(ctx context.Context, client kubernetes.Interface, namespace, name string) (*State, error) {
	d, err := client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, liveError("get", "deployments", namespace, name, err)
	}
	selector, err := deploymentSelector(d)
	if err != nil {
		return nil, err
	}
	list, err := client.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, liveError("list", "replicasets", namespace, "", err)
	}
	candidates := make([]*appsv1.ReplicaSet, 0, len(list.Items))
	for i := range list.Items {
		candidates = append(candidates, &list.Items[i])
	}
	return newState(d, candidates, "cluster")
}

// liveError turns an API error into one line naming what failed and what to do.
// resource is the plural resource name in the apps group; name is empty for a list.
func liveError(verb, resource, namespace, name string, err error) error {
	what := fmt.Sprintf("%s %s.apps in namespace %q", verb, resource, namespace)
	if name != "" {
		what = fmt.Sprintf("%s %s.apps %q in namespace %q", verb, resource, name, namespace)
	}
	switch {
	case apierrors.IsNotFound(err) && name != "":
		return &apiError{err: err, msg: fmt.Sprintf(
			"%s.apps %q not found in namespace %q: check the name and the namespace (-n); `kubectl get %s -n %s` lists them",
			resource, name, namespace, resource, namespace)}
	case apierrors.IsForbidden(err):
		return &apiError{err: err, msg: fmt.Sprintf(
			"%s: forbidden: rollplan needs permission to %s %s (apps) in namespace %q; check with `kubectl auth can-i %s %s.apps -n %s` (%v)",
			what, verb, resource, namespace, verb, resource, namespace, err)}
	case apierrors.IsUnauthorized(err):
		return &apiError{err: err, msg: fmt.Sprintf("%s: unauthorized: the cluster rejected your credentials; check your kubeconfig context (%v)", what, err)}
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// apiError is an API error with a message of rollplan's own; Unwrap keeps the API status
// reachable for apierrors.IsNotFound and friends.
type apiError struct {
	err error
	msg string
}

func (e *apiError) Error() string { return e.msg }
func (e *apiError) Unwrap() error { return e.err }

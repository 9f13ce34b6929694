package cluster

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ListPods returns the pods of Deployment d's selector in its namespace, with one LIST (no
// pagination limit): the samples of pkg/estimate. Pods being deleted are left out.
//
// Errors: a Forbidden response names the permission (`list pods`) and the way around it
// (--pod-ready-after); other API errors are wrapped, one line naming the LIST.
func ListPods(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment) ([]*corev1.Pod, error) {
	selector, err := deploymentSelector(d)
	if err != nil {
		return nil, err
	}
	list, err := client.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	switch {
	case apierrors.IsForbidden(err):
		return nil, &apiError{err: err, msg: fmt.Sprintf(
			"list pods in namespace %q: forbidden: measuring how long pods take to become ready needs permission to list pods (`kubectl auth can-i list pods -n %s`); or give --pod-ready-after",
			d.Namespace, d.Namespace)}
	case err != nil:
		return nil, fmt.Errorf("list pods of deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	out := make([]*corev1.Pod, 0, len(list.Items))
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp == nil {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

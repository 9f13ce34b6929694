package cluster

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// NamespaceNames lists the names of every namespace (one LIST), in the API server's order.
// It is what shell completion offers for -n/--namespace.
//
// Errors: the LIST's, wrapped ("list namespaces: ...").
func NamespaceNames(ctx context.Context, client kubernetes.Interface) ([]string, error) {
	list, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	names := make([]string, 0, len(list.Items))
	for _, ns := range list.Items {
		names = append(names, ns.Name)
	}
	return names, nil
}

// DeploymentNames lists the names of the Deployments of namespace ns (one LIST), in the API
// server's order.
//
// Errors: the LIST's, wrapped ("list deployments in namespace NS: ...").
func DeploymentNames(ctx context.Context, client kubernetes.Interface, ns string) ([]string, error) {
	list, err := client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list deployments in namespace %s: %w", ns, err)
	}
	names := make([]string, 0, len(list.Items))
	for _, d := range list.Items {
		names = append(names, d.Name)
	}
	return names, nil
}

// LoadOwned reads Deployment ns/name (one GET) and the ReplicaSets its selector matches whose
// controller ownerReference is the Deployment (one LIST), in the API server's order. Unlike
// LoadLive it leaves out orphans the controller would adopt: these are the ReplicaSets
// `kubectl rollout history` lists as revisions today.
//
// Errors: the GET's or LIST's, wrapped with the object; an invalid selector.
func LoadOwned(ctx context.Context, client kubernetes.Interface, ns, name string) (*appsv1.Deployment, []*appsv1.ReplicaSet, error) {
	d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("get deployment %s/%s: %w", ns, name, err)
	}
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, nil, fmt.Errorf("deployment %s/%s has an invalid selector: %w", ns, name, err)
	}
	list, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, nil, fmt.Errorf("list replicasets of deployment %s/%s: %w", ns, name, err)
	}
	var owned []*appsv1.ReplicaSet
	for i := range list.Items {
		rs := &list.Items[i]
		if owner := metav1.GetControllerOf(rs); owner != nil && owner.UID == d.UID {
			owned = append(owned, rs)
		}
	}
	return d, owned, nil
}

package cluster

import (
	"context"
	"fmt"

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

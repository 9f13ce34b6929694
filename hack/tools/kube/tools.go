//go:build tools

// Package tools pins the Kubernetes v1.36.3 binaries of the local test cluster
// (and kubectl, for plugin discovery tests). Build them with hack/cluster/build.sh;
// nothing here is imported by the plugin.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)

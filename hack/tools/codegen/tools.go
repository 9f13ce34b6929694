//go:build tools

// Package tools pins deepcopy-gen (k8s.io/code-generator v0.36.3), which writes
// pkg/apis/rollplan/v1alpha1/zz_generated.deepcopy.go (make generate); nothing here is
// imported by the plugin.
package tools

import (
	_ "k8s.io/code-generator/cmd/deepcopy-gen"
)

//go:build e2e

// Package e2e holds rollplan's end-to-end tests: a real kube-apiserver and
// kube-controller-manager (v1.36.3) with kwok's fake nodes and pods (see framework). Run
// them with `make e2e`, or `go test -tags e2e ./test/e2e/...` (which starts a private
// cluster unless ROLLPLAN_E2E_KUBECONFIG names a running one).
package e2e

import (
	"testing"

	"github.com/rollplan/kubectl-rollplan/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

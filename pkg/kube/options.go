package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FieldManager is the field manager every rollplan write is recorded under (managedFields),
// the default of --field-manager, and the source component of rollplan's Events.
const FieldManager = "kubectl-rollplan"

// ReloadFieldManager is the field manager of reload's writes (the restart's template
// annotation rollplan.dev/config-checksums and the adopt annotation; `reload` and `reload
// --watch`), the default of reload's --field-manager. It does not start with "kubectl":
// Flux's kustomize-controller takes over, before each apply from Git, the managedFields of
// every manager whose name starts with "kubectl" (fluxcd/pkg/ssa PatchReplaceFieldsManagers
// matches by prefix, with kubectl/Apply and kubectl/Update in the controller's cleanup
// list) and then removes what Git lacks: under FieldManager a restart would be reverted and
// rolled back by Flux's next reconcile (test/e2e/gitops_test.go shows both).
const ReloadFieldManager = "rollplan-reload"

// Options are what a write carries besides its object: the field manager and whether it is
// a server-side dry run (dryRun=All: validated and admitted, nothing stored).
type Options struct {
	// FieldManager names the writer in managedFields; "" sends none (the API server then
	// derives one from the user agent).
	FieldManager string
	// DryRun sends the write with dryRun=All.
	DryRun bool
}

// Default is the Options of drive's writes: field manager FieldManager, no dry run.
func Default() Options { return Options{FieldManager: FieldManager} }

func (o Options) dryRun() []string {
	if o.DryRun {
		return []string{metav1.DryRunAll}
	}
	return nil
}

// PatchOptions returns o as metav1.PatchOptions.
func (o Options) PatchOptions() metav1.PatchOptions {
	return metav1.PatchOptions{FieldManager: o.FieldManager, DryRun: o.dryRun()}
}

// CreateOptions returns o as metav1.CreateOptions.
func (o Options) CreateOptions() metav1.CreateOptions {
	return metav1.CreateOptions{FieldManager: o.FieldManager, DryRun: o.dryRun()}
}

// UpdateOptions returns o as metav1.UpdateOptions.
func (o Options) UpdateOptions() metav1.UpdateOptions {
	return metav1.UpdateOptions{FieldManager: o.FieldManager, DryRun: o.dryRun()}
}

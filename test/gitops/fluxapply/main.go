// Command fluxapply applies a manifest file as Flux's kustomize-controller applies a
// Kustomization's build output: server-side apply through github.com/fluxcd/pkg/ssa
// (ResourceManager.ApplyAllStaged) as field manager "kustomize-controller", with the
// controller's own ApplyOptions and metadata cleanup, in particular its list of field
// managers whose fields it takes over before applying. The e2e tests (test/e2e/gitops_test.go)
// use it to show that a restart written by `kubectl rollplan reload` survives Flux's next
// apply from Git, and that one written under a "kubectl"-prefixed field manager does not.
//
// Mirrored from fluxcd/kustomize-controller, internal/controller/kustomization_controller.go
// (commit 186fb3b29138ce82ff61ba1a9370b96a3dd598fe): KustomizationReconciler.apply (applyOpts,
// fieldManagers, applyOpts.Cleanup) and the ResourceManager of reconcile (ssa.Owner{Field:
// r.ControllerName, Group: kustomizev1.GroupVersion.Group}, SetOwnerLabels), with
// controllerName "kustomize-controller" from its main.go. Left out: SOPS decryption,
// spec.force, spec.ignore rules, --override-manager (DisallowedFieldManagers, empty by
// default), impersonation, health checks and pruning.
//
// Usage: fluxapply -kubeconfig FILE -f MANIFEST [-name KUSTOMIZATION] [-namespace NS]
// Prints one line per object of the change set ("Deployment/ns/web configured",
// "... unchanged"), as the controller logs and reports it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/normalize"
	ssautil "github.com/fluxcd/pkg/ssa/utils"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// controllerName is kustomize-controller's field manager (main.go: controllerName).
const controllerName = "kustomize-controller"

// group is kustomizev1.GroupVersion.Group, the prefix of the controller's owner labels and
// selector annotations.
const group = "kustomize.toolkit.fluxcd.io"

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster (required)")
	file := flag.String("f", "", "manifest file to apply, YAML or JSON, several documents (required)")
	name := flag.String("name", "gitops", "name of the Kustomization the objects belong to (owner labels)")
	namespace := flag.String("namespace", "flux-system", "namespace of that Kustomization (owner labels)")
	timeout := flag.Duration("timeout", 2*time.Minute, "how long the apply may take")
	flag.Parse()
	if *kubeconfig == "" || *file == "" {
		fmt.Fprintln(os.Stderr, "fluxapply: -kubeconfig and -f are required")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *kubeconfig, *file, *name, *namespace); err != nil {
		fmt.Fprintln(os.Stderr, "fluxapply:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, file, name, namespace string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	kubeClient, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	objects, err := ssautil.ReadObjects(f)
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}

	manager := ssa.NewResourceManager(kubeClient, nil, ssa.Owner{Field: controllerName, Group: group})
	manager.SetOwnerLabels(objects, name, namespace)

	if err := normalize.UnstructuredList(objects); err != nil {
		return err
	}
	changeSet, err := manager.ApplyAllStaged(ctx, objects, applyOptions())
	if err != nil {
		return err
	}
	for _, e := range changeSet.Entries {
		fmt.Println(e.String())
	}
	return nil
}

// applyOptions are KustomizationReconciler.apply's ApplyOptions for a Kustomization without
// spec.force, spec.ignore or --override-manager.
func applyOptions() ssa.ApplyOptions {
	opts := ssa.DefaultApplyOptions()
	opts.Force = false
	opts.ExclusionSelector = map[string]string{
		group + "/reconcile": "disabled",
		group + "/ssa":       "Ignore",
	}
	opts.IfNotPresentSelector = map[string]string{group + "/ssa": "IfNotPresent"}
	opts.ForceSelector = map[string]string{group + "/force": "enabled"}
	opts.Cleanup = ssa.ApplyCleanupOptions{
		Annotations: []string{
			// remove the kubectl annotation
			corev1.LastAppliedConfigAnnotation,
			// remove deprecated fluxcd.io annotations
			"kustomize.toolkit.fluxcd.io/checksum",
			"fluxcd.io/sync-checksum",
		},
		Labels: []string{"fluxcd.io/sync-gc-mark"},
		// The managers whose fields the controller takes over (ssa.PatchReplaceFieldsManagers:
		// a manager matches when its name STARTS WITH Name, same operation, no subresource).
		FieldManagers: []ssa.FieldManager{
			// to undo changes made with 'kubectl apply --server-side --force-conflicts'
			{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationApply},
			// to undo changes made with 'kubectl apply'
			{Name: "kubectl", OperationType: metav1.ManagedFieldsOperationUpdate},
			// to undo changes made with 'kubectl apply'
			{Name: "before-first-apply", OperationType: metav1.ManagedFieldsOperationUpdate},
			// to undo changes made by the controller before SSA
			{Name: controllerName, OperationType: metav1.ManagedFieldsOperationUpdate},
		},
		Exclusions: map[string]string{group + "/ssa": "Merge"},
	}
	return opts
}

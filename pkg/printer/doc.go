// Package printer is every human renderer of rollplan: plans, histories, drive's plan,
// comparison and status, drive's progress events (DriveProgress), and the lines the commands print (kubectl's result lines, warnings,
// dry-run notes, version). It also builds the versioned objects of package v1alpha1 (kind
// RolloutPlan, RolloutHistory; apiVersion rollplan.dev/v1alpha1) that
// -o json|yaml|jsonpath|go-template prints through cli-runtime's printers. Output is free of
// clocks and map order.
package printer

package pipeline

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rollplan/kubectl-rollplan/pkg/manifest"
	"github.com/rollplan/kubectl-rollplan/pkg/planner"
)

// KindManifests returns the apps/v1 StatefulSets and DaemonSets of set (IsKindManifest).
func KindManifests(set *manifest.Set) []manifest.Object {
	var out []manifest.Object
	for _, obj := range set.Others {
		if IsKindManifest(obj.Object) {
			out = append(out, obj)
		}
	}
	return out
}

// PlanKindManifests plans each of kinds (a manifest set's StatefulSets and DaemonSets) in src
// (PlanKindManifest) at now (UTC, truncated to the second) with readiness (planner.Readiness)
// and timing t: one row each, in order, named context, Err when it could not be planned. With
// checks (feasibility.ParseChecks'), each plan's feasibility checks run too (Config.CheckKind).
func PlanKindManifests(ctx context.Context, src KindSource, context string, kinds []manifest.Object, readiness string, now time.Time, t KindTiming, checks []string) []KindRow {
	at := metav1.NewTime(now.UTC().Truncate(time.Second))
	cfg := &Config{Feasibility: checks}
	rows := make([]KindRow, 0, len(kinds))
	for _, obj := range kinds {
		p, err := PlanKindManifest(ctx, src, obj.Object, planner.Readiness(readiness), at, t)
		row := KindRow{Context: context, Workload: WorkloadRef{Kind: obj.Kind(), Namespace: obj.Object.GetNamespace(), Name: obj.Object.GetName()}, Err: err}
		if err == nil {
			cfg.CheckKind(ctx, src, p.Plan)
			row.Plan = p.Plan
		}
		rows = append(rows, row)
	}
	return rows
}

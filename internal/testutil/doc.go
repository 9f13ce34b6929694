// Package testutil holds fluent builders for the objects rollplan's tests start from, so a
// test case reads like the state it describes:
//
//	d := testutil.Deployment("web").Replicas(10).Image("nginx:1.19").Build()
//	old := testutil.ReplicaSetFor(d).Image("nginx:1.18").Revision(1).Replicas(10).Created(0).Build()
//	cur := testutil.ReplicaSetFor(d).Revision(2).Replicas(0).Created(1).Build()
//
// Objects come out the way a v1.36.3 API server stores them, computed with the production
// functions rather than copies of them: a Deployment has the apps/v1 and pod template
// defaults of change.ApplyDefaults (replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit
// 10, progressDeadlineSeconds 600, dnsPolicy, restartPolicy, schedulerName, securityContext
// {}, terminationGracePeriodSeconds 30, imagePullPolicy, terminationMessagePath/Policy); a
// ReplicaSet built from a Deployment carries the pod-template-hash (planner.ComputeHash),
// name (planner.ReplicaSetName), selector, controller ownerRef and deployment.kubernetes.io
// annotations (deployutil) the Deployment controller would give it. Every builder method
// returns the builder; Build returns a fresh object each call, so one builder can produce
// several variants. Times are deterministic (see Time).
//
// Files by kind: deployment.go, replicaset.go, pod.go (containers), meta.go (times, UIDs),
// golden.go (golden files).
package testutil

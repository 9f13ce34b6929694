// Package testutil holds fluent builders for the objects rollplan's tests start from, so a
// test case reads like the state it describes:
//
//	d := testutil.Deployment("web").Replicas(10).Image("nginx:1.19").Build()
//	old := testutil.ReplicaSetFor(d).Image("nginx:1.18").Revision(1).Replicas(10).Created(0).Build()
//	cur := testutil.ReplicaSetFor(d).Revision(2).Replicas(0).Created(1).Build()
//
// Objects come out the way a v1.36.3 API server stores them: a Deployment has the apps/v1
// defaults (replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10,
// progressDeadlineSeconds 600) and a server-defaulted pod template (dnsPolicy,
// restartPolicy, schedulerName, securityContext {}, terminationGracePeriodSeconds 30,
// imagePullPolicy, terminationMessagePath/Policy); a ReplicaSet built from a Deployment
// carries the pod-template-hash label, name, selector, controller ownerRef and
// deployment.kubernetes.io annotations the Deployment controller would give it. Every
// builder method returns the builder; Build returns a fresh object each call, so one builder
// can produce several variants. Times are deterministic (see Time).
package testutil

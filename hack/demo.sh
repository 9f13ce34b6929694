#!/usr/bin/env bash
# make demo: the main job, end to end, on an embedded default. Needs no cluster of yours:
#   1. an offline preview of the bundled state file (examples/state.yaml);
#   2. a private local cluster (Kubernetes v1.36.3 built from Go modules, kwok pods), a sample
#      Deployment, a live preview of an image change, the change itself, and a check that the
#      controller's ReplicaSet writes are exactly the plan's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
plugin=$root/_output/bin/kubectl-rollplan
kubectl=$root/_output/bin/kubectl
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "1. Offline: preview an image change on the bundled state (examples/state.yaml), no cluster"
"$plugin" preview deploy/web --state-file examples/state.yaml --image nginx=nginx:1.27

say "2. Start a private cluster (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)"
export ROLLPLAN_CLUSTER_DIR=${ROLLPLAN_DEMO_DIR:-$(mktemp -d /tmp/rollplan-demo.XXXXXX)}
rmdir "$ROLLPLAN_CLUSTER_DIR" 2>/dev/null || true
trap 'hack/cluster/down.sh >/dev/null 2>&1 || true' EXIT
hack/cluster/up.sh
export KUBECONFIG=$ROLLPLAN_CLUSTER_DIR/kubeconfig

say "3. A sample Deployment: web, 10 replicas of nginx:1.18, RollingUpdate 25%/25%"
"$kubectl" create deployment web --image=nginx:1.18 --replicas=10 --save-config
"$kubectl" rollout status deployment/web --timeout=120s

# The new version's pods carry the label rollplan.test/hold: kwok keeps such pods unready
# until the label is removed, so the rollout stops where the controller waits, as with an app
# whose new pods never become ready.
cat >"$ROLLPLAN_CLUSTER_DIR/web-v2.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 10
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web, rollplan.test/hold: "demo"}
    spec:
      containers:
      - name: nginx
        image: nginx:1.19
YAML

say "4. Preview the change (nothing changes in the cluster): new pods never ready"
"$plugin" preview deploy/web -f "$ROLLPLAN_CLUSTER_DIR/web-v2.yaml" --readiness never
plan=$("$plugin" preview deploy/web -f "$ROLLPLAN_CLUSTER_DIR/web-v2.yaml" --readiness never \
  -o jsonpath='{range .steps[*]}{.replicaSet} {.from} {.to}{"\n"}{end}')
echo "(ReplicaSets before the change: $("$kubectl" get rs -o name | wc -l))"

say "5. Apply it, and record what the controller really writes"
"$kubectl" apply -f "$ROLLPLAN_CLUSTER_DIR/web-v2.yaml"
# Wait until the controller has stopped writing (no new ScalingReplicaSet event for 3 s).
events() {
  "$kubectl" get events --field-selector reason=ScalingReplicaSet -o go-template \
    --template '{{range .items}}{{.metadata.creationTimestamp}} {{.metadata.name}} {{.message}}{{"\n"}}{{end}}' | sort
}
last=""; stable=0
for _ in $(seq 1 60); do
  now=$(events | wc -l)
  if [[ $now == "$last" ]]; then stable=$((stable + 1)); else stable=0; fi
  last=$now
  [[ $stable -ge 3 ]] && break
  sleep 1
done
# The controller's messages: "Scaled up replica set web-x from 3 to 5"; the first 10->... is
# from the initial rollout of step 3 (0 -> 10), which the plan does not include.
actual=$(events | sed -n 's/.*Scaled \(up\|down\) replica set \([^ ]*\) from \([0-9]*\) to \([0-9]*\)$/\2 \3 \4/p' | tail -n +2)
echo "Planned writes:"; echo "$plan" | sed 's/^/  /'
echo "Controller's writes (ScalingReplicaSet events):"; echo "$actual" | sed 's/^/  /'
if [[ "$plan" == "$actual" ]]; then
  echo "MATCH: the controller made exactly the planned writes, in order."
else
  echo "MISMATCH between plan and controller" >&2
  exit 1
fi
"$kubectl" get rs

say "6. Let the new pods become ready; the rollout completes as previewed under --readiness batched"
for _ in $(seq 1 60); do
  "$kubectl" label pods -l rollplan.test/hold rollplan.test/hold- >/dev/null 2>&1 || true
  if "$kubectl" rollout status deployment/web --timeout=1s >/dev/null 2>&1; then break; fi
done
"$kubectl" rollout status deployment/web --timeout=30s
"$kubectl" get rs
"$plugin" preview deploy/web

#!/usr/bin/env bash
# Starts a private local Kubernetes v1.36.3 cluster on loopback: etcd, kube-apiserver,
# kube-controller-manager (deployment, replicaset, statefulset, daemonset, serviceaccount,
# resourcequota, garbage-collector and namespace controllers), kube-scheduler and kwok (fake nodes and pods, stages from
# hack/cluster/kwok-stages.yaml). See docs/local-cluster.md in the shared notes.
#
# Usage: hack/cluster/up.sh [--no-deployment-controller] [--api-only]
#
# --api-only starts etcd and kube-apiserver alone (no controllers, scheduler, kwok or node):
# enough for the read-only verbs (preview, history, status), ready in seconds. A second
# cluster beside the full one for the multi-context e2e tests (test/e2e/framework's
# StartAPIServer); nothing moves a ReplicaSet or a pod there but the client, and namespaces
# get no "default" ServiceAccount.
#
# hack/cluster/component.sh stops and starts one component of the running cluster (fault
# tests).
#
# Environment:
#   ROLLPLAN_CLUSTER_DIR   state dir (default _output/cluster); must be absent or empty.
#                          Holds kubeconfig, env, pids/, logs/*.log, certs and etcd data.
#   ROLLPLAN_CLUSTER_NO_DEPLOYMENT_CONTROLLER=1
#                          same as --no-deployment-controller: nothing but the client moves
#                          ReplicaSets.
#   ROLLPLAN_CLUSTER_API_ONLY=1 same as --api-only.
#   ROLLPLAN_CLUSTER_NODES number of fake nodes (default 1).
#   ROLLPLAN_BIN           where build.sh puts the binaries (default _output/bin).
#
# Every component listens on a free loopback port chosen at start, so several clusters can
# run side by side (each with its own state dir). Stop with hack/cluster/down.sh (same
# ROLLPLAN_CLUSTER_DIR). Use <state>/kubeconfig (admin, bearer token).
set -euo pipefail
start_time=$SECONDS
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${ROLLPLAN_BIN:-$root/_output/bin}
state=${ROLLPLAN_CLUSTER_DIR:-$root/_output/cluster}
nodes=${ROLLPLAN_CLUSTER_NODES:-1}
no_dc=${ROLLPLAN_CLUSTER_NO_DEPLOYMENT_CONTROLLER:-0}
api_only=${ROLLPLAN_CLUSTER_API_ONLY:-0}

for arg in "$@"; do
  case $arg in
  --no-deployment-controller) no_dc=1 ;;
  --api-only) api_only=1 ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "up.sh: unknown argument $arg (see hack/cluster/up.sh --help)" >&2
    exit 2
    ;;
  esac
done

log() { echo "up.sh: $*" >&2; }
die() {
  log "$*"
  exit 1
}

"$root/hack/cluster/build.sh" etcd kwok kube
build_secs=$((SECONDS - start_time))

mkdir -p "$state"
state=$(cd "$state" && pwd)
if [[ -n $(ls -A "$state") ]]; then
  die "state dir $state is not empty (a cluster may be running there): run ROLLPLAN_CLUSTER_DIR=$state hack/cluster/down.sh first, or pick another ROLLPLAN_CLUSTER_DIR"
fi
touch "$state/.rollplan-cluster" # down.sh only removes a dir carrying this marker
mkdir -p "$state/logs" "$state/pids" "$state/certs" "$state/etcd"

# On failure, stop whatever this run started and show where the logs are; the state dir
# (with its logs) stays for inspection until down.sh removes it.
ok=0
cleanup() {
  if [[ $ok != 1 ]]; then
    log "start failed; stopping what was started (logs in $state/logs)"
    ROLLPLAN_CLUSTER_KEEP_STATE=1 ROLLPLAN_CLUSTER_DIR=$state "$root/hack/cluster/down.sh" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

# --- ports ---------------------------------------------------------------------------------
# A port is free when no socket in /proc/net/tcp{,6} uses it (local or remote side). Ports are
# drawn at random below the ephemeral range so concurrent clusters rarely pick the same one;
# a clash shows up as a component that exits at once, and up.sh then fails with its log.
picked=" "
port_in_use() {
  local hex
  hex=$(printf '%04X' "$1")
  grep -q ":$hex " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
free_port() { # free_port VAR
  local p
  while :; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    [[ $picked == *" $p "* ]] && continue
    port_in_use "$p" && continue
    picked+="$p "
    printf -v "$1" '%s' "$p"
    return
  done
}
free_port etcd_port
free_port etcd_peer_port
free_port apiserver_port
free_port kcm_port
free_port scheduler_port
free_port kwok_port

# --- credentials ---------------------------------------------------------------------------
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$token,admin,admin,system:masters" >"$state/certs/tokens.csv"
if command -v openssl >/dev/null 2>&1; then
  openssl genrsa -out "$state/certs/sa.key" 2048 2>/dev/null
  openssl rsa -in "$state/certs/sa.key" -pubout -out "$state/certs/sa.pub" 2>/dev/null
else
  log "openssl not found; generating the service-account key with go run hack/cluster/genkey.go"
  (cd "$root" && go run hack/cluster/genkey.go "$state/certs/sa.key" "$state/certs/sa.pub")
fi
chmod 600 "$state/certs/sa.key" "$state/certs/tokens.csv"

kubeconfig=$state/kubeconfig
cat >"$kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: rollplan-local
  cluster:
    server: https://127.0.0.1:$apiserver_port
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: $token
contexts:
- name: rollplan-local
  context:
    cluster: rollplan-local
    user: admin
    namespace: default
current-context: rollplan-local
EOF
chmod 600 "$kubeconfig"

# --- processes -----------------------------------------------------------------------------
# start NAME BINARY ARGS...: runs in its own session (so a Ctrl-C of the caller does not
# half-kill the cluster), logs to logs/NAME.log, pid in pids/NAME.pid, its command line in
# cmd/NAME (NUL-separated, for hack/cluster/component.sh to start it again).
start() {
  local name=$1 binary=$2
  shift 2
  mkdir -p "$state/cmd"
  printf '%s\0' "$bin/$binary" "$@" >"$state/cmd/$name"
  setsid "$bin/$binary" "$@" >"$state/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$state/pids/$name.pid"
}
alive() { kill -0 "$(cat "$state/pids/$1.pid")" 2>/dev/null; }
# wait_for NAME TIMEOUT_S CMD...: polls CMD every 0.2 s while NAME is alive.
wait_for() {
  local name=$1 timeout=$2
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ! alive "$name"; then
      tail -n 20 "$state/logs/$name.log" >&2 || true
      die "$name exited during start (log: $state/logs/$name.log)"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 20 "$state/logs/$name.log" >&2 || true
      die "$name not ready after ${timeout}s (log: $state/logs/$name.log)"
    fi
    sleep 0.2
  done
}
kubectl() { "$bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }

start etcd etcd \
  --name=rollplan --data-dir="$state/etcd" \
  --listen-client-urls="http://127.0.0.1:$etcd_port" --advertise-client-urls="http://127.0.0.1:$etcd_port" \
  --listen-peer-urls="http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls="http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster="rollplan=http://127.0.0.1:$etcd_peer_port" \
  --unsafe-no-fsync --log-level=warn
wait_for etcd 30 curl -fsS "http://127.0.0.1:$etcd_port/health"

start kube-apiserver kube-apiserver \
  --etcd-servers="http://127.0.0.1:$etcd_port" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$apiserver_port" \
  --cert-dir="$state/certs/apiserver" \
  --token-auth-file="$state/certs/tokens.csv" --authorization-mode=RBAC \
  --service-account-issuer=https://kubernetes.default.svc \
  --service-account-key-file="$state/certs/sa.pub" \
  --service-account-signing-key-file="$state/certs/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 \
  --endpoint-reconciler-type=none --profiling=false
wait_for kube-apiserver 90 curl -fsSk -H "Authorization: Bearer $token" "https://127.0.0.1:$apiserver_port/readyz"

if [[ $api_only == 1 ]]; then
  cat >"$state/env" <<EOF
ROLLPLAN_CLUSTER_DIR=$state
KUBECONFIG=$kubeconfig
APISERVER=https://127.0.0.1:$apiserver_port
ETCD_PORT=$etcd_port
APISERVER_PORT=$apiserver_port
API_ONLY=1
EOF
  ok=1
  log "API server up in $((SECONDS - start_time - build_secs))s (+${build_secs}s build check), etcd and kube-apiserver only: https://127.0.0.1:$apiserver_port; KUBECONFIG=$kubeconfig"
  exit 0
fi

# statefulset-controller and daemonset-controller: the history, undo, restart and status of
# those kinds are tested against the real controllers (test/e2e/kinds_test.go).
# resourcequota-controller: a ResourceQuota's status.used, so quota admission refuses pods
# past its hard limits as a real cluster does (test/e2e/stall_test.go, feasibility e2e). Its
# full recount every 15 s (--resource-quota-sync-period, default 5m) mends a pod that quota
# admission did not charge because it was admitted before the admission cache had the new
# quota (seen once on a loaded machine: status.used stayed 1 of 2 pods).
controllers=replicaset-controller,statefulset-controller,daemonset-controller,serviceaccount-controller,resourcequota-controller,garbage-collector-controller,namespace-controller
[[ $no_dc == 1 ]] || controllers=deployment-controller,$controllers
start kube-controller-manager kube-controller-manager \
  --kubeconfig="$kubeconfig" --leader-elect=false \
  --bind-address=127.0.0.1 --secure-port="$kcm_port" --cert-dir="$state/certs/kcm" \
  --service-account-private-key-file="$state/certs/sa.key" \
  --controllers="$controllers" --resource-quota-sync-period=15s \
  --kube-api-qps=100 --kube-api-burst=200 --profiling=false
start kube-scheduler kube-scheduler \
  --kubeconfig="$kubeconfig" --leader-elect=false \
  --bind-address=127.0.0.1 --secure-port="$scheduler_port" --cert-dir="$state/certs/scheduler" \
  --kube-api-qps=100 --kube-api-burst=200 --profiling=false
start kwok kwok \
  --kubeconfig="$kubeconfig" --manage-all-nodes=true \
  --server-address="127.0.0.1:$kwok_port" --cidr=10.244.0.1/16 \
  --config="$root/hack/cluster/kwok-stages.yaml"

cat >"$state/env" <<EOF
ROLLPLAN_CLUSTER_DIR=$state
KUBECONFIG=$kubeconfig
APISERVER=https://127.0.0.1:$apiserver_port
ETCD_PORT=$etcd_port
APISERVER_PORT=$apiserver_port
KCM_PORT=$kcm_port
SCHEDULER_PORT=$scheduler_port
KWOK_PORT=$kwok_port
DEPLOYMENT_CONTROLLER=$([[ $no_dc == 1 ]] && echo off || echo on)
EOF

# Fake nodes. Without the node-lifecycle controller nothing lifts the not-ready taint that
# admission puts on a new Node, so remove it by hand once kwok has marked the node Ready.
for i in $(seq 1 "$nodes"); do
  kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Node
metadata:
  name: fake-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    type: kwok
    kubernetes.io/hostname: fake-node-$i
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
EOF
done
node_ready() {
  local out
  out=$(kubectl get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}')
  [[ $(grep -c '^True$' <<<"$out") == "$nodes" ]]
}
wait_for kwok 60 node_ready
for i in $(seq 1 "$nodes"); do
  kubectl taint nodes "fake-node-$i" node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
done

wait_for kube-controller-manager 60 curl -fsSk "https://127.0.0.1:$kcm_port/healthz"
wait_for kube-scheduler 60 curl -fsSk "https://127.0.0.1:$scheduler_port/healthz"
wait_for kube-controller-manager 60 kubectl -n default get serviceaccount default

ok=1
log "cluster up in $((SECONDS - start_time - build_secs))s (+${build_secs}s build check): apiserver https://127.0.0.1:$apiserver_port, $nodes fake node(s), deployment-controller $([[ $no_dc == 1 ]] && echo off || echo on); KUBECONFIG=$kubeconfig"

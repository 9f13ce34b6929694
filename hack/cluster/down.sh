#!/usr/bin/env bash
# Stops a cluster started by hack/cluster/up.sh and removes its state dir.
#
# Environment:
#   ROLLPLAN_CLUSTER_DIR         state dir (default _output/cluster), as given to up.sh.
#   ROLLPLAN_CLUSTER_KEEP_STATE=1 stop the processes but keep the state dir (logs).
#
# Only the processes recorded in <state>/pids are stopped (TERM, then KILL after 15 s), and
# only if they still run the binary up.sh started. The state dir is removed only if it
# carries up.sh's marker file. Stopping a cluster that is not running is not an error.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
state=${ROLLPLAN_CLUSTER_DIR:-$root/_output/cluster}
log() { echo "down.sh: $*" >&2; }

if [[ ! -d $state ]]; then
  log "no cluster state at $state; nothing to stop"
  exit 0
fi
if [[ ! -f $state/.rollplan-cluster ]]; then
  log "$state is not a cluster state dir made by up.sh (no .rollplan-cluster marker); refusing to touch it"
  exit 1
fi

# stop NAME...: TERM the named components at once (each takes about 2 s to exit), KILL what
# is left after 15 s.
stopped=0
stop() {
  local names=() pids=() name pid exe i
  for name in "$@"; do
    local f=$state/pids/$name.pid
    [[ -f $f ]] || continue
    pid=$(cat "$f")
    rm -f "$f"
    # The pid must still be the process up.sh started (pid reuse): its executable's name.
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
    [[ $(basename "${exe% (deleted)}") == "$name" ]] || continue
    kill -TERM "$pid" 2>/dev/null || true
    names+=("$name") pids+=("$pid")
  done
  for _ in $(seq 1 150); do
    local running=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
    ((running)) || break
    sleep 0.1
  done
  for i in "${!pids[@]}"; do
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      log "${names[$i]} (pid ${pids[$i]}) did not stop 15s after TERM; sending KILL"
      kill -KILL "${pids[$i]}" 2>/dev/null || true
    fi
  done
  stopped=$((stopped + ${#pids[@]}))
}
# etcd last: a kube-apiserver that loses etcd while shutting down can hang.
stop kwok kube-scheduler kube-controller-manager kube-apiserver
stop etcd

if [[ ${ROLLPLAN_CLUSTER_KEEP_STATE:-0} == 1 ]]; then
  log "stopped $stopped process(es); state kept in $state"
else
  rm -rf "$state"
  log "stopped $stopped process(es); removed $state"
fi

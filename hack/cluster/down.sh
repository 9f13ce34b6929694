#!/usr/bin/env bash
# Stops a cluster started by hack/cluster/up.sh and removes its state dir.
#
# Environment:
#   ROLLPLAN_CLUSTER_DIR         state dir (default _output/cluster), as given to up.sh.
#   ROLLPLAN_CLUSTER_KEEP_STATE=1 stop the processes but keep the state dir (logs).
#
# Only the processes recorded in <state>/pids are stopped (TERM, then KILL after 10 s), and
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

# Stop in reverse start order, so controllers do not log errors about a vanished apiserver.
pids=()
for name in kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
  f=$state/pids/$name.pid
  [[ -f $f ]] || continue
  pid=$(cat "$f")
  # The pid must still be the process up.sh started (pid reuse): its executable's name.
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
  if [[ $(basename "${exe% (deleted)}") == "$name" ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    pids+=("$pid")
  fi
  rm -f "$f"
done
for pid in "${pids[@]}"; do
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not stop after 10s; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
done

if [[ ${ROLLPLAN_CLUSTER_KEEP_STATE:-0} == 1 ]]; then
  log "stopped ${#pids[@]} process(es); state kept in $state"
else
  rm -rf "$state"
  log "stopped ${#pids[@]} process(es); removed $state"
fi

#!/usr/bin/env bash
# Stops and starts one component of a cluster started by hack/cluster/up.sh, for fault
# tests (test/e2e/framework: Cluster.StopComponent, StartComponent, Outage).
#
# Usage: hack/cluster/component.sh stop NAME [--kill]
#        hack/cluster/component.sh start NAME
#        hack/cluster/component.sh restart NAME [SECONDS] [--kill]
#        hack/cluster/component.sh status NAME
#
# NAME is etcd, kube-apiserver, kube-controller-manager, kube-scheduler or kwok.
#   stop     TERM (KILL after 15 s), or KILL at once with --kill (a crash). The command line
#            is kept in <state>/cmd/NAME (up.sh writes it; stop copies it from /proc when a
#            cluster predates that), so start runs the same binary with the same flags.
#   start    starts it again (same ports, log appended to logs/NAME.log, pid in pids/NAME.pid)
#            and waits until it is healthy (etcd /health, kube-apiserver /readyz,
#            kube-controller-manager and kube-scheduler /healthz; kwok: running).
#   restart  stop, sleep SECONDS (default 0), start.
#   status   prints "running PID" or "stopped" (exit 0 / 3).
#
# Environment: ROLLPLAN_CLUSTER_DIR, the state dir (default _output/cluster), as for up.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
state=${ROLLPLAN_CLUSTER_DIR:-$root/_output/cluster}
log() { echo "component.sh: $*" >&2; }
die() {
  log "$*"
  exit 1
}
usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

[[ $# -ge 2 ]] || {
  usage >&2
  exit 2
}
verb=$1 name=$2
shift 2
case $name in
etcd | kube-apiserver | kube-controller-manager | kube-scheduler | kwok) ;;
*) die "unknown component $name (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)" ;;
esac
[[ -f $state/.rollplan-cluster ]] || die "$state is not a cluster state dir made by up.sh (set ROLLPLAN_CLUSTER_DIR)"
# shellcheck disable=SC1091
source "$state/env"
pidfile=$state/pids/$name.pid
cmdfile=$state/cmd/$name

running_pid() { # prints the pid when NAME runs (the pid still runs the binary up.sh started)
  [[ -f $pidfile ]] || return 1
  local pid exe
  pid=$(cat "$pidfile")
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
  [[ $(basename "${exe% (deleted)}") == "$name" ]] || return 1
  echo "$pid"
}

healthy() {
  local token
  token=$(cut -d, -f1 "$state/certs/tokens.csv")
  case $name in
  etcd) curl -fsS "http://127.0.0.1:$ETCD_PORT/health" ;;
  kube-apiserver) curl -fsSk -H "Authorization: Bearer $token" "https://127.0.0.1:$APISERVER_PORT/readyz" ;;
  kube-controller-manager) curl -fsSk "https://127.0.0.1:$KCM_PORT/healthz" ;;
  kube-scheduler) curl -fsSk "https://127.0.0.1:$SCHEDULER_PORT/healthz" ;;
  kwok) running_pid ;;
  esac
}

stop() {
  local kill=0 pid
  [[ ${1:-} == --kill ]] && kill=1
  pid=$(running_pid) || {
    log "$name is not running"
    return 0
  }
  if [[ ! -s $cmdfile ]]; then
    mkdir -p "$state/cmd"
    cp "/proc/$pid/cmdline" "$cmdfile"
  fi
  if ((kill)); then
    kill -KILL "$pid" 2>/dev/null || true
  else
    kill -TERM "$pid" 2>/dev/null || true
  fi
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name (pid $pid) did not stop 15s after TERM; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  fi
  echo "stopped $name (pid $pid)" >>"$state/logs/$name.log"
  log "stopped $name (pid $pid)"
}

start() {
  local pid
  if pid=$(running_pid); then
    log "$name is already running (pid $pid)"
    return 0
  fi
  [[ -s $cmdfile ]] || die "no command line of $name in $cmdfile (was it started by up.sh?)"
  local args=()
  mapfile -d '' args <"$cmdfile"
  echo "starting $name again" >>"$state/logs/$name.log"
  setsid "${args[@]}" >>"$state/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  local deadline=$((SECONDS + 90))
  until healthy >/dev/null 2>&1; do
    if ! running_pid >/dev/null; then
      tail -n 20 "$state/logs/$name.log" >&2 || true
      die "$name exited during start (log: $state/logs/$name.log)"
    fi
    ((SECONDS < deadline)) || die "$name not healthy after 90s (log: $state/logs/$name.log)"
    sleep 0.1
  done
  log "started $name (pid $(cat "$pidfile"))"
}

case $verb in
stop) stop "$@" ;;
start) start ;;
restart)
  secs=0 kill=()
  for a in "$@"; do
    case $a in
    --kill) kill=(--kill) ;;
    *) secs=$a ;;
    esac
  done
  stop "${kill[@]}"
  sleep "$secs"
  start
  ;;
status)
  if pid=$(running_pid); then
    echo "running $pid"
  else
    echo stopped
    exit 3
  fi
  ;;
*)
  usage >&2
  exit 2
  ;;
esac

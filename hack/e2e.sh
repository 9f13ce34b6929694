#!/usr/bin/env bash
# make e2e: the end-to-end tests (test/e2e) on two private clusters side by side.
#
# Most e2e tests wait on the cluster, not on the cores. The tests that stop or restart the
# cluster's own components (TestFault*: kube-apiserver, etcd, kube-controller-manager), lose a
# node or kill the plugin mid-drive (the ISOLATED pattern below) run on a cluster of their own,
# one at a time, while every other test runs on the main cluster (those that call t.Parallel up
# to 4 at once). Both are the same `go test -tags e2e -race` of the same package; the two runs
# split the tests by -run and -skip with one pattern, so every test runs exactly once.
#
# The isolated run's output is kept in _output/e2e-isolated.log and printed after the main
# run's. Both clusters are stopped when the script ends, whatever the outcome; a failed run's
# cluster logs are copied to _output/e2e-logs (main) and _output/e2e-isolated-logs.
#
# Environment: GO (go), E2E_FLAGS (extra go test flags for both runs, for example -v).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
read -r -a extra <<<"${E2E_FLAGS:-}"

# The tests that disturb the cluster they run on (or the plugin process) beyond their own
# namespace: one at a time, on their own cluster.
isolated='^(TestFault.*|TestStallNodeLost|TestStallDriveNodeLost|TestDrivePodsLoseAvailability|TestDriveCrashResume)$'

mkdir -p _output
main=$(mktemp -d "$root/_output/e2e-cluster.XXXXXX")
iso=$(mktemp -d "$root/_output/e2e-isolated-cluster.XXXXXX")
rm -f _output/e2e-isolated.log
iso_pid=""

cleanup() {
  local rc=$?
  if [[ -n $iso_pid ]]; then kill "$iso_pid" 2>/dev/null; wait "$iso_pid" 2>/dev/null; fi
  if ((rc != 0)); then
    if [[ -d $main/logs ]]; then rm -rf _output/e2e-logs; cp -r "$main/logs" _output/e2e-logs; echo "e2e: main cluster logs in _output/e2e-logs" >&2; fi
    if [[ -d $iso/logs ]]; then rm -rf _output/e2e-isolated-logs; cp -r "$iso/logs" _output/e2e-isolated-logs; echo "e2e: isolated cluster logs in _output/e2e-isolated-logs" >&2; fi
  fi
  ROLLPLAN_CLUSTER_DIR="$main" hack/cluster/down.sh
  ROLLPLAN_CLUSTER_DIR="$iso" hack/cluster/down.sh
  # The bare API servers of the --contexts tests, when go test died before stopping them.
  for d in _output/e2e-apiserver-*; do [[ -d $d ]] && ROLLPLAN_CLUSTER_DIR="$d" hack/cluster/down.sh; done
  exit "$rc"
}
trap cleanup EXIT

# One after the other: up.sh picks free ports at random, and two at once could pick the same.
ROLLPLAN_CLUSTER_DIR="$main" hack/cluster/up.sh || exit
ROLLPLAN_CLUSTER_DIR="$iso" hack/cluster/up.sh || exit

start=$SECONDS
ROLLPLAN_E2E_REQUIRED=1 ROLLPLAN_E2E_KUBECONFIG="$iso/kubeconfig" \
  "$GO" test -tags e2e -race -count=1 -timeout 40m -run "$isolated" "${extra[@]}" ./test/e2e/ \
  >_output/e2e-isolated.log 2>&1 &
iso_pid=$!

ROLLPLAN_E2E_REQUIRED=1 ROLLPLAN_E2E_KUBECONFIG="$main/kubeconfig" \
  "$GO" test -tags e2e -race -count=1 -parallel 4 -timeout 40m -skip "$isolated" "${extra[@]}" ./test/e2e/...
main_rc=$?
echo "e2e: main cluster's tests ended in $((SECONDS - start))s, exit $main_rc" >&2

wait "$iso_pid"
iso_rc=$?
iso_pid=""
echo "e2e: the isolated tests ($isolated), on a cluster of their own:" >&2
cat _output/e2e-isolated.log
echo "e2e: isolated tests ended in $((SECONDS - start))s, exit $iso_rc" >&2

((main_rc == 0 && iso_rc == 0))

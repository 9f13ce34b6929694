#!/usr/bin/env bash
# Builds the local cluster's binaries from Go modules (no downloads of prebuilt binaries):
# kube-apiserver, kube-controller-manager, kube-scheduler, kubectl (Kubernetes v1.36.3),
# etcd (v3.6.8) and kwok (v0.7.0), each from its tools module under hack/tools.
#
# Binaries are cached in $ROLLPLAN_BIN (default: _output/bin, git-ignored) and rebuilt only
# when the pinning go.mod/go.sum of their module changes (a stamp file records its hash).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${ROLLPLAN_BIN:-$root/_output/bin}
mkdir -p "$bin"
export CGO_ENABLED=0 GOFLAGS=-mod=mod

build() { # build MODULE_DIR PKG...
  local dir=$1; shift
  local name; name=$(basename "$dir")
  local stamp="$bin/.stamp-$name"
  local want; want=$(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -d' ' -f1)
  local have=""; [[ -f $stamp ]] && have=$(cat "$stamp")
  local missing=0
  for p in "$@"; do [[ -x $bin/$(basename "$p") ]] || missing=1; done
  if [[ $want == "$have" && $missing == 0 ]]; then
    echo "build.sh: $name binaries are current in $bin" >&2
    return
  fi
  echo "build.sh: building $name ($*) into $bin (several minutes on a cold cache)" >&2
  local start=$SECONDS
  (cd "$dir" && go build -trimpath -ldflags=-s -o "$bin/" "$@")
  echo "$want" >"$stamp"
  echo "build.sh: $name built in $((SECONDS - start))s" >&2
}

build "$root/hack/tools/etcd" go.etcd.io/etcd/server/v3
# etcd's module root builds as "v3"; give it its real name.
if [[ -x $bin/v3 ]]; then mv -f "$bin/v3" "$bin/etcd"; fi
build "$root/hack/tools/kwok" sigs.k8s.io/kwok/cmd/kwok
build "$root/hack/tools/kube" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl

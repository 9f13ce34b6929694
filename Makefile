# kubectl-rollplan. `make demo` and `make test` are the two set-up commands (README).
SHELL := /usr/bin/env bash
GO ?= go
BIN := _output/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
# make dist: the release version (krew/VERSION, semver with a leading v) and the time stamped on
# every archive entry (the commit's time), so the same commit always gives the same bytes.
DIST_VERSION ?= $(shell cat krew/VERSION)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
DIST_FLAGS = -version $(DIST_VERSION) -commit $(COMMIT) -mtime $(SOURCE_DATE_EPOCH) -go $(GO)
LDFLAGS := -s -w -X github.com/rollplan/kubectl-rollplan/pkg/cmd.version=$(VERSION) -X github.com/rollplan/kubectl-rollplan/pkg/cmd.commit=$(COMMIT)

.PHONY: all build test unit conformance e2e bench demo cluster-binaries cluster-up cluster-down update-golden fmt vet dist manifest test-dist

all: build

build: ## the plugin binary, into _output/bin/kubectl-rollplan
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/kubectl-rollplan ./cmd/kubectl-rollplan

cluster-binaries: ## etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok from Go modules (cached)
	hack/cluster/build.sh

unit: ## unit tests of the plugin module, with -race
	$(GO) test -race -count=1 ./...

conformance: ## the planner against the real v1.36.3 Deployment controller, run in-process (test/conformance)
	cd test/conformance && bash hack/gen-upstream.sh && GOFLAGS=-mod=mod $(GO) test -count=1 ./...

cluster-up: ## start the private local cluster (state in _output/cluster, KUBECONFIG=_output/cluster/kubeconfig)
	hack/cluster/up.sh

cluster-down: ## stop the cluster of cluster-up and remove its state
	hack/cluster/down.sh

# e2e tests carry the build tag e2e (//go:build e2e), so `make unit` (plain go test ./...) never
# starts a cluster. `make e2e` starts one private cluster for the whole run in a fresh state dir,
# hands it to every package through ROLLPLAN_E2E_KUBECONFIG and stops it even when tests fail
# (the cluster's logs are then copied to _output/e2e-logs). ROLLPLAN_E2E_REQUIRED=1: tests fail,
# never skip, when there is no cluster.
e2e: build cluster-binaries ## end-to-end tests (test/e2e) on a private local cluster
	@mkdir -p _output; state=$$(mktemp -d "$(CURDIR)/_output/e2e-cluster.XXXXXX"); \
	trap 'rc=$$?; if [[ $$rc != 0 && -d $$state/logs ]]; then rm -rf _output/e2e-logs; cp -r "$$state/logs" _output/e2e-logs; echo "e2e: cluster logs in _output/e2e-logs" >&2; fi; ROLLPLAN_CLUSTER_DIR="$$state" hack/cluster/down.sh; exit $$rc' EXIT; \
	ROLLPLAN_CLUSTER_DIR="$$state" hack/cluster/up.sh && \
	ROLLPLAN_E2E_REQUIRED=1 ROLLPLAN_E2E_KUBECONFIG="$$state/kubeconfig" $(GO) test -tags e2e -race -count=1 ./test/e2e/...

dist: ## reproducible static archives for linux, darwin, windows x amd64, arm64, checksums.txt and the Krew manifest, in dist/
	$(GO) run ./hack/dist $(DIST_FLAGS) -out dist

manifest: ## a release step: make dist, and write the top-level plugins.yaml from it (commit the result)
	$(GO) run ./hack/dist $(DIST_FLAGS) -out dist -manifest-out plugins.yaml

# test-dist (build tag e2e, test/dist): dist/ against Krew's rules, rebuilt byte for byte from a
# copy of the source, installed as Krew installs it, run and completed through kubectl v1.36.3.
test-dist: dist cluster-binaries ## the release archives: Krew's rules, reproducibility, Krew-style install, kubectl plugin discovery and completion
	ROLLPLAN_E2E_REQUIRED=1 ROLLPLAN_DIST_DIR="$(CURDIR)/dist" $(GO) test -tags e2e -count=1 -timeout 30m ./test/dist/...

test: unit conformance e2e test-dist ## every test: unit, conformance against the upstream controller, e2e on the local cluster

demo: build cluster-binaries ## the main job on an embedded default: offline preview, then a private cluster, a live preview, the change, and a check
	hack/demo.sh

bench: build ## benchmarks (planner speed and memory; drive's reaction time beside the controller's on a local cluster, skipped when its binaries cannot be built)
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/planner/...
	$(GO) test -tags e2e -run '^$$' -bench DriveReactionTime -benchtime 3x -count=1 ./test/e2e/

update-golden: ## regenerate golden files
	$(GO) test ./... -update

fmt:
	gofmt -l -w cmd pkg internal test

vet:
	$(GO) vet ./...

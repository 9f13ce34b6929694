# kubectl-rollplan. `make demo` and `make test` are the two set-up commands (README).
SHELL := /usr/bin/env bash
GO ?= go
BIN := _output/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X github.com/rollplan/kubectl-rollplan/pkg/cmd.version=$(VERSION) -X github.com/rollplan/kubectl-rollplan/pkg/cmd.commit=$(COMMIT)

.PHONY: all build test unit conformance e2e bench demo cluster-binaries cluster-up cluster-down update-golden fmt vet

all: build

build: ## the plugin binary, into _output/bin/kubectl-rollplan
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/kubectl-rollplan ./cmd/kubectl-rollplan

cluster-binaries: ## etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok from Go modules (cached)
	hack/cluster/build.sh

unit: ## unit tests of the plugin module, with -race
	$(GO) test -race -count=1 ./...

conformance: ## the planner against the real v1.36.3 Deployment controller, run in-process (test/conformance)
	cd test/conformance && bash hack/gen-upstream.sh && GOFLAGS=-mod=mod $(GO) test -count=1 ./...

test: unit conformance ## every test: unit, conformance against the upstream controller, e2e on the local cluster

demo: build cluster-binaries ## the main job on an embedded default: offline preview, then a private cluster, a live preview, the change, and a check
	hack/demo.sh

bench: ## benchmarks (planner speed and memory)
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/planner/...

update-golden: ## regenerate golden files
	$(GO) test ./... -update

fmt:
	gofmt -l -w cmd pkg internal test

vet:
	$(GO) vet ./...

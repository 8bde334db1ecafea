# The two commands in the README: `make up` and `make test`.
GO ?= go
# Stamps the binaries with their version (see version/version.go).
LDFLAGS = $(shell ./hack/ldflags.sh)

.PHONY: up test unit integration bench generate install install-tests build

install:
	./hack/install.sh

# What the tests need besides: upstream KubeVirt's virtctl.
install-tests:
	./hack/install.sh --tests

up: install
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/virtflow ./cmd/virt-launcher ./cmd/pause
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/virtflow-tasks
	./bin/virtflow up --test-guest "$$(./hack/mkguest.sh)" --cli-downloads "$$(./hack/virtctl-builds.sh)"

test: install-tests unit integration

unit:
	$(GO) vet ./...
	$(GO) test -count=1 ./...
	cd tools/tekton && $(GO) test -count=1 ./...
	./hack/console-build.sh test

integration:
	$(GO) vet -tags integration ./integration/...
	$(GO) vet -tags 'integration bench' ./integration/...
	$(GO) test -tags integration -count=1 -p 1 -timeout 60m -v ./integration/...

# Prints one table of ratios against baselines measured in the same run
# (BENCH_RUNS, BENCH_SIMULATED_VMS, BENCH_QEMU_VMS adjust its sizes).
bench: install-tests
	$(GO) test -tags 'integration bench' -count=1 -timeout 90m -run '^TestBench(Up|Migration)?$$' -v ./integration/
	$(GO) test -tags 'integration bench' -count=1 -timeout 20m -run '^TestBenchNode$$' -v ./integration/node/

generate:
	$(GO) run ./cmd/crdgen

build:
	./hack/console-build.sh >/dev/null
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/virtflow ./cmd/virt-launcher ./cmd/pause ./cmd/virtctl
	# The Tekton tasks' step programs go into images of their own: static.
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/virtflow-tasks

# The two commands in the README: `make up` and `make test`.
GO ?= go

.PHONY: up test unit integration generate install build

install:
	./hack/install.sh

up: install
	$(GO) run ./cmd/virtflow up --test-guest "$$(./hack/mkguest.sh)"

test: install unit integration

unit:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

integration:
	$(GO) vet -tags integration ./integration/...
	$(GO) test -tags integration -count=1 -timeout 40m -v ./integration/...

generate:
	$(GO) run ./cmd/crdgen

build:
	$(GO) build -o bin/virtflow ./cmd/virtflow

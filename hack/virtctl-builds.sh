#!/usr/bin/env bash
# Cross-builds virtctl for the platforms hco's cli-download serves
# (linux, darwin, windows × amd64, arm64) into the cache, keyed by the
# virtctl sources and go.sum, and prints the directory. Layout:
# <dir>/<arch>/<os>/virtctl[.exe]
set -euo pipefail
cd "$(dirname "$0")/.."
key=$( (cat go.mod go.sum; find virtctl cmd/virtctl version -name '*.go' ! -name '*_test.go' | sort | xargs cat) | sha256sum | cut -c1-12)
dir="${VIRTFLOW_CACHE_DIR:-$HOME/.cache/virtflow}/virtctl-builds-${key}"
if [ ! -f "$dir/complete" ]; then
  echo "cross-building virtctl for 6 platforms (first run only, cached in $dir)" >&2
  for arch in amd64 arm64; do
    for os in linux darwin windows; do
      exe=virtctl
      if [ "$os" = windows ]; then exe=virtctl.exe; fi
      mkdir -p "$dir/$arch/$os"
      CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
        -ldflags="-s -w -X github.com/virtflow/virtflow/version.gitVersion=v0.1.0-src${key}" \
        -o "$dir/$arch/$os/$exe" ./cmd/virtctl
    done
  done
  touch "$dir/complete"
fi
echo "$dir"

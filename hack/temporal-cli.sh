#!/usr/bin/env bash
# Builds (first run) the pinned temporal CLI from tools/temporal into the
# cache and prints its path.
set -euo pipefail
cd "$(dirname "$0")/../tools/temporal"
version=$(awk '$1 ~ /temporalio\/cli$/ || $2 ~ /temporalio\/cli$/ {print $NF; exit}' go.mod)
dir="${VIRTFLOW_CACHE_DIR:-$HOME/.cache/virtflow}/temporal-cli-${version}"
if [ ! -x "$dir/temporal" ]; then
  mkdir -p "$dir"
  echo "building temporal CLI ${version} (first run only, cached in $dir)" >&2
  CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$dir/temporal.partial" github.com/temporalio/cli/cmd/temporal
  mv "$dir/temporal.partial" "$dir/temporal"
fi
echo "$dir/temporal"

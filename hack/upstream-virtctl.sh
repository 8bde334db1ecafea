#!/usr/bin/env bash
# Builds (first run) the pinned upstream KubeVirt virtctl from
# tools/virtctl-upstream into the cache and prints its path. Integration tests
# use it to check that an unmodified upstream virtctl works against our API.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(awk '$1 == "kubevirt.io/kubevirt" || $2 == "kubevirt.io/kubevirt" {print $NF; exit}' tools/virtctl-upstream/go.mod)
dir="${VIRTFLOW_CACHE_DIR:-$HOME/.cache/virtflow}/virtctl-upstream-${version}"
if [ ! -x "$dir/virtctl" ]; then
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  echo "building upstream virtctl ${version} (first run only, cached in $dir)" >&2
  # Same version stamping as kubevirt's hack/version.sh, so that
  # `virtctl version` reports the release rather than v0.0.0-master.
  date=$(go -C tools/virtctl-upstream list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' kubevirt.io/kubevirt)
  commit=$(go -C tools/virtctl-upstream mod download -json "kubevirt.io/kubevirt@${version}" | sed -n 's/.*"Hash": "\([0-9a-f]*\)".*/\1/p')
  pkg=kubevirt.io/client-go/version
  ldflags="-s -w -X ${pkg}.gitVersion=${version} -X ${pkg}.gitCommit=${commit} -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=${date}"
  CGO_ENABLED=0 go build -C tools/virtctl-upstream -trimpath -ldflags="$ldflags" -o "$dir/virtctl.partial" kubevirt.io/kubevirt/cmd/virtctl
  mv "$dir/virtctl.partial" "$dir/virtctl"
fi
echo "$dir/virtctl"

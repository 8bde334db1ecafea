#!/usr/bin/env bash
# Prints the -ldflags that stamp virtflow's binaries with their version,
# as upstream's components report it: a git-describe style version on top
# of version.Base, the commit, the tree state and the commit's date (the
# commit's, not the clock's, so the same commit links the same binary).
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=github.com/virtflow/virtflow/version
base=$(sed -n 's/^const Base = "\(.*\)"$/\1/p' version/version.go)
if ! commit=$(git rev-parse HEAD 2>/dev/null); then
  exit 0
fi
count=$(git rev-list --count HEAD)
state=clean
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  state=dirty
fi
date=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
ver="${base}-${count}-g${commit:0:14}"
if [ "$state" = dirty ]; then
  ver="${ver}-dirty"
fi
echo "-X ${pkg}.gitVersion=${ver} -X ${pkg}.gitCommit=${commit} -X ${pkg}.gitTreeState=${state} -X ${pkg}.buildDate=${date}"

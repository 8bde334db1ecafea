#!/usr/bin/env bash
# Builds the web console's browser bundle into console/web/dist, which the Go
# package console/web embeds, and prints that path. `console-build.sh test`
# instead type-checks the sources and runs their unit tests.
#
# node_modules comes from `npm ci` of the committed lockfile, installed once
# per lockfile into the cache and linked into console/web: a clone never
# downloads the same packages twice, and a link keeps `go ./...` out of it
# (some npm packages carry .go files). The bundle is rebuilt only when its
# inputs' hash differs from the one recorded in dist, so a second run is a
# few hashes.
set -euo pipefail
cd "$(dirname "$0")/../console/web"
web=$PWD

if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "console-build: Node.js (20 or later) and npm are needed to build the web console" >&2
  exit 1
fi

cache=${VIRTFLOW_CACHE_DIR:-$HOME/.cache/virtflow}
mkdir -p "$cache"
deps_hash=$(cat package.json package-lock.json .npmrc | sha256sum | cut -c1-16)
modules=$cache/console-node-modules-$deps_hash

# The stamp is written last, so an interrupted install is redone, not used;
# the lock keeps two builds from installing into one directory at once.
if [ ! -e "$modules/.installed" ]; then
  exec 9>"$modules.lock"
  flock 9
  if [ ! -e "$modules/.installed" ]; then
    echo "console-build: installing the console's npm packages into $modules" >&2
    rm -rf "$modules"
    mkdir -p "$modules"
    cp package.json package-lock.json .npmrc "$modules/"
    (cd "$modules" && npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$modules/.installed"
  fi
  exec 9>&-
fi
if [ "$(readlink node_modules 2>/dev/null)" != "$modules/node_modules" ]; then
  # A node_modules of a hand-run `npm install` is replaced: it is derived,
  # and a real directory here would put its .go files under `go ./...`.
  rm -rf node_modules
  ln -s "$modules/node_modules" node_modules
fi

if [ "${1:-}" = test ]; then
  npm run --silent typecheck
  npm test --silent
  exit 0
fi

inputs=$(find src scripts index.html package.json package-lock.json tsconfig.json -type f -print0 |
  LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)
if [ -f dist/index.html ] && [ -f dist/app.js ] && [ "$(cat dist/.inputs 2>/dev/null)" = "$inputs" ]; then
  echo "$web/dist"
  exit 0
fi
CONSOLE_INPUTS_HASH=$inputs node scripts/build.mjs >&2
echo "$inputs" >dist/.inputs
echo "$web/dist"
